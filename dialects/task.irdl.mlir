// The `task` dialect in IRDL: the functional tensor program (one op = one kind of work).
// Embedded into the binaries at build time; shapes and dtypes are checked by latch-verify.
irdl.dialect @task {
  irdl.operation @matmul {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.integer"
    irdl.operands(a: %o0, b: %o1)
    irdl.results(c: %r0)
    irdl.attributes {"transpose_a" = %a0, "transpose_b" = %a1}
  }
  irdl.operation @grouped_matmul {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0, w: %o1, ends: %o2)
    irdl.results(y: %r0)
  }
  // IRDL unifies every use of one constraint, so a single variadic list would force all inputs
  // (and all outputs) to one type. Each position gets its own optional operand instead; the op
  // carries operandSegmentSizes/resultSegmentSizes (latch_op_create and the builder add them).
  irdl.operation @map {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %o4 = irdl.base "!builtin.tensor"
    %o5 = irdl.base "!builtin.tensor"
    %o6 = irdl.base "!builtin.tensor"
    %o7 = irdl.base "!builtin.tensor"
    %o8 = irdl.base "!builtin.tensor"
    %o9 = irdl.base "!builtin.tensor"
    %o10 = irdl.base "!builtin.tensor"
    %o11 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %r2 = irdl.base "!builtin.tensor"
    %r3 = irdl.base "!builtin.tensor"
    %r4 = irdl.base "!builtin.tensor"
    %r5 = irdl.base "!builtin.tensor"
    %g0 = irdl.region
    irdl.operands(in0: optional %o0, in1: optional %o1, in2: optional %o2, in3: optional %o3, in4: optional %o4, in5: optional %o5, in6: optional %o6, in7: optional %o7, in8: optional %o8, in9: optional %o9, in10: optional %o10, in11: optional %o11)
    irdl.results(out0: optional %r0, out1: optional %r1, out2: optional %r2, out3: optional %r3, out4: optional %r4, out5: optional %r5)
    irdl.regions(body: %g0)
  }
  irdl.operation @reduce {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.string"
    irdl.operands(x: %o0)
    irdl.results(y: %r0)
    irdl.attributes {"axis" = %a0, "kind" = %a1}
  }
  irdl.operation @rmsnorm {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.float"
    irdl.operands(x: %o0, w: %o1)
    irdl.results(y: %r0)
    irdl.attributes {"eps" = %a0}
  }
  irdl.operation @softmax {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0)
    irdl.results(y: %r0)
  }
  irdl.operation @cross_entropy {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(logits: %o0, targets: %o1)
    irdl.results(loss: %r0)
  }
  irdl.operation @embedding {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(table: %o0, ids: %o1)
    irdl.results(y: %r0)
  }
  irdl.operation @rope {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.float"
    irdl.operands(x: %o0)
    irdl.results(y: %r0)
    irdl.attributes {"theta" = %a0}
  }
  irdl.operation @attention {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.float"
    irdl.operands(q: %o0, k: %o1, v: %o2)
    irdl.results(o: %r0)
    irdl.attributes {"causal" = %a0, "scale" = %a1}
  }
  irdl.operation @topk {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    irdl.operands(x: %o0)
    irdl.results(values: %r0, indices: %r1)
    irdl.attributes {"k" = %a0}
  }
  irdl.operation @bucket {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    irdl.operands(ids: %o0)
    irdl.results(order: %r0, ends: %r1)
    irdl.attributes {"buckets" = %a0}
  }
  irdl.operation @gather_rows {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0, idx: %o1)
    irdl.results(y: %r0)
  }
  irdl.operation @scatter_add_rows {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    irdl.operands(x: %o0, idx: %o1)
    irdl.results(y: %r0)
    irdl.attributes {"rows" = %a0}
  }
  irdl.operation @reshape {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0)
    irdl.results(y: %r0)
  }
  irdl.operation @transpose {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.dense_array"
    irdl.operands(x: %o0)
    irdl.results(y: %r0)
    irdl.attributes {"perm" = %a0}
  }
  irdl.operation @convert {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0)
    irdl.results(y: %r0)
  }
  irdl.operation @adamw {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %o4 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %r2 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.float"
    %a1 = irdl.base "#builtin.float"
    %a2 = irdl.base "#builtin.float"
    %a3 = irdl.base "#builtin.float"
    %a4 = irdl.base "#builtin.float"
    irdl.operands(p: %o0, g: %o1, m: %o2, v: %o3, step: %o4)
    irdl.results(p_out: %r0, m_out: %r1, v_out: %r2)
    irdl.attributes {"lr" = %a0, "beta1" = %a1, "beta2" = %a2, "eps" = %a3, "weight_decay" = %a4}
  }
  // Backward ops that latch-autodiff emits (see docs/task-dialect.md, "Backward ops").
  irdl.operation @reduce_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.string"
    irdl.operands(x: %o0, dy: %o1)
    irdl.results(dx: %r0)
    irdl.attributes {"axis" = %a0, "kind" = %a1}
  }
  irdl.operation @rmsnorm_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.float"
    irdl.operands(x: %o0, w: %o1, dy: %o2)
    irdl.results(dx: %r0, dw: %r1)
    irdl.attributes {"eps" = %a0}
  }
  irdl.operation @softmax_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(y: %o0, dy: %o1)
    irdl.results(dx: %r0)
  }
  irdl.operation @cross_entropy_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(logits: %o0, targets: %o1, dloss: %o2)
    irdl.results(dlogits: %r0)
  }
  irdl.operation @rope_grad {
    %o0 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.float"
    irdl.operands(dy: %o0)
    irdl.results(dx: %r0)
    irdl.attributes {"theta" = %a0}
  }
  irdl.operation @attention_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %o4 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %r2 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.float"
    irdl.operands(q: %o0, k: %o1, v: %o2, o: %o3, do: %o4)
    irdl.results(dq: %r0, dk: %r1, dv: %r2)
    irdl.attributes {"causal" = %a0, "scale" = %a1}
  }
  irdl.operation @topk_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    irdl.operands(dvalues: %o0, indices: %o1)
    irdl.results(dx: %r0)
    irdl.attributes {"columns" = %a0}
  }
  irdl.operation @grouped_matmul_weight_grad {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0, dy: %o1, ends: %o2)
    irdl.results(dw: %r0)
  }
  irdl.operation @attention_stats {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.float"
    irdl.operands(q: %o0, k: %o1, o: %o2, do: %o3)
    irdl.results(stats: %r0)
    irdl.attributes {"causal" = %a0, "scale" = %a1}
  }
  irdl.operation @attention_grad_from_stats {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %o4 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %r2 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.float"
    irdl.operands(q: %o0, k: %o1, v: %o2, do: %o3, stats: %o4)
    irdl.results(dq: %r0, dk: %r1, dv: %r2)
    irdl.attributes {"causal" = %a0, "scale" = %a1}
  }
  irdl.operation @attention_lse {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.float"
    irdl.operands(q: %o0, k: %o1, v: %o2)
    irdl.results(o: %r0, lse: %r1)
    irdl.attributes {"causal" = %a0, "scale" = %a1}
  }
  irdl.operation @attention_stats_from_lse {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(o: %o0, do: %o1, lse: %o2)
    irdl.results(stats: %r0)
  }
  irdl.operation @cross_entropy_with_stats {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    %r1 = irdl.base "!builtin.tensor"
    irdl.operands(logits: %o0, targets: %o1)
    irdl.results(loss: %r0, stats: %r1)
  }
  irdl.operation @cross_entropy_grad_from_stats {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(logits: %o0, targets: %o1, dloss: %o2, stats: %o3)
    irdl.results(dlogits: %r0)
  }
  // The weight gradient of two grouped products that read the column halves of one weight
  // (latch-fold-weight-split): dw[g] = [x^T dy0 | x^T dy1] over the rows of group g.
  irdl.operation @grouped_matmul_weight_grad_concat {
    %o0 = irdl.base "!builtin.tensor"
    %o1 = irdl.base "!builtin.tensor"
    %o2 = irdl.base "!builtin.tensor"
    %o3 = irdl.base "!builtin.tensor"
    %r0 = irdl.base "!builtin.tensor"
    irdl.operands(x: %o0, dy0: %o1, dy1: %o2, ends: %o3)
    irdl.results(dw: %r0)
  }
}
