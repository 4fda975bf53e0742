// ckpt-to-linalg of the vision ops: convolutions are matrix products, on
// the images (pointwise) or, in a loop over the images, on each image's
// columns; the other windowed ops are gathers over the written elements
// and the kernel offsets, reading images with tensor.extract at clamped
// positions (no padded copies); groups are reshaped views.
// Convolutions' columns are copies of strided windows of the image. batch_norm sums
// f32 channels in f64, long ones in two stages.
// RUN: ckpt-opt %s --ckpt-to-linalg -split-input-file | FileCheck %s

// A pointwise convolution (1x1 kernel, stride 1, no padding, one group) is
// a product per image over views: [OC, C] x [N, C, H*W] into the broadcast
// bias, no gather (ckpt-gemm-to-calls makes it a BLAS call); its input
// gradient the transposed weight's; its weight gradient one product per
// image in a loop, on slices of both operands, each accumulating into the
// last.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[LHST:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[PROD:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[DW:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @pointwise_conv
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x3x5xf32> {{.*}}, %[[WT:.+]]: tensor<6x4x1x1xf32> {{.*}}, %[[B:.+]]: tensor<6xf32>
//       CHECK:   %[[WM:.+]] = tensor.collapse_shape %[[WT]] {{\[}}[0], [1, 2, 3]] : tensor<6x4x1x1xf32> into tensor<6x4xf32>
//  CHECK-NEXT:   %[[XM:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<2x4x3x5xf32> into tensor<2x4x15xf32>
//       CHECK:   %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[PROD]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
//  CHECK-SAME:     ins(%[[WM]], %[[XM]] : tensor<6x4xf32>, tensor<2x4x15xf32>) outs(%{{.+}} : tensor<2x6x15xf32>)
//   CHECK-NOT:     tensor.extract
//       CHECK:   tensor.expand_shape %[[SUM]] {{\[}}[0], [1], [2, 3]] output_shape [2, 6, 3, 5]
// CHECK-LABEL: func.func @pointwise_conv_input_grad
//       CHECK:   linalg.generic {indexing_maps = [#[[LHST]], #[[RHS]], #[[PROD]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
//  CHECK-SAME:     outs(%{{.+}} : tensor<2x4x15xf32>)
// CHECK-LABEL: func.func @pointwise_conv_weight_grad
//       CHECK:   %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<1x6x4xf32>
//       CHECK:   %[[LOOP:.+]] = scf.for %[[N:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (tensor<1x6x4xf32>)
//       CHECK:     %[[XN:.+]] = tensor.extract_slice %{{.+}}[%[[N]], 0, 0, 0] [1, 1, 4, 15] [1, 1, 1, 1] : tensor<2x1x4x15xf32> to tensor<1x4x15xf32>
//       CHECK:     %[[GN:.+]] = tensor.extract_slice %{{.+}}[%[[N]], 0, 0, 0] [1, 1, 6, 15] [1, 1, 1, 1] : tensor<2x1x6x15xf32> to tensor<1x6x15xf32>
//       CHECK:     %[[S:.+]] = linalg.generic {indexing_maps = [#[[PROD]], #[[RHS]], #[[DW]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
//  CHECK-SAME:       ins(%[[GN]], %[[XN]] : tensor<1x6x15xf32>, tensor<1x4x15xf32>) outs(%[[ACC]] : tensor<1x6x4xf32>)
//       CHECK:     scf.yield %[[S]]
//       CHECK:   %[[M:.+]] = tensor.collapse_shape %[[LOOP]] {{\[}}[0, 1], [2]] : tensor<1x6x4xf32> into tensor<6x4xf32>
//       CHECK:   tensor.expand_shape %[[M]] {{\[}}[0], [1, 2, 3]] output_shape [6, 4, 1, 1]
//   CHECK-NOT:   tensor.extract %
//   CHECK-NOT:   tensor.empty() : tensor<{{.*}}x15xf32>
func.func @pointwise_conv(%x: tensor<2x4x3x5xf32>, %w: tensor<6x4x1x1xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x5xf32> {
  %y = ckpt.conv2d %x, %w bias %b : (tensor<2x4x3x5xf32>, tensor<6x4x1x1xf32>, tensor<6xf32>) -> tensor<2x6x3x5xf32>
  return %y : tensor<2x6x3x5xf32>
}
func.func @pointwise_conv_input_grad(%dy: tensor<2x6x3x5xf32>, %w: tensor<6x4x1x1xf32>) -> tensor<2x4x3x5xf32> {
  %dx = ckpt.conv2d_input_grad %dy, %w : (tensor<2x6x3x5xf32>, tensor<6x4x1x1xf32>) -> tensor<2x4x3x5xf32>
  return %dx : tensor<2x4x3x5xf32>
}
func.func @pointwise_conv_weight_grad(%dy: tensor<2x6x3x5xf32>, %x: tensor<2x4x3x5xf32>) -> tensor<6x4x1x1xf32> {
  %dw = ckpt.conv2d_weight_grad %dy, %x : (tensor<2x6x3x5xf32>, tensor<2x4x3x5xf32>) -> tensor<6x4x1x1xf32>
  return %dw : tensor<6x4x1x1xf32>
}

// -----

// Other convolutions: a loop over the images carries the result and the
// columns of one product [G, C/G * KH * KW, images * OH * OW] (every
// kernel offset of every channel of the group at each output position of
// its images, zero in the padding), which each product's columns
// overwrite: zeros, then per kernel offset a copy of the rectangle of
// output positions that read inside the images from a strided window of
// them (at offset (0, 0), stride and dilation 2 and padding 1, outputs
// 1..3 read rows and columns 1, 3, 5). Here 16 positions per image: one
// product takes both images, whose outputs (or their gradients) are
// gathered into a block [G, OC/G, 2 * 16] carried as well. The grouped
// kernel [G, OC/G, 18] times the columns into the block, scattered back
// into the result (forward); the kernel transposed times the gathered
// output gradient into the columns, whose rectangles are added back onto
// the same windows, kernel offset by kernel offset (input gradient); the
// gathered output gradient times the columns transposed, accumulating
// over the products (weight gradient).
// CHECK-DAG: #[[KERNEL:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[COLUMNS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[KERNELT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[COLUMNST:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[WINDOW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5, d6)>
// CHECK-DAG: #[[SAME:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
// CHECK-DAG: #[[TERMS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, 0, 0, d0, d3, d4)>
// CHECK-DAG: #[[SAME5:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[GATHER:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d1, d3)>
// CHECK-DAG: #[[SCATTER:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d0, d3)>
// CHECK-DAG: #[[SAME4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_columns
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x9x9xf32> {{.*}}, %[[WT:.+]]: tensor<6x2x3x3xf32> {{.*}}, %[[B:.+]]: tensor<6xf32>
//       CHECK:   %[[BV:.+]] = tensor.expand_shape %[[B]] {{\[}}[0, 1, 2, 3]] output_shape [2, 3, 1, 1]
//       CHECK:   %[[INIT:.+]] = linalg.generic {{.*}} ins(%[[BV]] : tensor<2x3x1x1xf32>)
//       CHECK:   %[[KM:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2]] output_shape [2, 3, 18] : tensor<6x18xf32> into tensor<2x3x18xf32>
//       CHECK:   %[[SUMS:.+]] = tensor.collapse_shape %[[INIT]] {{\[}}[0], [1], [2], [3, 4]] : tensor<2x2x3x4x4xf32> into tensor<2x2x3x16xf32>
//       CHECK:   %[[EMPTY:.+]] = tensor.empty() : tensor<2x18x32xf32>
//       CHECK:   %[[BLOCK:.+]] = tensor.empty() : tensor<2x3x32xf32>
//       CHECK:   %[[LOOP:.+]]:3 = scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[SUMS]], %[[COLS:.+]] = %[[EMPTY]], %[[BL:.+]] = %[[BLOCK]])
//       CHECK:     %[[V:.+]] = tensor.expand_shape %[[COLS]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] output_shape [2, 2, 3, 3, 2, 4, 4]
//       CHECK:     %[[Z:.+]] = linalg.fill {{.*}} outs(%[[V]] : tensor<2x2x3x3x2x4x4xf32>)
//       CHECK:     %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 9, 9]
//       CHECK:     %[[XN:.+]] = tensor.extract_slice %[[XG]][%[[N]], 0, 0, 0, 0] [2, 2, 2, 9, 9]
// Kernel row 0 reads image rows 1, 3 and 5 (stride 2, padding 1); its
// offsets slice the row's columns and those image rows.
//       CHECK:     %[[XR:.+]] = tensor.extract_slice %[[XN]][0, 0, 0, 1, 0] [2, 2, 2, 3, 9] [1, 1, 1, 2, 1]
//       CHECK:     %[[ZR:.+]] = tensor.extract_slice %[[Z]][0, 0, 0, 0, 0, 0, 0] [2, 2, 1, 3, 2, 4, 4] [1, 1, 1, 1, 1, 1, 1]
//       CHECK:     %[[R0:.+]] = tensor.extract_slice %[[XR]][0, 0, 0, 0, 1] [2, 2, 2, 3, 3] [1, 1, 1, 1, 2]
//       CHECK:     %[[T0:.+]] = tensor.extract_slice %[[ZR]][0, 0, 0, 0, 0, 1, 1] [2, 2, 1, 1, 2, 3, 3] [1, 1, 1, 1, 1, 1, 1]
//       CHECK:     %[[W0:.+]] = linalg.generic {indexing_maps = [#[[WINDOW]], #[[SAME]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
//  CHECK-SAME:       ins(%[[R0]] : tensor<2x2x2x3x3xf32>) outs(%[[T0]] : tensor<2x2x1x1x2x3x3xf32>)
//       CHECK:     tensor.insert_slice %[[W0]] into %[[ZR]][0, 0, 0, 0, 0, 1, 1]
//  CHECK-COUNT-2:  tensor.insert_slice {{.*}} into tensor<2x2x1x3x2x4x4xf32>
//       CHECK:     %[[Z0:.+]] = tensor.insert_slice %{{.+}} into %[[Z]][0, 0, 0, 0, 0, 0, 0] [2, 2, 1, 3, 2, 4, 4]
//       CHECK:     tensor.extract_slice %[[Z0]][0, 0, 1, 0, 0, 0, 0] [2, 2, 1, 3, 2, 4, 4]
//  CHECK-COUNT-4:  tensor.insert_slice
//   CHECK-NOT:     tensor.extract %
//       CHECK:     %[[C2:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 2, 0, 0, 0] [2, 2, 1, 1, 2, 3, 3]
//       CHECK:     %[[C:.+]] = tensor.insert_slice %[[C2]] into %{{.+}}[0, 0, 2, 0, 0, 0, 0] [2, 2, 1, 3, 2, 4, 4]
//       CHECK:     %[[M:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<2x2x3x3x2x4x4xf32> into tensor<2x18x32xf32>
//       CHECK:     %[[BV4:.+]] = tensor.expand_shape %[[BL]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 16]
//       CHECK:     %[[YN:.+]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0, 0] [2, 2, 3, 16] [1, 1, 1, 1] : tensor<2x2x3x16xf32> to tensor<2x2x3x16xf32>
//       CHECK:     %[[GOT:.+]] = linalg.generic {indexing_maps = [#[[GATHER]], #[[SAME4]]], {{.*}} ins(%[[YN]] : tensor<2x2x3x16xf32>) outs(%[[BV4]] : tensor<2x3x2x16xf32>)
//       CHECK:     %[[Y:.+]] = tensor.collapse_shape %[[GOT]] {{\[}}[0], [1], [2, 3]] : tensor<2x3x2x16xf32> into tensor<2x3x32xf32>
//       CHECK:     %[[P:.+]] = linalg.generic {indexing_maps = [#[[KERNEL]], #[[COLUMNS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
//  CHECK-SAME:       ins(%[[KM]], %[[M]] : tensor<2x3x18xf32>, tensor<2x18x32xf32>) outs(%[[Y]] : tensor<2x3x32xf32>)
//       CHECK:     %[[PV:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 16]
//       CHECK:     %[[BACK:.+]] = linalg.generic {indexing_maps = [#[[SCATTER]], #[[SAME4]]], {{.*}} ins(%[[PV]] : tensor<2x3x2x16xf32>) outs(%{{.+}} : tensor<2x2x3x16xf32>)
//       CHECK:     %[[NEXT:.+]] = tensor.insert_slice %[[BACK]] into %[[ACC]][%[[N]], 0, 0, 0] [2, 2, 3, 16]
//       CHECK:     scf.yield %[[NEXT]], %[[M]], %[[P]]
//       CHECK:   tensor.expand_shape %[[LOOP]]#0
//   CHECK-NOT:   tensor.pad
// CHECK-LABEL: func.func @conv_columns_input_grad
//       CHECK:   %[[ZEROS:.+]] = linalg.fill {{.*}} -> tensor<2x2x2x9x9xf32>
//       CHECK:   %[[EMPTY:.+]] = tensor.empty() : tensor<2x18x32xf32>
//       CHECK:   %[[BLOCK:.+]] = tensor.empty() : tensor<2x3x32xf32>
//       CHECK:   scf.for %[[N:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %[[ZEROS]], %[[COLS:.+]] = %[[EMPTY]], %[[BL:.+]] = %[[BLOCK]])
//       CHECK:     %[[Z:.+]] = linalg.fill {{.*}} outs(%[[COLS]] : tensor<2x18x32xf32>)
//       CHECK:     %[[GOT:.+]] = linalg.generic {indexing_maps = [#[[GATHER]], #[[SAME4]]]
//       CHECK:     %[[DY:.+]] = tensor.collapse_shape %[[GOT]]
//       CHECK:     %[[D:.+]] = linalg.generic {indexing_maps = [#[[KERNELT]], #[[COLUMNS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
//  CHECK-SAME:       ins(%{{.+}}, %[[DY]] : tensor<2x3x18xf32>, tensor<2x3x32xf32>) outs(%[[Z]] : tensor<2x18x32xf32>)
//       CHECK:     %[[XN:.+]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0, 0, 0] [2, 2, 2, 9, 9]
//       CHECK:     %[[DV:.+]] = tensor.expand_shape %[[D]] {{\[}}[0], [1, 2, 3], [4, 5, 6]]
//       CHECK:     %[[DR:.+]] = tensor.extract_slice %[[DV]][0, 0, 0, 0, 0, 0, 0] [2, 2, 1, 3, 2, 4, 4] [1, 1, 1, 1, 1, 1, 1]
//       CHECK:     %[[XR:.+]] = tensor.extract_slice %[[XN]][0, 0, 0, 1, 0] [2, 2, 2, 3, 9] [1, 1, 1, 2, 1]
//       CHECK:     %[[T0:.+]] = tensor.extract_slice %[[DR]][0, 0, 0, 0, 0, 1, 1] [2, 2, 1, 1, 2, 3, 3] [1, 1, 1, 1, 1, 1, 1]
//       CHECK:     %[[S0:.+]] = tensor.extract_slice %[[XR]][0, 0, 0, 0, 1] [2, 2, 2, 3, 3] [1, 1, 1, 1, 2]
//       CHECK:     %[[A0:.+]] = linalg.generic {indexing_maps = [#[[TERMS]], #[[SAME5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
//  CHECK-SAME:       ins(%[[T0]] : tensor<2x2x1x1x2x3x3xf32>) outs(%[[S0]] : tensor<2x2x2x3x3xf32>)
//       CHECK:       arith.addf
//       CHECK:     tensor.insert_slice %[[A0]] into %[[XR]][0, 0, 0, 0, 1] [2, 2, 2, 3, 3] [1, 1, 1, 1, 2]
//  CHECK-COUNT-2:  tensor.insert_slice {{.*}} [1, 1, 1, 1, 2]
//       CHECK:     tensor.insert_slice %{{.+}} into %[[XN]][0, 0, 0, 1, 0] [2, 2, 2, 3, 9] [1, 1, 1, 2, 1]
//  CHECK-COUNT-4:  tensor.insert_slice {{.*}} [1, 1, 1, 1, 2]
//   CHECK-NOT:     arith.remsi
//       CHECK:     %[[G2:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0, 3] [2, 2, 2, 3, 3] [1, 1, 1, 1, 2]
//       CHECK:     %[[G:.+]] = tensor.insert_slice %[[G2]] into %{{.+}}[0, 0, 0, 3, 0] [2, 2, 2, 3, 9] [1, 1, 1, 2, 1]
//       CHECK:     %[[NEXT:.+]] = tensor.insert_slice %[[G]] into %[[ACC]][%[[N]], 0, 0, 0, 0]
//       CHECK:     scf.yield %[[NEXT]], %[[D]], %[[DY]]
// CHECK-LABEL: func.func @conv_columns_weight_grad
//       CHECK:   %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<2x3x18xf32>
//       CHECK:   %[[EMPTY:.+]] = tensor.empty() : tensor<2x18x32xf32>
//       CHECK:   %[[BLOCK:.+]] = tensor.empty() : tensor<2x3x32xf32>
//       CHECK:   %[[LOOP:.+]]:3 = scf.for %[[N:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]], %[[COLS:.+]] = %[[EMPTY]], %[[BL:.+]] = %[[BLOCK]])
//       CHECK:     %[[M:.+]] = tensor.collapse_shape {{.*}} into tensor<2x18x32xf32>
//       CHECK:     %[[GOT:.+]] = linalg.generic {indexing_maps = [#[[GATHER]], #[[SAME4]]]
//       CHECK:     %[[DY:.+]] = tensor.collapse_shape %[[GOT]]
//       CHECK:     %[[S:.+]] = linalg.generic {indexing_maps = [#[[KERNEL]], #[[COLUMNST]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
//  CHECK-SAME:       ins(%[[DY]], %[[M]] : tensor<2x3x32xf32>, tensor<2x18x32xf32>) outs(%[[ACC]] : tensor<2x3x18xf32>)
//       CHECK:     scf.yield %[[S]], %[[M]], %[[DY]]
//       CHECK:   tensor.collapse_shape %[[LOOP]]#0 {{\[}}[0, 1], [2]] : tensor<2x3x18xf32> into tensor<6x18xf32>
func.func @conv_columns(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x4x4xf32> {
  %y = ckpt.conv2d %x, %w bias %b stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2
      : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  return %y : tensor<2x6x4x4xf32>
}
func.func @conv_columns_input_grad(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32> {
  %dx = ckpt.conv2d_input_grad %dy, %w stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2
      : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  return %dx : tensor<2x4x9x9xf32>
}
func.func @conv_columns_weight_grad(%dy: tensor<2x6x4x4xf32>, %x: tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32> {
  %dw = ckpt.conv2d_weight_grad %dy, %x stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2
      : (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

// -----

// With 144 output positions per image a product takes one image: two
// values carried, a step of 1, one image's columns, and each product
// accumulating into its image's slice of the result.
// CHECK-LABEL: func.func @conv_columns_per_image
//       CHECK:   %[[EMPTY:.+]] = tensor.empty() : tensor<1x18x144xf32>
//   CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
//       CHECK:   %[[LOOP:.+]]:2 = scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %[[C1]] iter_args(%[[ACC:.+]] = %{{.+}}, %[[COLS:.+]] = %[[EMPTY]])
//       CHECK:     %[[Y:.+]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0, 0] [1, 1, 4, 144] [1, 1, 1, 1] : tensor<2x1x4x144xf32> to tensor<1x4x144xf32>
//       CHECK:     %[[P:.+]] = linalg.generic {{.*}} outs(%[[Y]] : tensor<1x4x144xf32>)
//       CHECK:     %[[NEXT:.+]] = tensor.insert_slice %[[P]] into %[[ACC]][%[[N]], 0, 0, 0]
//       CHECK:     scf.yield %[[NEXT]], %{{.+}} : tensor<2x1x4x144xf32>, tensor<1x18x144xf32>
func.func @conv_columns_per_image(%x: tensor<2x2x12x12xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<2x4x12x12xf32> {
  %y = ckpt.conv2d %x, %w padding = [1, 1]
      : (tensor<2x2x12x12xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x12x12xf32>
  return %y : tensor<2x4x12x12xf32>
}

// -----

// max_pool2d: values from -inf and positions from -1 (none yet), over the
// kernel loops, whose bounds come from an unread [KH, KW] tensor.
// CHECK-DAG: #[[WINDOW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @max_pool
//   CHECK-DAG:   %[[NEG:.+]] = arith.constant 0xFF800000 : f32
//   CHECK-DAG:   %[[NONE:.+]] = arith.constant -1 : i64
//       CHECK:   %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[WINDOW]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[WIN]] : tensor<3x3xf32>) outs(%{{.+}}, %{{.+}} : tensor<2x4x5x5xf32>, tensor<2x4x5x5xi64>)
//       CHECK:     arith.cmpi eq, %{{.+}}, %[[NONE]] : i64
//       CHECK:     arith.cmpf uno
//       CHECK:     arith.cmpf ogt
//       CHECK:     linalg.yield %{{.+}}, %{{.+}} : f32, i64
func.func @max_pool(%x: tensor<2x4x9x9xf32>) -> (tensor<2x4x5x5xf32>, tensor<2x4x5x5xi64>) {
  %y:2 = ckpt.max_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<2x4x9x9xf32>) -> (tensor<2x4x5x5xf32>, tensor<2x4x5x5xi64>)
  return %y#0, %y#1 : tensor<2x4x5x5xf32>, tensor<2x4x5x5xi64>
}

// -----

// max_pool2d_grad: zeros, then window offset by window offset from the
// last ((2, 2) first, (0, 0) last: output positions ascend as PyTorch
// accumulates), the output positions whose window holds an input position
// there (a rectangle) add their gradient where their index names it, onto
// a strided window of the input: each input element gets its terms in a
// fixed order, with no division or clamp. At offset (2, 2), outputs 0..3
// of each axis hold inputs 1, 3, 5, 7; at (1, 1) all 5 hold 0, 2, ... 8;
// at (0, 0), outputs 1..4 hold 1, 3, 5, 7.
// CHECK-LABEL: func.func @max_pool_grad
//       CHECK:   %[[ZERO:.+]] = linalg.fill
//       CHECK:   %[[DY:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0] [2, 4, 4, 4] [1, 1, 1, 1] : tensor<2x4x5x5xf32>
//       CHECK:   %[[I:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0] [2, 4, 4, 4] [1, 1, 1, 1] : tensor<2x4x5x5xi64>
//       CHECK:   %[[T:.+]] = tensor.extract_slice %[[ZERO]][0, 0, 1, 1] [2, 4, 4, 4] [1, 1, 2, 2]
//       CHECK:   %[[A:.+]] = linalg.generic {{.*}} ins(%[[DY]], %[[I]] : tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>) outs(%[[T]] : tensor<2x4x4x4xf32>)
//       CHECK:     arith.cmpi eq
//       CHECK:     arith.addf
//       CHECK:     arith.select
//       CHECK:   tensor.insert_slice %[[A]] into %[[ZERO]][0, 0, 1, 1] [2, 4, 4, 4] [1, 1, 2, 2]
//  CHECK-COUNT-7:  tensor.insert_slice {{.*}} [1, 1, 2, 2]
//       CHECK:   %[[LAST:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 1] [2, 4, 4, 4] [1, 1, 2, 2]
//   CHECK-NOT:   arith.divsi
//       CHECK:   return %[[LAST]]
func.func @max_pool_grad(%dy: tensor<2x4x5x5xf32>, %i: tensor<2x4x5x5xi64>) -> tensor<2x4x9x9xf32> {
  %dx = ckpt.max_pool2d_grad %dy, %i kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<2x4x5x5xf32>, tensor<2x4x5x5xi64>) -> tensor<2x4x9x9xf32>
  return %dx : tensor<2x4x9x9xf32>
}
// -----

// Nearest upsampling copies into [N, C, H, sh, W, sw] blocks, a view of
// the result; its gradient sums the blocks.
// CHECK-DAG: #[[SMALL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func.func @upsample
//       CHECK:   %[[COPY:.+]] = linalg.generic {indexing_maps = [#[[SMALL]], {{.+}}]
//  CHECK-SAME:     outs(%{{.+}} : tensor<2x4x3x2x3x3xf32>)
//       CHECK:   tensor.collapse_shape %[[COPY]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<2x4x3x2x3x3xf32> into tensor<2x4x6x9xf32>
//       CHECK:   %[[BLOCKS:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [2, 4, 3, 2, 3, 3]
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]
//  CHECK-SAME:     ins(%[[BLOCKS]] : tensor<2x4x3x2x3x3xf32>)
func.func @upsample(%x: tensor<2x4x3x3xf32>, %dy: tensor<2x4x6x9xf32>) -> (tensor<2x4x6x9xf32>, tensor<2x4x3x3xf32>) {
  %y = ckpt.upsample_nearest2d %x scale = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4x6x9xf32>
  %dx = ckpt.upsample_nearest2d_grad %dy scale = [2, 3] : tensor<2x4x6x9xf32> -> tensor<2x4x3x3xf32>
  return %y, %dx : tensor<2x4x6x9xf32>, tensor<2x4x3x3xf32>
}

// -----

// batch_norm on f32 sums each channel in f64, as PyTorch's CPU kernel does:
// every element (or centred square) is extended to f64 and added in the
// loop order, and each statistic is computed from the sums in f64 and
// rounded to f32 once. The running statistics sum the centred squares
// again, from the rounded mean, as batch_norm does: the same bits.
// CHECK-LABEL: func.func @batch_norm_f32
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]
//  CHECK-SAME:     outs(%{{.+}} : tensor<1x3x1x1xf64>)
//       CHECK:     ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f64):
//       CHECK:       %[[WIDE:.+]] = arith.extf %[[IN]] : f32 to f64
//       CHECK:       arith.addf %[[ACC]], %[[WIDE]] : f64
//       CHECK:   %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x3x1x1xf64>) outs(%{{.+}} : tensor<1x3x1x1xf32>)
//       CHECK:     arith.divf %{{.+}}, %{{.+}} : f64
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   %[[SQUARES:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[MEAN]] : tensor<4x3x2x2xf32>, tensor<1x3x1x1xf32>) outs(%{{.+}} : tensor<1x3x1x1xf64>)
//       CHECK:     arith.subf %{{.+}}, %{{.+}} : f32
//       CHECK:     arith.mulf %{{.+}}, %{{.+}} : f32
//       CHECK:     arith.extf %{{.+}} : f32 to f64
//       CHECK:     arith.addf %{{.+}}, %{{.+}} : f64
//       CHECK:   %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[SQUARES]] : tensor<1x3x1x1xf64>) outs(%{{.+}} : tensor<1x3x1x1xf32>)
//       CHECK:     math.sqrt %{{.+}} : f64
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   %[[MEAN1:.+]] = tensor.collapse_shape %[[MEAN]]
//       CHECK:   %[[KEPT:.+]] = tensor.expand_shape %[[MEAN1]]
//       CHECK:   %[[SQUARES2:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[KEPT]] : tensor<4x3x2x2xf32>, tensor<1x3x1x1xf32>) outs(%{{.+}} : tensor<1x3x1x1xf64>)
//       CHECK:     arith.subf %{{.+}}, %{{.+}} : f32
//       CHECK:     arith.mulf %{{.+}}, %{{.+}} : f32
//       CHECK:     arith.extf %{{.+}} : f32 to f64
//       CHECK:     arith.addf %{{.+}}, %{{.+}} : f64
//       CHECK:   linalg.generic {{.*}} ins(%{{.+}}, %[[MEAN1]] : tensor<3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%{{.+}}, %[[SQUARES2]] : tensor<1x3x1x1xf32>, tensor<1x3x1x1xf64>) outs(%{{.+}} : tensor<1x3x1x1xf32>)
//       CHECK:     arith.constant 1.500000e+01 : f64
//       CHECK:     arith.divf %{{.+}}, %{{.+}} : f64
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
// Its gradient's two sums too, both before either is rounded to f32 for
// the rest (the two f64 sums are live at once, as its scratch is counted).
//       CHECK:   %[[SUMDY:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x3x1x1xf64>)
//       CHECK:     arith.extf %{{.+}} : f32 to f64
//       CHECK:   %[[DOTP:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x3x1x1xf64>)
//       CHECK:     arith.extf %{{.+}} : f32 to f64
//       CHECK:   %[[SUMDY32:.+]] = linalg.generic {{.*}} ins(%[[SUMDY]] : tensor<1x3x1x1xf64>) outs(%{{.+}} : tensor<1x3x1x1xf32>)
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   %[[DOTP32:.+]] = linalg.generic {{.*}} ins(%[[DOTP]] : tensor<1x3x1x1xf64>) outs(%{{.+}} : tensor<1x3x1x1xf32>)
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   linalg.generic {{.*}} ins({{.*}}%[[SUMDY32]], %[[DOTP32]] : {{.*}}) outs(%{{.+}} : tensor<4x3x2x2xf32>)
func.func @batch_norm_f32(%x: tensor<4x3x2x2xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>, %dy: tensor<4x3x2x2xf32>)
    -> (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2x2xf32>) {
  %y:3 = ckpt.batch_norm %x : (tensor<4x3x2x2xf32>) -> (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  %r:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv
      : (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %g:3 = ckpt.batch_norm_grad %dy, %x, %y#1, %y#2
      : (tensor<4x3x2x2xf32>, tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y#0, %r#0, %r#1, %g#0 : tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2x2xf32>
}

// -----

// f64 sums stay in f64: nothing is extended or rounded.
// CHECK-LABEL: func.func @batch_norm_f64
//   CHECK-NOT:   arith.extf
//   CHECK-NOT:   arith.truncf
//       CHECK:   return
func.func @batch_norm_f64(%x: tensor<4x3x2x2xf64>, %rm: tensor<3xf64>, %rv: tensor<3xf64>, %dy: tensor<4x3x2x2xf64>)
    -> (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<4x3x2x2xf64>) {
  %y:3 = ckpt.batch_norm %x : (tensor<4x3x2x2xf64>) -> (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>)
  %r:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv
      : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %g:3 = ckpt.batch_norm_grad %dy, %x, %y#1, %y#2
      : (tensor<4x3x2x2xf64>, tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>)
      -> (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>)
  return %y#0, %r#0, %r#1, %g#0 : tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<4x3x2x2xf64>
}

// -----

// A batch norm over 4096 elements per channel (65536 in all) sums each
// channel in two stages, in f64: 64 partials per channel ([16, 2, 32]: two
// halves of the rows and every column), each in order, then each channel's
// partials in order into the zeroed sums, viewed per channel.
// CHECK-LABEL: func.func @batch_norm_split
//       CHECK:   %[[SUMS:.+]] = linalg.fill ins(%{{.+}} : f64) outs(%{{.+}} : tensor<1x16x1x1xf64>)
//       CHECK:   %[[SQUARES:.+]] = linalg.fill ins(%{{.+}} : f64) outs(%{{.+}} : tensor<1x16x1x1xf64>)
//       CHECK:   %[[PER_CHANNEL:.+]] = tensor.collapse_shape %[[SUMS]] {{\[}}[0, 1, 2, 3]] : tensor<1x16x1x1xf64> into tensor<16xf64>
//       CHECK:   %[[VIEW:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2, 3], [4]] output_shape [4, 16, 16, 2, 32]
//       CHECK:   %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f64) outs(%{{.+}} : tensor<16x2x32xf64>)
//       CHECK:   %[[PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "parallel", "parallel"]} ins(%[[VIEW]] : tensor<4x16x16x2x32xf32>) outs(%[[ZEROS]] : tensor<16x2x32xf64>)
//       CHECK:     arith.extf
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[PARTIALS]] : tensor<16x2x32xf64>) outs(%[[PER_CHANNEL]] : tensor<16xf64>)
//       CHECK:   tensor.expand_shape %[[SUM]] {{\[}}[0, 1, 2, 3]] output_shape [1, 16, 1, 1]
//       CHECK:   tensor.collapse_shape %[[SQUARES]]
//       CHECK:   linalg.fill ins(%{{.+}} : f64) outs(%{{.+}} : tensor<16x2x32xf64>)
func.func @batch_norm_split(%x: tensor<4x16x32x32xf32>)
    -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) {
  %y:3 = ckpt.batch_norm %x : (tensor<4x16x32x32xf32>) -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
  return %y#0, %y#1, %y#2 : tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>
}
