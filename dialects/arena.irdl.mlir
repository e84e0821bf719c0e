// The `arena` dialect in IRDL: memory. One `arena.arena` is a byte buffer; each `arena.slot` is a byte
// range of it (offset, size, alignment) that one tensor owns for its lifetime; `arena.view` reinterprets a
// slot's bytes as a typed, shaped memref. Overlap and lifetime rules are checked by passes, not here.
irdl.dialect @arena {
  irdl.operation @arena {
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.integer"
    %r0 = irdl.base "!builtin.memref"
    irdl.attributes {"size" = %a0, "alignment" = %a1}
    irdl.results(buffer: %r0)
  }
  irdl.operation @slot {
    %o0 = irdl.base "!builtin.memref"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.integer"
    %a2 = irdl.base "#builtin.integer"
    %r0 = irdl.base "!builtin.memref"
    irdl.operands(arena: %o0)
    irdl.attributes {"offset" = %a0, "size" = %a1, "alignment" = %a2}
    irdl.results(bytes: %r0)
  }
  irdl.operation @view {
    %o0 = irdl.base "!builtin.memref"
    %r0 = irdl.base "!builtin.memref"
    irdl.operands(slot: %o0)
    irdl.results(view: %r0)
  }
}
