// The `interval` dialect in IRDL: the schedule of a task program.
// `interval.program` is a function-like op (sym_name, function_type, arg_attrs) whose one block holds the
// program's constants and then its intervals in order: `interval.interval` opens an interval, the tasks
// that may run concurrently follow, and `interval.barrier` closes it (the last interval ends at the
// block's `gpu.yield`, which returns the program's results). Values flow between intervals as ordinary
// SSA values of the one block; an interval is not a region because an IRDL op cannot return a
// heterogeneous list of values out of one.
irdl.dialect @interval {
  irdl.operation @program {
    %a0 = irdl.base "#builtin.string"
    %a1 = irdl.base "#builtin.type"
    %g0 = irdl.region
    irdl.attributes {"sym_name" = %a0, "function_type" = %a1}
    irdl.regions(body: %g0)
  }
  irdl.operation @interval {
    %a0 = irdl.base "#builtin.string"
    irdl.attributes {"name" = %a0}
  }
  irdl.operation @barrier {
  }
}
