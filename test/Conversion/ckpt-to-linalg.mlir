// ckpt-to-linalg: each op family becomes linalg.generic / tensor ops; no
// ckpt op is left; segments are inlined.
// RUN: ckpt-opt %s --ckpt-to-linalg -split-input-file | FileCheck %s

// Broadcasting reads the size-1 and missing dimensions at index 0 / not at all.
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pointwise
//       CHECK:   tensor.empty() : tensor<3x4xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[ROW]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
//  CHECK-SAME:     ins(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<3x1xf32>)
//       CHECK:     arith.subf
//   CHECK-NOT:   ckpt.
func.func @pointwise(%a: tensor<4xf32>, %b: tensor<3x1xf32>) -> tensor<3x4xf32> {
  %y = ckpt.sub %a, %b : (tensor<4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// matmul: one contraction over (batch, m, k, n), zero-initialised; the
// innermost loop walks rhs and result rows contiguously.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @matmul
//       CHECK:   %[[ZERO:.+]] = linalg.fill
//       CHECK:   linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
//  CHECK-SAME:     outs(%[[ZERO]] : tensor<2x3x5xf32>)
//       CHECK:     arith.mulf {{.*}} fastmath<reassoc>
//       CHECK:     arith.addf {{.*}} fastmath<reassoc>
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %y = ckpt.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Operands read transposed swap their row and column loops in their maps:
// no transposed copy.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @matmul_transposed
//   CHECK-NOT:   linalg.transpose
//       CHECK:   linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
//  CHECK-SAME:     ins(%{{.+}}, %{{.+}} : tensor<2x4x3xf32>, tensor<5x4xf32>)
func.func @matmul_transposed(%a: tensor<2x4x3xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %y = ckpt.matmul %a, %b transpose_lhs transpose_rhs : (tensor<2x4x3xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Reductions keep or drop the reduced dimensions in the output map.
// CHECK-LABEL: func.func @reduce
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK:   arith.maximumf
func.func @reduce(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %y = ckpt.reduce_max %x dims = [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// The norm takes the square root of its sum of squares in place; its
// gradient selects 0 where the norm is 0.
// CHECK-LABEL: func.func @norm
//       CHECK:   %[[SQ:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   linalg.generic {{.*}} outs(%[[SQ]] : tensor<3xf32>)
//       CHECK:     math.sqrt
//       CHECK:   linalg.generic
//       CHECK:     %[[Q:.+]] = arith.divf %{{.+}}, %[[NORM:[a-z_0-9]+]] : f32
//       CHECK:     %[[P:.+]] = arith.mulf %{{.+}}, %[[Q]] : f32
//       CHECK:     %[[ZERO:.+]] = arith.cmpf oeq, %[[NORM]], %{{.+}} : f32
//       CHECK:     arith.select %[[ZERO]], %{{.+}}, %[[P]] : f32
func.func @norm(%x: tensor<3x4xf32>, %dy: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4xf32>) {
  %n = ckpt.reduce_norm %x dims = [1] : tensor<3x4xf32> -> tensor<3xf32>
  %dx = ckpt.reduce_norm_grad %dy, %x, %n dims = [1] : (tensor<3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %n, %dx : tensor<3xf32>, tensor<3x4xf32>
}

// -----

// reshape goes through one dimension; a slice is copied out of a tensor
// slice into its own buffer (a view would keep all of its input alive).
// CHECK-LABEL: func.func @shape
//       CHECK:   %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1]] : tensor<2x6xf32> into tensor<12xf32>
//       CHECK:   %[[R:.+]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
//       CHECK:   %[[S:.+]] = tensor.extract_slice %[[R]][0, 1] [3, 2] [1, 2] : tensor<3x4xf32> to tensor<3x2xf32>
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<3x2xf32>
//       CHECK:   linalg.copy ins(%[[S]] : tensor<3x2xf32>) outs(%[[E]] : tensor<3x2xf32>)
func.func @shape(%x: tensor<2x6xf32>) -> tensor<3x2xf32> {
  %r = ckpt.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %s = ckpt.slice %r dim = 1 start = 1 end = 4 step = 2 : tensor<3x4xf32> -> tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

// -----

// A segment is inlined: its ops run where it stands.
// CHECK-LABEL: func.func @segment
//   CHECK-NOT:   ckpt.checkpoint
//       CHECK:   math.tanh
//       CHECK:   return
func.func @segment(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %t = ckpt.tanh %in : tensor<4xf32>
    ckpt.yield %t : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

// The random state becomes (seed, base counter); dropout runs the ten
// Philox rounds (two 32-bit multiplies each) per element and keeps the
// element when the uniform number is at least p.
// CHECK-LABEL: func.func @dropout
//  CHECK-SAME:   (%{{.+}}: tensor<8xf32> {bufferization.writable = false}, %[[STATE:.+]]: tensor<2xi64> {bufferization.writable = false})
//       CHECK:   %[[SEED:.+]] = tensor.extract %[[STATE]][%{{.+}}] : tensor<2xi64>
//       CHECK:   %[[BASE:.+]] = tensor.extract %[[STATE]][%{{.+}}] : tensor<2xi64>
//       CHECK:   linalg.generic
//       CHECK:     linalg.index 0
// CHECK-COUNT-20:  arith.mului_extended
//       CHECK:     arith.cmpf oge
//       CHECK:     arith.select
func.func @dropout(%x: tensor<8xf32>, %rng: !ckpt.rng) -> tensor<8xf32> {
  %y = ckpt.dropout %x rng %rng offset = 4 p = 0.25 : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// With p = 0 nothing is dropped: dropout and its gradient pass their input
// through and draw no mask.
// CHECK-LABEL: func.func @no_dropout
//  CHECK-SAME:   (%[[X:.+]]: tensor<8xf32> {bufferization.writable = false}, %{{.+}}: tensor<2xi64> {bufferization.writable = false})
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[X]], %[[X]] : tensor<8xf32>, tensor<8xf32>
func.func @no_dropout(%x: tensor<8xf32>, %rng: !ckpt.rng) -> (tensor<8xf32>, tensor<8xf32>) {
  %y = ckpt.dropout %x rng %rng offset = 0 p = 0.0 : tensor<8xf32>
  %dx = ckpt.dropout_grad %x rng %rng offset = 0 p = 0.0 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}

// -----

// A cast extends to a wider type, rounds to a narrower one, and goes
// between the two 16-bit types through f32. f64 rounds to a 16-bit type
// through f32, twice, as PyTorch converts it (1 + 2^-8 + 2^-30 becomes 1 in
// bf16, not 1 + 2^-7).
// CHECK-LABEL: func.func @casts
//       CHECK:   linalg.generic
//       CHECK:     arith.extf %{{.+}} : f32 to f64
//       CHECK:   linalg.generic
//       CHECK:     %[[F32:.+]] = arith.truncf %{{.+}} : f64 to f32
//       CHECK:     arith.truncf %[[F32]] : f32 to bf16
//       CHECK:   linalg.generic
//       CHECK:     %[[WIDE:.+]] = arith.extf %{{.+}} : bf16 to f32
//       CHECK:     arith.truncf %[[WIDE]] : f32 to f16
func.func @casts(%x: tensor<4xf32>) -> tensor<4xf16> {
  %w = ckpt.cast %x : tensor<4xf32> -> tensor<4xf64>
  %b = ckpt.cast %w : tensor<4xf64> -> tensor<4xbf16>
  %h = ckpt.cast %b : tensor<4xbf16> -> tensor<4xf16>
  return %h : tensor<4xf16>
}

// -----

// The embedding gradient: a parallel loop over the table's columns, each
// adding the 6 gradient rows into its column in index order; the padding
// row keeps its old value.
// CHECK-LABEL: func.func @embedding_grad
//       CHECK:   %[[ZEROS:.+]] = linalg.fill
//       CHECK:   scf.forall (%[[D:.+]]) in (4) shared_outs(%[[TABLE:.+]] = %[[ZEROS]]) -> (tensor<10x4xf32>)
//       CHECK:     %[[COLUMN:.+]] = tensor.extract_slice %[[TABLE]][0, %[[D]]] [10, 1] [1, 1] : tensor<10x4xf32> to tensor<10xf32>
//       CHECK:     %[[SUMS:.+]] = scf.for %[[I:.+]] = %{{.+}} to %c6 step %{{.+}} iter_args(%[[ACC:.+]] = %[[COLUMN]])
//       CHECK:       %[[INDEX:.+]] = tensor.extract %{{.+}}[%[[I]]] : tensor<6xi64>
//       CHECK:       %[[ROW:.+]] = arith.index_cast %[[INDEX]]
//       CHECK:       %[[OLD:.+]] = tensor.extract %[[ACC]][%[[ROW]]]
//       CHECK:       %[[ADD:.+]] = tensor.extract %{{.+}}[%[[I]], %[[D]]] : tensor<6x4xf32>
//       CHECK:       %[[SUM:.+]] = arith.addf %[[OLD]], %[[ADD]]
//       CHECK:       %[[PADDING:.+]] = arith.cmpi eq, %[[INDEX]], %{{.+}} : i64
//       CHECK:       %[[KEPT:.+]] = arith.select %[[PADDING]], %[[OLD]], %[[SUM]]
//       CHECK:       tensor.insert %[[KEPT]] into %[[ACC]][%[[ROW]]]
//       CHECK:     scf.forall.in_parallel
//       CHECK:       tensor.parallel_insert_slice %[[SUMS]] into %[[TABLE]][0, %[[D]]] [10, 1] [1, 1]
func.func @embedding_grad(%dy: tensor<2x3x4xf32>, %indices: tensor<2x3xi64>) -> tensor<10x4xf32> {
  %g = ckpt.embedding_grad %dy, %indices num_embeddings = 10 padding_idx = 1 : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return %g : tensor<10x4xf32>
}

// -----

// A sum over all of a large tensor: the result first, then 1024 partial
// sums ([2, 512]: the last dimension and 2 of the middle one's 512, each
// over 8 x 256 elements in order), then the partials in order into the
// result.
// CHECK-LABEL: func.func @whole_mean
//       CHECK:   %[[TOTAL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<f32>)
//       CHECK:   %[[VIEW:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2], [3]] output_shape [8, 256, 2, 512]
//       CHECK:   %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x512xf32>)
//       CHECK:   %[[PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction", "parallel", "parallel"]} ins(%[[VIEW]] : tensor<8x256x2x512xf32>) outs(%[[ZEROS]] : tensor<2x512xf32>)
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[PARTIALS]] : tensor<2x512xf32>) outs(%[[TOTAL]] : tensor<f32>)
//       CHECK:     arith.divf
func.func @whole_mean(%x: tensor<8x512x512xf32>) -> tensor<f32> {
  %m = ckpt.reduce_mean %x : tensor<8x512x512xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A bias gradient's columns: the result first (512, without the unit
// dimensions), then 64 partial sums per column (the rows cut as q * 64 + t,
// each over 8 x 8 rows in order), then each column's partials in order,
// viewed with the unit dimensions.
// CHECK-LABEL: func.func @column_sum
//       CHECK:   %[[TOTAL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<512xf32>)
//       CHECK:   %[[VIEW:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2], [3]] output_shape [8, 8, 64, 512]
//       CHECK:   %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<64x512xf32>)
//       CHECK:   %[[PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction", "parallel", "parallel"]} ins(%[[VIEW]] : tensor<8x8x64x512xf32>) outs(%[[ZEROS]] : tensor<64x512xf32>)
//       CHECK:   %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[PARTIALS]] : tensor<64x512xf32>) outs(%[[TOTAL]] : tensor<512xf32>)
//       CHECK:   tensor.expand_shape %[[SUM]] {{\[}}[0, 1, 2]] output_shape [1, 1, 512] : tensor<512xf32> into tensor<1x1x512xf32>
func.func @column_sum(%dy: tensor<8x512x512xf32>) -> tensor<1x1x512xf32> {
  %g = ckpt.reduce_sum %dy dims = [0, 1] keepdim : tensor<8x512x512xf32> -> tensor<1x1x512xf32>
  return %g : tensor<1x1x512xf32>
}

// -----

// A convolution's bias gradient: per channel, partials over 4 of the rows
// and every column ([64, 4, 32]), the channels kept in both stages.
// CHECK-LABEL: func.func @channel_sum
//       CHECK:   %[[TOTAL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<64xf32>)
//       CHECK:   %[[VIEW:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2, 3], [4]] output_shape [8, 64, 8, 4, 32]
//       CHECK:   %[[PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "parallel", "parallel"]} ins(%[[VIEW]] : tensor<8x64x8x4x32xf32>) outs(%{{.+}} : tensor<64x4x32xf32>)
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[PARTIALS]] : tensor<64x4x32xf32>) outs(%[[TOTAL]] : tensor<64xf32>)
//   CHECK-NOT:   tensor.expand_shape
func.func @channel_sum(%dy: tensor<8x64x32x32xf32>) -> tensor<64xf32> {
  %g = ckpt.reduce_sum %dy dims = [0, 2, 3] : tensor<8x64x32x32xf32> -> tensor<64xf32>
  return %g : tensor<64xf32>
}

// -----

// Long rows: softmax's maximum and sum of exponentials over [64, 2048] in
// two stages each (32 partials per row, the row cut as q * 32 + t), the
// maxima from -inf; a whole maximum from 1024 partials.
// CHECK-LABEL: func.func @long_rows
//       CHECK:   %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[ROW_MAX:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.+}} : tensor<64xf32>)
//       CHECK:   %[[VIEW:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [64, 64, 32]
//       CHECK:   %[[MAX_PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[VIEW]] : tensor<64x64x32xf32>) outs(%{{.+}} : tensor<64x32xf32>)
//       CHECK:     arith.maximumf
//       CHECK:   %[[MAX:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[MAX_PARTIALS]] : tensor<64x32xf32>) outs(%[[ROW_MAX]] : tensor<64xf32>)
//       CHECK:     arith.maximumf
//       CHECK:   %[[SUM_PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.+}}, %{{.+}} : tensor<64x64x32xf32>, tensor<64x1x1xf32>) outs(%{{.+}} : tensor<64x32xf32>)
//       CHECK:     math.exp
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[SUM_PARTIALS]] : tensor<64x32xf32>)
//       CHECK:     arith.addf
//       CHECK:   %[[WHOLE:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [64, 2, 1024]
//       CHECK:   %[[PARTIALS:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[WHOLE]] : tensor<64x2x1024xf32>) outs(%{{.+}} : tensor<1024xf32>)
//       CHECK:   linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[PARTIALS]] : tensor<1024xf32>) outs(%{{.+}} : tensor<f32>)
//       CHECK:     arith.maximumf
func.func @long_rows(%x: tensor<64x2048xf32>) -> (tensor<64x2048xf32>, tensor<f32>) {
  %p = ckpt.softmax %x dim = 1 : tensor<64x2048xf32>
  %m = ckpt.reduce_max %x : tensor<64x2048xf32> -> tensor<f32>
  return %p, %m : tensor<64x2048xf32>, tensor<f32>
}

// -----

// Below 65536 elements, or with results of fewer than 128 elements each
// (two partials of 64), one sequence per result.
// CHECK-LABEL: func.func @short_sums
//   CHECK-NOT:   tensor.expand_shape
//       CHECK:   linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%{{.+}} : tensor<200x300xf32>)
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<1024x100xf32>)
func.func @short_sums(%x: tensor<200x300xf32>, %y: tensor<1024x100xf32>) -> (tensor<f32>, tensor<1024xf32>) {
  %s = ckpt.reduce_sum %x : tensor<200x300xf32> -> tensor<f32>
  %r = ckpt.reduce_sum %y dims = [1] : tensor<1024x100xf32> -> tensor<1024xf32>
  return %s, %r : tensor<f32>, tensor<1024xf32>
}

// -----

// Cross-entropy reads each row's logit at its label as one element (a
// gather over the rows, not a scan of the classes): a label that is no
// class (the ignored -100) reads column 0 and gives 0.
// CHECK-LABEL: func.func @cross_entropy_label
//  CHECK-SAME:   (%[[LOGITS:.+]]: tensor<4x5xf32>
//       CHECK:   %[[LABELS:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[LABELS]] : tensor<4x1xi64>) outs(%{{.+}} : tensor<4x1xf32>)
//  CHECK-NEXT:   ^bb0(%[[LABEL:.+]]: i64, %{{.+}}: f32):
//   CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : i64
//   CHECK-DAG:     %[[CLASSES:.+]] = arith.constant 5 : i64
//   CHECK-DAG:     %[[BELOW:.+]] = arith.cmpi slt, %[[LABEL]], %[[CLASSES]] : i64
//   CHECK-DAG:     %[[ABOVE:.+]] = arith.cmpi sge, %[[LABEL]], %[[ZERO]] : i64
//       CHECK:     %[[IS_CLASS:.+]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
//       CHECK:     %[[COLUMN:.+]] = arith.select %[[IS_CLASS]], %[[LABEL]], %[[ZERO]] : i64
//       CHECK:     %[[INDEX:.+]] = arith.index_cast %[[COLUMN]] : i64 to index
//       CHECK:     %[[ROW:.+]] = linalg.index 0 : index
//       CHECK:     %[[LOGIT:.+]] = tensor.extract %[[LOGITS]][%[[ROW]], %[[INDEX]]] : tensor<4x5xf32>
//       CHECK:     arith.select %[[IS_CLASS]], %[[LOGIT]], %{{.+}} : f32
func.func @cross_entropy_label(%logits: tensor<4x5xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %loss = ckpt.cross_entropy %logits, %labels ignore_index = -100 : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A fused pointwise chain is one map over its result; its inputs keep
// their broadcasts, and each body value is rounded to its element type
// (here f16) as its own map would have stored it, so the bits are those
// of the ops one by one.
// CHECK-LABEL: func.func @fused_half
//       CHECK:   %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[ID:.+]], #[[ROW:.+]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.+}}, %{{.+}} : tensor<4x8xf16>, tensor<8xf16>) outs(%[[INIT]] : tensor<4x8xf32>)
//       CHECK:     ^bb0(%[[X:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f32):
//       CHECK:       %[[XW:.+]] = arith.extf %[[X]] : f16 to f32
//       CHECK:       %[[BW:.+]] = arith.extf %[[B]] : f16 to f32
//       CHECK:       %[[M:.+]] = arith.mulf %[[XW]], %[[BW]] : f32
//       CHECK:       %[[MH:.+]] = arith.truncf %[[M]] : f32 to f16
//       CHECK:       %[[MW:.+]] = arith.extf %[[MH]] : f16 to f32
//       CHECK:       %[[E:.+]] = math.exp %[[MW]] : f32
//       CHECK:       %[[EH:.+]] = arith.truncf %[[E]] : f32 to f16
//       CHECK:       %[[EW:.+]] = arith.extf %[[EH]] : f16 to f32
//       CHECK:       linalg.yield %[[EW]] : f32
//   CHECK-NOT:   linalg.generic
func.func @fused_half(%x: tensor<4x8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf32> {
  %f = ckpt.fused_pointwise(%xa = %x, %ba = %b) : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf32> {
    %h = ckpt.mul %xa, %ba : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
    %e = ckpt.exp %h : tensor<4x8xf16>
    %c = ckpt.cast %e : tensor<4x8xf16> -> tensor<4x8xf32>
    ckpt.yield %c : tensor<4x8xf32>
  }
  return %f : tensor<4x8xf32>
}
