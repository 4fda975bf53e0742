// ckpt-thread-rng: implicit dropouts get the function's random state and the
// next free counters (ceil(elements / 4) each), through nested segments.
// RUN: ckpt-opt %s --ckpt-thread-rng -split-input-file | FileCheck %s
// Running it twice changes nothing the second time.
// RUN: ckpt-opt %s --ckpt-thread-rng -split-input-file | ckpt-opt --ckpt-thread-rng -split-input-file > %t.twice
// RUN: ckpt-opt %s --ckpt-thread-rng -split-input-file | ckpt-opt -split-input-file | diff - %t.twice

// CHECK-LABEL: func.func @nested
//  CHECK-SAME:   (%[[X:.+]]: tensor<10xf32> {ckpt.param}, %[[RNG:.+]]: !ckpt.rng) -> tensor<f32> attributes {ckpt.rng_counters = 9 : i64}
//       CHECK:   ckpt.dropout %[[X]] rng %[[RNG]] offset = 0 p = 5.000000e-01
//       CHECK:   ckpt.checkpoint(%[[IN:.+]] = %{{.+}}, %[[R1:.+]] = %[[RNG]]) : (tensor<10xf32>, !ckpt.rng) -> tensor<10xf32> {
//       CHECK:     ckpt.dropout %[[IN]] rng %[[R1]] offset = 3 p = 2.500000e-01
//       CHECK:     ckpt.checkpoint(%[[IN2:.+]] = %{{.+}}, %[[R2:.+]] = %[[R1]]) : (tensor<10xf32>, !ckpt.rng) -> tensor<10xf32> {
//       CHECK:       ckpt.dropout %[[IN2]] rng %[[R2]] offset = 6 p = 2.500000e-01
func.func @nested(%x: tensor<10xf32> {ckpt.param}) -> tensor<f32> {
  %a = ckpt.dropout %x p = 0.5 : tensor<10xf32>
  %s = ckpt.checkpoint(%in = %a) : (tensor<10xf32>) -> tensor<10xf32> {
    %b = ckpt.dropout %in p = 0.25 : tensor<10xf32>
    %c = ckpt.checkpoint(%i2 = %b) : (tensor<10xf32>) -> tensor<10xf32> {
      %d = ckpt.dropout %i2 p = 0.25 : tensor<10xf32>
      ckpt.yield %d : tensor<10xf32>
    }
    ckpt.yield %c : tensor<10xf32>
  }
  %l = ckpt.reduce_sum %s : tensor<10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Explicit ops keep their ranges; new ranges start after the last one, and
// an existing !ckpt.rng argument is reused.
// CHECK-LABEL: func.func @mixed
//  CHECK-SAME:   (%[[RNG:.+]]: !ckpt.rng, %[[X:.+]]: tensor<16xf32>) -> tensor<16xf32> attributes {ckpt.rng_counters = 12 : i64}
//       CHECK:   %[[A:.+]] = ckpt.dropout %[[X]] rng %[[RNG]] offset = 8 p = 1.000000e-01
//       CHECK:   %[[B:.+]] = ckpt.dropout %[[A]] rng %[[RNG]] offset = 4 p = 1.000000e-01
//       CHECK:   ckpt.dropout %[[B]] rng %[[RNG]] offset = 0 p = 1.000000e-01
func.func @mixed(%rng: !ckpt.rng, %x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ckpt.dropout %x p = 0.1 : tensor<16xf32>
  %b = ckpt.dropout %a rng %rng offset = 4 p = 0.1 : tensor<16xf32>
  %c = ckpt.dropout %b rng %rng offset = 0 p = 0.1 : tensor<16xf32>
  return %c : tensor<16xf32>
}

// -----

// Functions without random ops are left alone.
// CHECK-LABEL: func.func @deterministic
//  CHECK-SAME:   (%{{.+}}: tensor<4xf32>) -> tensor<4xf32> {
func.func @deterministic(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
