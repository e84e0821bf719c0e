// Bad input: each is one `error:` line and exit status 1.
// RUN: rm -rf %t && python3 %S/Inputs/badnpy.py %t
// RUN: not latch-interp %s --entry nope --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=ENTRY --implicit-check-not=error:
// ENTRY: latch-interp: error: no function @nope in '{{.*}}errors.mlir'
// RUN: not latch-interp %s --entry lookup --init 1 --input foo=%t/ids_ok.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=NAME --implicit-check-not=error:
// NAME: latch-interp: error: --input 'foo': @lookup has no argument of that name (use argN or the task.name)
// RUN: not latch-interp %s --entry lookup --input ids=%t/ids_ok.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not=error:
// MISSING: latch-interp: error: missing argument 'table' (arg0): give --input table=FILE.npy or --init SEED
// RUN: not latch-interp %s --entry lookup --init 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=MISSING-INPUT --implicit-check-not=error:
// MISSING-INPUT: latch-interp: error: missing argument 'ids' (arg1): give --input ids=FILE.npy or --random-inputs SEED
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/ids_ok.npy --input arg1=%t/ids_ok.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=TWICE --implicit-check-not=error:
// TWICE: latch-interp: error: argument 'ids' (arg1) is given more than once
// RUN: not latch-interp %s --entry norange --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=RANGE --implicit-check-not=error:
// RANGE: latch-interp: error: argument arg0 is i32 and has no task.range attribute, so --random-inputs cannot fill it; give --input arg0=FILE.npy
// RUN: not latch-interp %s --entry lookup --emulate=fp16 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=EMULATE --implicit-check-not=error:
// EMULATE: latch-interp: error: --emulate takes fp32 or bf16, not 'fp16'
// RUN: not latch-interp %s --entry lookup --init 1 --random-inputs 2 2>&1 | FileCheck %s --check-prefix=OUTDIR --implicit-check-not=error:
// OUTDIR: latch-interp: error: no --output-dir given
// RUN: not latch-interp %s --entry lookup --init x1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=SEED --implicit-check-not=error:
// SEED: latch-interp: error: --init needs an unsigned 64-bit integer, not 'x1'

// .npy files that do not fit the argument, or are not valid .npy v1.0.
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/ids_shape.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=SHAPE --implicit-check-not=error:
// SHAPE: latch-interp: error: input 'ids' (arg1) ('{{.*}}ids_shape.npy'): shape (2, 2) does not match the argument type tensor<4xi32>
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/ids_f4.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=DTYPE --implicit-check-not=error:
// DTYPE: latch-interp: error: input 'ids' (arg1) ('{{.*}}ids_f4.npy'): dtype '<f4' does not fit the argument type tensor<4xi32> (expected '<i4')
// RUN: not latch-interp %s --entry lookup --init 1 --input table=%t/ids_ok.npy --input ids=%t/ids_ok.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=DTYPE-F --implicit-check-not=error:
// DTYPE-F: latch-interp: error: input 'table' (arg0) ('{{.*}}ids_ok.npy'): dtype '<i4' does not fit the argument type tensor<4x3xf32> (expected '<f4' or '<f8')
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/truncated.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=TRUNC --implicit-check-not=error:
// TRUNC: latch-interp: error: input 'ids' (arg1): '{{.*}}truncated.npy': the data is 12 bytes, the header says 16 (4 elements of <i4)
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/fortran.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=FORTRAN --implicit-check-not=error:
// FORTRAN: latch-interp: error: input 'ids' (arg1): '{{.*}}fortran.npy': Fortran-order arrays are not supported (write C order)
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/bigendian.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=ENDIAN --implicit-check-not=error:
// ENDIAN: latch-interp: error: input 'ids' (arg1): '{{.*}}bigendian.npy': unsupported dtype '>i4' (supported: '<f4', '<f8', '<i4')
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/version2.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=VERSION --implicit-check-not=error:
// VERSION: latch-interp: error: input 'ids' (arg1): '{{.*}}version2.npy': unsupported .npy version 2.0 (supported: 1.0)
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/no_order.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=NO-ORDER --implicit-check-not=error:
// NO-ORDER: latch-interp: error: input 'ids' (arg1): '{{.*}}no_order.npy': malformed .npy header: missing 'fortran_order'
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/bad_shape.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE --implicit-check-not=error:
// BAD-SHAPE: latch-interp: error: input 'ids' (arg1): '{{.*}}bad_shape.npy': malformed .npy header: bad dimension in 'shape'
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/not_npy.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=MAGIC --implicit-check-not=error:
// MAGIC: latch-interp: error: input 'ids' (arg1): '{{.*}}not_npy.npy': not a .npy file (no \x93NUMPY magic)
// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/missing.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=NOFILE --implicit-check-not=error:
// NOFILE: latch-interp: error: input 'ids' (arg1): cannot open '{{.*}}missing.npy': No such file or directory

// Non-finite inputs are allowed, propagated and counted.
// RUN: latch-interp %s --entry lookup --input table=%t/table_nonfinite.npy --input ids=%t/ids_ok.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=NONFINITE --implicit-check-not=error:
// NONFINITE: latch-interp: warning: 3 non-finite values in inputs

// RUN: not latch-interp %s --entry lookup --init 1 --input ids=%t/ids_bad.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=EMB --implicit-check-not=error:
// EMB: errors.mlir:[[@LINE+3]]:{{[0-9]+}}: error: 'task.embedding' ids[1] = 9 is outside [0, 4)
func.func @lookup(%table: tensor<4x3xf32> {task.param, task.name = "table"},
                  %ids: tensor<4xi32> {task.name = "ids"}) -> tensor<4x3xf32> {
  %y = "task.embedding"(%table, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// RUN: not latch-interp %s --entry gather --input arg0=%t/x43.npy --input arg1=%t/idx_bad.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=GATHER --implicit-check-not=error:
// GATHER: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'task.gather_rows' idx[1] = 4 is outside [0, 4)
func.func @gather(%x: tensor<4x3xf32>, %idx: tensor<2xi32>) -> tensor<2x3xf32> {
  %y = "task.gather_rows"(%x, %idx) : (tensor<4x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// RUN: not latch-interp %s --entry ce --input arg0=%t/logits.npy --input arg1=%t/targets_bad.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=CE --implicit-check-not=error:
// CE: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'task.cross_entropy' targets[1] = -1 is outside [0, 3)
func.func @ce(%l: tensor<2x3xf32>, %t: tensor<2xi32>) -> tensor<f32> {
  %y = "task.cross_entropy"(%l, %t) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  return %y : tensor<f32>
}

// RUN: not latch-interp %s --entry bucket --input arg0=%t/bucket_ids.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=BUCKET --implicit-check-not=error:
// BUCKET: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'task.bucket' ids[1, 0] = 3 is outside [0, 3)
func.func @bucket(%ids: tensor<2x2xi32>) -> (tensor<4xi32>, tensor<3xi32>) {
  %o, %e = "task.bucket"(%ids) {buckets = 3} : (tensor<2x2xi32>) -> (tensor<4xi32>, tensor<3xi32>)
  return %o, %e : tensor<4xi32>, tensor<3xi32>
}

// RUN: not latch-interp %s --entry gmm --input arg0=%t/x43.npy --random-inputs 1 --input arg2=%t/ends_bad.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=GMM --implicit-check-not=error:
// GMM: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'task.grouped_matmul' ends[1] = 2 is outside [3, 4] (ends must be non-decreasing and at most the 4 rows of x)
func.func @gmm(%x: tensor<4x3xf32>, %w: tensor<2x3x2xf32>, %ends: tensor<2xi32>) -> tensor<4x2xf32> {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<4x3xf32>, tensor<2x3x2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// RUN: not latch-interp %s --entry adamw --random-inputs 1 --input arg4=%t/step0.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=STEP --implicit-check-not=error:
// STEP: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'task.adamw' step t = 0 must be at least 1
func.func @adamw(%p: tensor<2xf32>, %g: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>, %step: tensor<i32>) -> tensor<2xf32> {
  %p2, %m2, %v2 = "task.adamw"(%p, %g, %m, %v, %step)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64}
      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %p2 : tensor<2xf32>
}

// RUN: not latch-interp %s --entry unsupported --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP --implicit-check-not=error:
// UNKNOWN-OP: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'tensor.empty' is not supported by latch-interp
func.func @unsupported(%x: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  return %e : tensor<2xf32>
}

func.func @norange(%ids: tensor<3xi32>) -> tensor<3xi32> {
  return %ids : tensor<3xi32>
}

// RUN: not latch-interp %s --entry dynamic --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=DYNAMIC --implicit-check-not=error:
// DYNAMIC: latch-interp: error: argument 0 has type tensor<?xf32>; latch-interp takes static tensors of f32, bf16, f64 or i32 (rank <= 8)
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// RUN: not latch-interp %s --entry divide --input arg0=%t/ids_ok.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=DIVIDE --implicit-check-not=error:
// DIVIDE: errors.mlir:[[@LINE+5]]:{{[0-9]+}}: error: 'arith.divsi' integer division by zero (element 0 of the enclosing task.map)
func.func @divide(%x: tensor<4xi32>) -> tensor<4xi32> {
  %y = "task.map"(%x) ({
  ^bb0(%v: i32):
    %zero = arith.constant 0 : i32
    %q = arith.divsi %v, %zero : i32
    gpu.yield %q : i32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// RUN: not latch-interp %s --entry body_op --input arg0=%t/ids_f4.npy --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=BODY-OP --implicit-check-not=error:
// BODY-OP: errors.mlir:[[@LINE+4]]:{{[0-9]+}}: error: 'math.sinh' is not supported by latch-interp in a task.map body
func.func @body_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "task.map"(%x) ({
  ^bb0(%v: f32):
    %s = math.sinh %v : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
