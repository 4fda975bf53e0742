// ckpt.cast rounds to the nearest f32, ties to even, and extends back
// exactly: the differences below are the rounding errors, exact in f64.
// 1 + 2^-24 lies halfway between 1 and the next f32 and goes to 1 (even);
// 1 + 3 * 2^-24 lies halfway between 1 + 2^-23 and 1 + 2^-22 and goes up
// to 1 + 2^-22 (even); 0.1 goes to 0.100000001490116119384765625.
// RUN: ckpt-run %s --function=rounding | FileCheck %s
// CHECK: result 0: sum -5.96046448e-08, l2 5.96046448e-08
// CHECK: result 1: sum 5.96046448e-08, l2 5.96046448e-08
// CHECK: result 2: sum 1.49011611e-09, l2 1.49011611e-09
func.func @rounding() -> (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) {
  %x = arith.constant dense<[1.000000059604644775390625, 1.000000178813934326171875, 0.1]> : tensor<3xf64>
  %narrow = ckpt.cast %x : tensor<3xf64> -> tensor<3xf32>
  %wide = ckpt.cast %narrow : tensor<3xf32> -> tensor<3xf64>
  %d = ckpt.sub %wide, %x : tensor<3xf64>
  %d0 = ckpt.slice %d dim = 0 start = 0 end = 1 : tensor<3xf64> -> tensor<1xf64>
  %d1 = ckpt.slice %d dim = 0 start = 1 end = 2 : tensor<3xf64> -> tensor<1xf64>
  %d2 = ckpt.slice %d dim = 0 start = 2 end = 3 : tensor<3xf64> -> tensor<1xf64>
  return %d0, %d1, %d2 : tensor<1xf64>, tensor<1xf64>, tensor<1xf64>
}
