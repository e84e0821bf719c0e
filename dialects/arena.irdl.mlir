// The `arena` dialect in IRDL: memory. One `arena.arena` is a byte buffer; each `arena.slot` is a byte
// range of it (offset, size, alignment); `arena.bind` places a tensor value in a slot at a byte offset.
// Several values may be bound to one slot (in-place updates, accumulated gradients, packed buffers): the
// slot is then live from the interval of its earliest writer to the interval of its last reader.
// `arena.view` reinterprets a slot's bytes as a typed, shaped memref (for the device level).
// Overlap and lifetime rules are checked by latch-verify-arena, not here.
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
  irdl.operation @bind {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.memref"
    %a0 = irdl.base "#builtin.integer"
    irdl.operands(value: %o0, slot: %o1)
    irdl.attributes {"offset" = %a0}
  }
  irdl.operation @view {
    %o0 = irdl.base "!builtin.memref"
    %r0 = irdl.base "!builtin.memref"
    irdl.operands(slot: %o0)
    irdl.results(view: %r0)
  }
}
