// An op-level plan, written as marks on a training step: `ckpt.recompute_at`
// on a forward op says, per result, that it is kept (unit) or at which
// sites it is recomputed, and `ckpt.sites` on a backward op places sites
// right before it. ckpt-insert-recompute makes one region per site.
// RUN: ckpt-opt %s --ckpt-insert-recompute | FileCheck %s
// RUN: ckpt-opt %s --ckpt-report=output=- | FileCheck %s --check-prefix=REPORT

// Attention keeping q, k and v: the scores and their softmax are brought
// back twice, once for each backward reader, instead of being held between
// them; the first region also recomputes the output the tanh reads.
// CHECK-LABEL: func.func @attention_train
// CHECK:         %[[Q:.+]] = ckpt.linear
// CHECK-NEXT:    ckpt.linear
// CHECK-NEXT:    %[[V:.+]] = ckpt.linear
// CHECK-NEXT:    %[[KT:.+]] = ckpt.transpose
// CHECK-NOT:     ckpt.recompute_at
// CHECK:         %[[T:.+]] = ckpt.recompute(%{{.+}} = %[[Q]], %{{.+}} = %[[KT]], %{{.+}} = %[[V]])
// CHECK-NEXT:      ckpt.matmul
// CHECK-NEXT:      ckpt.softmax
// CHECK-NEXT:      ckpt.matmul
// CHECK-NEXT:      ckpt.tanh
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.tanh_grad %{{.+}}, %[[T]]
// CHECK:         %[[P1:.+]] = ckpt.recompute(%{{.+}} = %[[Q]], %{{.+}} = %[[KT]])
// CHECK-NEXT:      ckpt.matmul
// CHECK-NEXT:      ckpt.softmax
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.transpose %[[P1]] permutation = [1, 0] {ckpt.backward}
// CHECK:         %[[P2:.+]] = ckpt.recompute(%{{.+}} = %[[Q]], %{{.+}} = %[[KT]])
// CHECK-NEXT:      ckpt.matmul
// CHECK-NEXT:      ckpt.softmax
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.softmax_grad %{{.+}}, %[[P2]] dim = 1 {ckpt.backward}
// CHECK-NOT:     ckpt.recompute
// CHECK-NOT:     ckpt.sites
// CHECK:         return

// REPORT-LABEL: training step @attention_train
// REPORT:         ckpt.linear {{.+}} %0 {{.+}} kept: the op-level plan keeps it
// REPORT:         ckpt.softmax {{.+}} %5 {{.+}} recomputed at sites 1, 2
// REPORT:         ckpt.tanh {{.+}} %7 {{.+}} recomputed at site 0
// REPORT:         planned as op-level marks (not yet materialised; ckpt-insert-recompute does it): simulated peak 7172 B (7.004 KiB), without returned gradients 6660 B (6.504 KiB), extra forward FLOPs 55.7% of one forward

func.func @attention_train(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32> {ckpt.param}, %arg2: tensor<16x16xf32> {ckpt.param}, %arg3: tensor<16x16xf32> {ckpt.param}) -> (tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) attributes {ckpt.training_step} {
  %0 = ckpt.linear %arg0, %arg1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %1 = ckpt.linear %arg0, %arg2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %2 = ckpt.linear %arg0, %arg3 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %3 = ckpt.transpose %1 permutation = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %4 = ckpt.matmul %0, %3 {ckpt.recompute_at = [array<i64>]} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %5 = ckpt.softmax %4 dim = 1 {ckpt.recompute_at = [array<i64: 1, 2>]} : tensor<8x8xf32>
  %6 = ckpt.matmul %5, %2 {ckpt.recompute_at = [array<i64>]} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %7 = ckpt.tanh %6 {ckpt.recompute_at = [array<i64: 0>]} : tensor<8x16xf32>
  %8 = ckpt.reduce_mean %7 : tensor<8x16xf32> -> tensor<f32>
  %cst = arith.constant {ckpt.backward} dense<1.000000e+00> : tensor<f32>
  %9 = ckpt.reshape %cst {ckpt.backward} : tensor<f32> -> tensor<1x1xf32>
  %10 = ckpt.broadcast_to %9 {ckpt.backward} : tensor<1x1xf32> -> tensor<8x16xf32>
  %cst_0 = arith.constant {ckpt.backward} dense<1.280000e+02> : tensor<f32>
  %11 = ckpt.div %10, %cst_0 {ckpt.backward} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %12 = ckpt.tanh_grad %11, %7 {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<8x16xf32>
  %13 = ckpt.transpose %2 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %14 = ckpt.matmul %12, %13 {ckpt.backward} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %15 = ckpt.transpose %5 permutation = [1, 0] {ckpt.backward, ckpt.sites = array<i64: 1>} : tensor<8x8xf32> -> tensor<8x8xf32>
  %16 = ckpt.matmul %15, %12 {ckpt.backward} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %17 = ckpt.softmax_grad %14, %5 dim = 1 {ckpt.backward, ckpt.sites = array<i64: 2>} : tensor<8x8xf32>
  %18 = ckpt.transpose %3 permutation = [1, 0] {ckpt.backward} : tensor<16x8xf32> -> tensor<8x16xf32>
  %19 = ckpt.matmul %17, %18 {ckpt.backward} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %20 = ckpt.transpose %0 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %21 = ckpt.matmul %20, %17 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %22 = ckpt.transpose %21 permutation = [1, 0] {ckpt.backward} : tensor<16x8xf32> -> tensor<8x16xf32>
  %23 = ckpt.transpose %16 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %24 = ckpt.matmul %23, %arg0 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %25 = ckpt.transpose %22 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %26 = ckpt.matmul %25, %arg0 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %27 = ckpt.transpose %19 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %28 = ckpt.matmul %27, %arg0 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  return %8, %28, %26, %24 : tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// The same attention, holding the softmax from its first backward reader to
// its second; the scores come back at the first site and the second region
// starts from that copy: fewer FLOPs, the probabilities live longer.
// CHECK-LABEL: func.func @attention_hold_train
// CHECK:         %[[R:.+]]:2 = ckpt.recompute(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>)
// CHECK:           ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.tanh_grad %{{.+}}, %[[R]]#1
// CHECK:         %[[P:.+]] = ckpt.recompute(%[[S:.+]] = %[[R]]#0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:      ckpt.softmax %[[S]]
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.transpose %[[P]] permutation = [1, 0] {ckpt.backward}
// CHECK:         ckpt.softmax_grad %{{.+}}, %[[P]] dim = 1 {ckpt.backward}
// CHECK-NOT:     ckpt.recompute
// CHECK:         return

// REPORT-LABEL: training step @attention_hold_train
// REPORT:         ckpt.softmax {{.+}} %5 {{.+}} recomputed at site 1
// REPORT:         planned as op-level marks {{.+}} without returned gradients 6916 B (6.754 KiB), extra forward FLOPs 30.3% of one forward

func.func @attention_hold_train(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32> {ckpt.param}, %arg2: tensor<16x16xf32> {ckpt.param}, %arg3: tensor<16x16xf32> {ckpt.param}) -> (tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) attributes {ckpt.training_step} {
  %0 = ckpt.linear %arg0, %arg1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %1 = ckpt.linear %arg0, %arg2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %2 = ckpt.linear %arg0, %arg3 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %3 = ckpt.transpose %1 permutation = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %4 = ckpt.matmul %0, %3 {ckpt.recompute_at = [array<i64: 0>]} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %5 = ckpt.softmax %4 dim = 1 {ckpt.recompute_at = [array<i64: 1>]} : tensor<8x8xf32>
  %6 = ckpt.matmul %5, %2 {ckpt.recompute_at = [array<i64>]} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %7 = ckpt.tanh %6 {ckpt.recompute_at = [array<i64: 0>]} : tensor<8x16xf32>
  %8 = ckpt.reduce_mean %7 : tensor<8x16xf32> -> tensor<f32>
  %cst = arith.constant {ckpt.backward} dense<1.000000e+00> : tensor<f32>
  %9 = ckpt.reshape %cst {ckpt.backward} : tensor<f32> -> tensor<1x1xf32>
  %10 = ckpt.broadcast_to %9 {ckpt.backward} : tensor<1x1xf32> -> tensor<8x16xf32>
  %cst_0 = arith.constant {ckpt.backward} dense<1.280000e+02> : tensor<f32>
  %11 = ckpt.div %10, %cst_0 {ckpt.backward} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %12 = ckpt.tanh_grad %11, %7 {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<8x16xf32>
  %13 = ckpt.transpose %2 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %14 = ckpt.matmul %12, %13 {ckpt.backward} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %15 = ckpt.transpose %5 permutation = [1, 0] {ckpt.backward, ckpt.sites = array<i64: 1>} : tensor<8x8xf32> -> tensor<8x8xf32>
  %16 = ckpt.matmul %15, %12 {ckpt.backward} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %17 = ckpt.softmax_grad %14, %5 dim = 1 {ckpt.backward} : tensor<8x8xf32>
  %18 = ckpt.transpose %3 permutation = [1, 0] {ckpt.backward} : tensor<16x8xf32> -> tensor<8x16xf32>
  %19 = ckpt.matmul %17, %18 {ckpt.backward} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %20 = ckpt.transpose %0 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %21 = ckpt.matmul %20, %17 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %22 = ckpt.transpose %21 permutation = [1, 0] {ckpt.backward} : tensor<16x8xf32> -> tensor<8x16xf32>
  %23 = ckpt.transpose %16 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %24 = ckpt.matmul %23, %arg0 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %25 = ckpt.transpose %22 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %26 = ckpt.matmul %25, %arg0 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %27 = ckpt.transpose %19 permutation = [1, 0] {ckpt.backward} : tensor<8x16xf32> -> tensor<16x8xf32>
  %28 = ckpt.matmul %27, %arg0 {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  return %8, %28, %26, %24 : tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// One result of a multi-result op kept without the other: the backward
// reads the kept reciprocal RMS as it is, and the normalised output from a
// copy of the whole op.
// CHECK-LABEL: func.func @norm_train
// CHECK:         %{{.+}}, %[[RSTD:.+]] = ckpt.rms_norm %arg0
// CHECK:         %[[Y:.+]] = ckpt.recompute(%{{.+}} = %arg0, %{{.+}} = %arg1)
// CHECK-NEXT:      %[[Y2:.+]], %{{.+}} = ckpt.rms_norm
// CHECK-NEXT:      ckpt.yield %[[Y2]] : tensor<8x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.transpose
// CHECK-NEXT:    ckpt.matmul %{{.+}}, %[[Y]] {ckpt.backward}
// CHECK-NEXT:    ckpt.rms_norm_grad %{{.+}}, %arg0, %[[RSTD]]

// REPORT-LABEL: training step @norm_train
// REPORT:         ckpt.rms_norm {{.+}} %result {{.+}} recomputed at site 0
// REPORT-NEXT:    ckpt.rms_norm {{.+}} %rstd {{.+}} kept: the op-level plan keeps it

func.func @norm_train(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32> {ckpt.param}, %arg2: tensor<16x16xf32> {ckpt.param}) -> (tensor<f32>, tensor<16xf32>, tensor<16x16xf32>) attributes {ckpt.training_step} {
  %result, %rstd = ckpt.rms_norm %arg0 weight %arg1 normalized_shape = [16] eps = 1.000000e-05 {ckpt.recompute_at = [array<i64: 0>, unit]} : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>)
  %0 = ckpt.linear %result, %arg2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %1 = ckpt.tanh %0 : tensor<8x16xf32>
  %2 = ckpt.reduce_mean %1 : tensor<8x16xf32> -> tensor<f32>
  %cst = arith.constant {ckpt.backward} dense<1.000000e+00> : tensor<f32>
  %3 = ckpt.reshape %cst {ckpt.backward} : tensor<f32> -> tensor<1x1xf32>
  %4 = ckpt.broadcast_to %3 {ckpt.backward} : tensor<1x1xf32> -> tensor<8x16xf32>
  %cst_0 = arith.constant {ckpt.backward} dense<1.280000e+02> : tensor<f32>
  %5 = ckpt.div %4, %cst_0 {ckpt.backward} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %6 = ckpt.tanh_grad %5, %1 {ckpt.backward} : tensor<8x16xf32>
  %7 = ckpt.matmul %6, %arg2 {ckpt.backward} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %8 = ckpt.transpose %6 permutation = [1, 0] {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  %9 = ckpt.matmul %8, %result {ckpt.backward} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %input_grad, %weight_grad = ckpt.rms_norm_grad %7, %arg0, %rstd weight %arg1 normalized_shape = [16] {ckpt.backward} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x1xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>)
  return %2, %weight_grad, %9 : tensor<f32>, tensor<16xf32>, tensor<16x16xf32>
}
