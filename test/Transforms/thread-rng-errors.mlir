// RUN: ckpt-opt %s --ckpt-thread-rng -split-input-file -verify-diagnostics

func.func @overlap(%rng: !ckpt.rng, %x: tensor<16xf32>) -> tensor<16xf32> {
  // 16 elements take counters [0, 4); the second op starts inside them.
  // expected-note @below {{the other op draws counters [0, 4)}}
  %a = ckpt.dropout %x rng %rng offset = 0 p = 0.1 : tensor<16xf32>
  // expected-error @below {{'ckpt.dropout' op draws counters [3, 7) that overlap another random op's}}
  %b = ckpt.dropout %a rng %rng offset = 3 p = 0.1 : tensor<16xf32>
  return %b : tensor<16xf32>
}
