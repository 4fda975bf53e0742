// f16 and bf16 compute in f32 and round once into their results, as
// PyTorch's kernels do. A product or a sum allocates its 16-bit result
// first, then accumulates into an f32 tensor of the result's shape (the
// op's declared scratch), which rounds into the result; a mean divides in
// f32 before it rounds. Pointwise formulas run on extended operands.
// RUN: ckpt-opt %s --ckpt-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @linear
//       CHECK:   %[[RESULT:.+]] = tensor.empty() : tensor<4x8xbf16>
//       CHECK:   %[[ACC:.+]] = tensor.empty() : tensor<4x8xf32>
//       CHECK:   %[[BIAS:.+]] = linalg.generic {{.+}} ins(%arg2 : tensor<8xbf16>) outs(%[[ACC]] : tensor<4x8xf32>)
//       CHECK:     arith.extf %{{.+}} : bf16 to f32
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.+}} ins(%arg0, %arg1 : tensor<4x16xbf16>, tensor<8x16xbf16>) outs(%[[BIAS]] : tensor<4x8xf32>)
//       CHECK:     %[[A:.+]] = arith.extf %{{.+}} : bf16 to f32
//       CHECK:     %[[B:.+]] = arith.extf %{{.+}} : bf16 to f32
//       CHECK:     %[[P:.+]] = arith.mulf %[[A]], %[[B]] fastmath<reassoc> : f32
//       CHECK:     arith.addf %{{.+}}, %[[P]] fastmath<reassoc> : f32
//       CHECK:   linalg.generic {{.+}} ins(%[[SUM]] : tensor<4x8xf32>) outs(%[[RESULT]] : tensor<4x8xbf16>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
func.func @linear(%x: tensor<4x16xbf16>, %w: tensor<8x16xbf16>, %b: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %y = ckpt.linear %x, %w, %b : (tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

// CHECK-LABEL: func.func @matmul
//       CHECK:   tensor.empty() : tensor<2x4x5xf16>
//       CHECK:   linalg.fill {{.+}} -> tensor<2x4x5xf32>
//       CHECK:   linalg.generic
//       CHECK:     arith.extf %{{.+}} : f16 to f32
//       CHECK:   linalg.generic
//       CHECK:     arith.truncf %{{.+}} : f32 to f16
func.func @matmul(%a: tensor<2x4x3xf16>, %b: tensor<3x5xf16>) -> tensor<2x4x5xf16> {
  %c = ckpt.matmul %a, %b : (tensor<2x4x3xf16>, tensor<3x5xf16>) -> tensor<2x4x5xf16>
  return %c : tensor<2x4x5xf16>
}

// -----

// CHECK-LABEL: func.func @gelu
//       CHECK:   linalg.generic
//       CHECK:     %[[X:.+]] = arith.extf %{{.+}} : f16 to f32
//       CHECK:     math.erf %{{.+}} : f32
//       CHECK:     %[[Y:.+]] = arith.mulf %[[X]], %{{.+}} : f32
//       CHECK:     %[[R:.+]] = arith.truncf %[[Y]] : f32 to f16
//       CHECK:     linalg.yield %[[R]] : f16
func.func @gelu(%x: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %y = ckpt.gelu %x : tensor<4x16xf16>
  return %y : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: func.func @mean
//       CHECK:   %[[RESULT:.+]] = tensor.empty() : tensor<4xbf16>
//       CHECK:   %[[ZEROS:.+]] = linalg.fill {{.+}} -> tensor<4xf32>
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.+}} ins(%arg0 : tensor<4x16xbf16>) outs(%[[ZEROS]] : tensor<4xf32>)
//       CHECK:     arith.extf %{{.+}} : bf16 to f32
//       CHECK:   linalg.generic {{.+}} ins(%[[SUM]] : tensor<4xf32>) outs(%[[RESULT]] : tensor<4xbf16>)
//       CHECK:     %[[MEAN:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
//       CHECK:     arith.truncf %[[MEAN]] : f32 to bf16
func.func @mean(%x: tensor<4x16xbf16>) -> tensor<4xbf16> {
  %y = ckpt.reduce_mean %x dims = [1] : tensor<4x16xbf16> -> tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

// A split sum (SumSplit.h) keeps its partials and its sums in f32 too.
// CHECK-LABEL: func.func @split_loss
//       CHECK:   %[[RESULT:.+]] = tensor.empty() : tensor<bf16>
//       CHECK:   linalg.fill {{.+}} -> tensor<f32>
//       CHECK:   linalg.fill {{.+}} -> tensor<2x512xf32>
//       CHECK:   linalg.generic {{.+}} outs(%{{.+}} : tensor<2x512xf32>)
//       CHECK:   linalg.generic {{.+}} ins(%{{.+}} : tensor<2x512xf32>) outs(%{{.+}} : tensor<f32>)
//       CHECK:   linalg.generic {{.+}} outs(%[[RESULT]] : tensor<bf16>)
//       CHECK:     arith.divf
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
func.func @split_loss(%x: tensor<512x512xbf16>, %t: tensor<512x512xbf16>) -> tensor<bf16> {
  %l = ckpt.mse_loss %x, %t : (tensor<512x512xbf16>, tensor<512x512xbf16>) -> tensor<bf16>
  return %l : tensor<bf16>
}

// -----

// Softmax keeps its row maximum and sum in f32, unrounded, and rounds each
// output once.
// CHECK-LABEL: func.func @softmax
//       CHECK:   %[[MAX:.+]] = linalg.generic {{.+}} ins(%arg0 : tensor<4x16xbf16>) outs(%{{.+}} : tensor<4x1xf32>)
//       CHECK:     %[[X:.+]] = arith.extf %{{.+}} : bf16 to f32
//       CHECK:     arith.maximumf %[[X]], %{{.+}} : f32
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.+}} ins(%arg0, %[[MAX]] : tensor<4x16xbf16>, tensor<4x1xf32>) outs(%{{.+}} : tensor<4x1xf32>)
//       CHECK:   linalg.generic {{.+}} ins(%arg0, %[[MAX]], %[[SUM]] : tensor<4x16xbf16>, tensor<4x1xf32>, tensor<4x1xf32>) outs(%{{.+}} : tensor<4x16xbf16>)
//       CHECK:     arith.divf
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
func.func @softmax(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %y = ckpt.softmax %x dim = 1 : tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}
