// The `interval` dialect in IRDL: the schedule of a task program.
// `interval.program` holds the ordered intervals of one update; each `interval.interval` holds tasks that
// may run concurrently; `interval.barrier` marks where every unit waits before the next interval starts.
// IRDL ops cannot be terminators, so each region's block ends in `gpu.yield` (see docs/architecture.md).
irdl.dialect @interval {
  irdl.operation @program {
    %a0 = irdl.base "#builtin.string"
    %g0 = irdl.region
    irdl.attributes {"sym_name" = %a0}
    irdl.regions(body: %g0)
  }
  irdl.operation @interval {
    %a0 = irdl.base "#builtin.string"
    %g0 = irdl.region
    irdl.attributes {"name" = %a0}
    irdl.regions(body: %g0)
  }
  irdl.operation @barrier {
  }
}
