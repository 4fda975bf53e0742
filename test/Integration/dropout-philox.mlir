// The compiled dropout draws exactly the mask of the Philox4x32-10
// reference: an independent Python implementation of the generator
// recomputes input and mask and checks ckpt-run's result.
// RUN: ckpt-run %s --function drop --seed 5 > %t.out
// RUN: %python %S/Inputs/philox_dropout_oracle.py %t.out 5 1000 300 0.375 | FileCheck %s
// CHECK: dropout matches the reference stream
// CHECK: kept fraction plausible

func.func @drop(%x: tensor<10x100xf64>, %rng: !ckpt.rng) -> tensor<10x100xf64> {
  %y = ckpt.dropout %x rng %rng offset = 300 p = 0.375 : tensor<10x100xf64>
  return %y : tensor<10x100xf64>
}

// Counters past 2^32 use the high word: a base counter just below 2^32
// (its counters start at base + 300, 96 below 2^32) makes its 250 counters
// cross it.
// RUN: ckpt-run %s --function drop --seed 11 --rng-base 4294966900 > %t.high
// RUN: %python %S/Inputs/philox_dropout_oracle.py %t.high 11 1000 300 0.375 4294966900 | FileCheck %s --check-prefix=HIGH
// HIGH: dropout matches the reference stream
// HIGH: kept fraction plausible
