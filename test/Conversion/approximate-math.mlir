// RUN: ckpt-opt %s --ckpt-approximate-math | FileCheck %s
// f32 tanh, erf and exp become inline polynomial arithmetic (no math op,
// so no libm call, is left); f64 keeps the math ops, which become libm
// calls.

// CHECK-LABEL: func.func @single
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: return
func.func @single(%x: f32) -> (f32, f32, f32) {
  %t = math.tanh %x : f32
  %e = math.erf %x : f32
  %x2 = math.exp %x : f32
  return %t, %e, %x2 : f32, f32, f32
}

// CHECK-LABEL: func.func @double
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: math.exp
func.func @double(%x: f64) -> (f64, f64, f64) {
  %t = math.tanh %x : f64
  %e = math.erf %x : f64
  %x2 = math.exp %x : f64
  return %t, %e, %x2 : f64, f64, f64
}
