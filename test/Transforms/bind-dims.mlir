// ckpt-bind-dims gives named argument dimensions their sizes and re-infers
// every type, through segments, reshapes and broadcasts.
// RUN: ckpt-opt %s --ckpt-bind-dims="bind=B=8,L=16" | FileCheck %s

// CHECK-LABEL: func.func @bind
//  CHECK-SAME:   (%{{.+}}: tensor<8x16x4xf32> {ckpt.dim_names = ["B", "L", ""]}, %{{.+}}: tensor<6x4xf32> {ckpt.param}) -> (tensor<f32>, tensor<2x128x6xf32>)
//       CHECK:   ckpt.linear {{.*}} -> tensor<8x16x6xf32>
//       CHECK:   ckpt.checkpoint({{.*}}) : (tensor<8x16x6xf32>) -> tensor<8x16x6xf32> {
//       CHECK:     ckpt.gelu %{{.+}} : tensor<8x16x6xf32>
//       CHECK:     ckpt.yield %{{.+}} : tensor<8x16x6xf32>
//       CHECK:   ckpt.reshape %{{.+}} : tensor<8x16x6xf32> -> tensor<128x6xf32>
//       CHECK:   ckpt.broadcast_to %{{.+}} : tensor<128x6xf32> -> tensor<2x128x6xf32>
//       CHECK:   ckpt.reduce_mean %{{.+}} : tensor<128x6xf32> -> tensor<f32>
func.func @bind(%x: tensor<?x?x4xf32> {ckpt.dim_names = ["B", "L", ""]}, %w: tensor<6x4xf32> {ckpt.param})
    -> (tensor<f32>, tensor<2x?x6xf32>) {
  %h = ckpt.linear %x, %w : (tensor<?x?x4xf32>, tensor<6x4xf32>) -> tensor<?x?x6xf32>
  %g = ckpt.checkpoint(%in = %h) : (tensor<?x?x6xf32>) -> tensor<?x?x6xf32> {
    %a = ckpt.gelu %in : tensor<?x?x6xf32>
    ckpt.yield %a : tensor<?x?x6xf32>
  }
  %r = ckpt.reshape %g : tensor<?x?x6xf32> -> tensor<?x6xf32>
  %b = ckpt.broadcast_to %r : tensor<?x6xf32> -> tensor<2x?x6xf32>
  %l = ckpt.reduce_mean %r : tensor<?x6xf32> -> tensor<f32>
  return %l, %b : tensor<f32>, tensor<2x?x6xf32>
}
