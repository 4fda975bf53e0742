// Transposes that only products read fold into the products' flags
// (ckpt-fold-transposes, first in the pipeline): the step has no transpose
// left, forward or backward; its gradients match finite differences (f64)
// and its measured peak is the simulated one to the byte. It saves q once:
// without the fold the second product saves q^T, a copy of q that the
// first product's gradient saves too (16 KiB more; PyTorch saves a view of
// q instead).
// RUN: ckpt-opt %s --ckpt-fold-transposes --ckpt-thread-rng --ckpt-autodiff -o %t.mlir
// RUN: FileCheck %s --check-prefix=STEP --input-file=%t.mlir
// RUN: ckpt-run %t.mlir --check-gradients=2 --check-peak=1e-9 | FileCheck %s
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none --ckpt-report=output=- -o /dev/null | FileCheck %s --check-prefix=FOLDED
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-autodiff --ckpt-report=output=- -o /dev/null | FileCheck %s --check-prefix=COPIED

// STEP-LABEL: func.func @scores_train
//   STEP-NOT:   ckpt.transpose
//       STEP:   ckpt.matmul %{{.+}}, %{{.+}} transpose_rhs : (tensor<2x64x16xf64>, tensor<2x64x16xf64>) -> tensor<2x64x64xf64>
//   STEP-NOT:   ckpt.transpose
//       STEP:   ckpt.matmul %{{.+}}, %{{.+}} transpose_lhs : (tensor<2x64x16xf64>, tensor<2x64x64xf64>) -> tensor<2x16x64xf64>
//   STEP-NOT:   ckpt.transpose
//       STEP:   return

// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: gradient check: passed

// FOLDED: saved activations: 5 tensors, 131072 B (128.000 KiB)
// COPIED: ckpt.transpose fold-transposes-step.mlir:[[#@LINE+9]]:9 %{{.+}} 2x16x64 f64 16384
// COPIED: saved activations: 6 tensors, 147456 B (144.000 KiB)
func.func @scores(%x: tensor<2x64x16xf64>, %wq: tensor<16x16xf64> {ckpt.param},
                  %wk: tensor<16x16xf64> {ckpt.param}) -> tensor<f64> {
  %q = ckpt.linear %x, %wq : (tensor<2x64x16xf64>, tensor<16x16xf64>) -> tensor<2x64x16xf64>
  %k = ckpt.linear %x, %wk : (tensor<2x64x16xf64>, tensor<16x16xf64>) -> tensor<2x64x16xf64>
  %kt = ckpt.transpose %k permutation = [0, 2, 1] : tensor<2x64x16xf64> -> tensor<2x16x64xf64>
  %s = ckpt.matmul %q, %kt : (tensor<2x64x16xf64>, tensor<2x16x64xf64>) -> tensor<2x64x64xf64>
  %p = ckpt.softmax %s dim = 2 : tensor<2x64x64xf64>
  %qt = ckpt.transpose %q permutation = [0, 2, 1] : tensor<2x64x16xf64> -> tensor<2x16x64xf64>
  %o = ckpt.matmul %qt, %p : (tensor<2x16x64xf64>, tensor<2x64x64xf64>) -> tensor<2x16x64xf64>
  %t = ckpt.tanh %o : tensor<2x16x64xf64>
  %l = ckpt.reduce_sum %t : tensor<2x16x64xf64> -> tensor<f64>
  return %l : tensor<f64>
}
