// Static loss scaling: loss-scale=S seeds backward with S (in the loss's
// type) and multiplies each parameter's gradient by 1/S (in the
// gradient's type) as a backward op; with the default, neither happens.
// RUN: ckpt-opt %s --ckpt-autodiff="loss-scale=1024 keep-forward=false" | FileCheck %s
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false | FileCheck %s --check-prefix=UNSCALED
// The pipeline passes its loss-scale to ckpt-autodiff.
// RUN: ckpt-opt %s --ckpt-pipeline="strategy=none loss-scale=1024" | FileCheck %s --check-prefix=PIPELINE

// CHECK-LABEL: func.func @mixed_train(
// CHECK-SAME:    %[[W:.+]]: tensor<4x8xf32> {ckpt.param}, %[[B:.+]]: tensor<4xf32> {ckpt.param}
// CHECK:         %[[SEED:.+]] = arith.constant {ckpt.backward} dense<1.024000e+03> : tensor<f32>
// CHECK:         %[[INV:.+]] = arith.constant {ckpt.backward} dense<9.765625E-4> : tensor<f32>
// CHECK-NEXT:    %[[GW:.+]] = ckpt.mul %{{.+}}, %[[INV]] {ckpt.backward} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK:         %[[INV2:.+]] = arith.constant {ckpt.backward} dense<9.765625E-4> : tensor<f32>
// CHECK-NEXT:    %[[GB:.+]] = ckpt.mul %{{.+}}, %[[INV2]] {ckpt.backward} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    return %{{.+}}, %[[GW]], %[[GB]] :

// UNSCALED:     arith.constant {ckpt.backward} dense<1.000000e+00> : tensor<f32>
// UNSCALED-NOT: 9.765625E-4

// PIPELINE: dense<1.024000e+03> : tensor<f32>
// PIPELINE: dense<9.765625E-4> : tensor<f32>

func.func @mixed(%w: tensor<4x8xf32> {ckpt.param}, %b: tensor<4xf32> {ckpt.param},
                 %x: tensor<2x8xf32>) -> tensor<f32> {
  %w16 = ckpt.cast %w : tensor<4x8xf32> -> tensor<4x8xf16>
  %b16 = ckpt.cast %b : tensor<4xf32> -> tensor<4xf16>
  %x16 = ckpt.cast %x : tensor<2x8xf32> -> tensor<2x8xf16>
  %y16 = ckpt.linear %x16, %w16, %b16 : (tensor<2x8xf16>, tensor<4x8xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  %y = ckpt.cast %y16 : tensor<2x4xf16> -> tensor<2x4xf32>
  %l = ckpt.reduce_mean %y : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
