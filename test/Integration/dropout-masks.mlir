// The gradient's mask is exactly the forward's: dropout and dropout_grad of
// the same values with the same state and offset give identical results.
// p = 1 drops everything; p = 0 keeps everything.
// RUN: ckpt-run %s --function same_mask --seed 9 | FileCheck %s --check-prefix=SAME
// RUN: ckpt-run %s --function extremes --seed 9 | FileCheck %s --check-prefix=EXTREMES

// SAME: result 0: sum [[SUM:[^,]+]], l2 [[L2:.+]]
// SAME-NEXT: result 1: sum [[SUM]], l2 [[L2]]
func.func @same_mask(%x: tensor<64x33xf32>, %rng: !ckpt.rng) -> (tensor<64x33xf32>, tensor<64x33xf32>) {
  %y = ckpt.dropout %x rng %rng offset = 17 p = 0.3 : tensor<64x33xf32>
  %g = ckpt.dropout_grad %x rng %rng offset = 17 p = 0.3 : tensor<64x33xf32>
  return %y, %g : tensor<64x33xf32>, tensor<64x33xf32>
}

// EXTREMES: result 0: sum 0, l2 0
// EXTREMES-NEXT: result 1: sum [[SUM:[^,]+]], l2 [[L2:.+]]
// EXTREMES-NEXT: result 2: sum [[SUM]], l2 [[L2]]
func.func @extremes(%x: tensor<100xf32>, %rng: !ckpt.rng) -> (tensor<100xf32>, tensor<100xf32>, tensor<100xf32>) {
  %none = ckpt.dropout %x rng %rng offset = 0 p = 1.0 : tensor<100xf32>
  %all = ckpt.dropout %x rng %rng offset = 25 p = 0.0 : tensor<100xf32>
  %id = ckpt.reshape %x : tensor<100xf32> -> tensor<100xf32>
  return %none, %all, %id : tensor<100xf32>, tensor<100xf32>, tensor<100xf32>
}
