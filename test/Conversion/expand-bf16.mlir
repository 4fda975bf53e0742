// ckpt-expand-bf16 turns bf16 conversions into integer arithmetic: an
// extension is a shift of the bits into the upper half of an i32, a
// truncation rounds to the nearest, ties to even, and makes every NaN the
// quiet NaN 0x7fc0, as PyTorch does.
// Other conversions stay.
// RUN: ckpt-opt %s --ckpt-expand-bf16 | FileCheck %s

// CHECK-LABEL: func.func @widen
//       CHECK:   %[[BITS:.+]] = arith.bitcast %{{.+}} : bf16 to i16
//       CHECK:   %[[WIDE:.+]] = arith.extui %[[BITS]] : i16 to i32
//       CHECK:   %[[SHIFTED:.+]] = arith.shli %[[WIDE]], %{{.+}} : i32
//       CHECK:   arith.bitcast %[[SHIFTED]] : i32 to f32
//   CHECK-NOT:   arith.extf
func.func @widen(%x: bf16) -> f32 {
  %y = arith.extf %x : bf16 to f32
  return %y : f32
}

// CHECK-LABEL: func.func @round
//       CHECK:   %[[NAN:.+]] = arith.cmpf une, %arg0, %arg0 : f32
//       CHECK:   arith.bitcast %arg0 : f32 to i32
//       CHECK:   %[[ROUNDED:.+]] = arith.trunci %{{.+}} : i32 to i16
//       CHECK:   %[[BITS:.+]] = arith.select %[[NAN]], %c32704_i16, %[[ROUNDED]] : i16
//       CHECK:   arith.bitcast %[[BITS]] : i16 to bf16
//   CHECK-NOT:   arith.truncf
func.func @round(%x: f32) -> bf16 {
  %y = arith.truncf %x : f32 to bf16
  return %y : bf16
}

// CHECK-LABEL: func.func @half
//       CHECK:   arith.truncf %{{.+}} : f32 to f16
//       CHECK:   arith.extf %{{.+}} : f16 to f32
func.func @half(%x: f32) -> f32 {
  %h = arith.truncf %x : f32 to f16
  %y = arith.extf %h : f16 to f32
  return %y : f32
}
