// ckpt-gemm-to-calls replaces the matrix products ckpt.linear, ckpt.matmul
// and attention lower to (C += A * B on buffers, or views, dense in
// row-major order) by calls of
// ckptGemmF32 with their GEMM shape: batch, M, N, K, the batch strides of A
// and B (0 broadcasts), and whether A and B are transposed; 16-bit A and B
// extended into f32 C call ckptGemmBF16 or ckptGemmF16. Loops that
// are adjacent in every operand merge into one M, N or K. Other generics
// stay.
// RUN: ckpt-opt %s --ckpt-gemm-to-calls | FileCheck %s

#lin_in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#lin_w = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#lin_out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#mm_lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#mm_rhs = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#mm_out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#add = affine_map<(d0) -> (d0)>

// CHECK-DAG: func.func private @ckptGemmF32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @ckptGemmBF16(memref<*xbf16>, memref<*xbf16>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @ckptGemmF16(memref<*xf16>, memref<*xf16>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64, i64)

// A linear on [4, 8, 16] rows by a [32, 16] weight: M = 32 rows, B
// transposed.
// CHECK-LABEL: func.func @linear
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<4x8x16xf32> to memref<*xf32>
// CHECK: %[[W:.*]] = memref.cast %arg1 : memref<32x16xf32> to memref<*xf32>
// CHECK: %[[Y:.*]] = memref.cast %arg2 : memref<4x8x32xf32> to memref<*xf32>
// CHECK: call @ckptGemmF32(%[[X]], %[[W]], %[[Y]], %c1_i64, %c32_i64, %c32_i64{{.*}}, %c16_i64, %c0_i64, %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: linalg.generic
func.func @linear(%x: memref<4x8x16xf32>, %w: memref<32x16xf32>, %y: memref<4x8x32xf32>) {
  linalg.generic {indexing_maps = [#lin_in, #lin_w, #lin_out],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<4x8x16xf32>, memref<32x16xf32>) outs(%y : memref<4x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b fastmath<reassoc> : f32
    %s = arith.addf %c, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// A batched matmul whose right operand is shared by the 4 batches: one
// product of 4 * 8 rows, N 5, K 16.
// CHECK-LABEL: func.func @broadcast_matmul
// CHECK: call @ckptGemmF32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c32_i64, %c5_i64, %c16_i64, %c0_i64, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// A pointwise generic is not a GEMM.
// CHECK: linalg.generic
func.func @broadcast_matmul(%a: memref<4x8x16xf32>, %b: memref<16x5xf32>, %c: memref<4x8x5xf32>, %v: memref<5xf32>) {
  linalg.generic {indexing_maps = [#mm_lhs, #mm_rhs, #mm_out],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<4x8x16xf32>, memref<16x5xf32>) outs(%c : memref<4x8x5xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#add, #add],
                  iterator_types = ["parallel"]}
      ins(%v : memref<5xf32>) outs(%v : memref<5xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// The left operand shared by the 4 batches (a constant index on its unit
// dimension): batch 4, A's stride 0, B's 16 * 5.
// CHECK-LABEL: func.func @broadcast_lhs
// CHECK: call @ckptGemmF32(%{{.*}}, %{{.*}}, %{{.*}}, %c4_i64, %c8_i64, %c5_i64, %c16_i64, %c0_i64, %c80_i64, %c0_i64{{.*}}, %c0_i64{{.*}})
func.func @broadcast_lhs(%a: memref<1x8x16xf32>, %b: memref<4x16x5xf32>, %c: memref<4x8x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<1x8x16xf32>, memref<4x16x5xf32>) outs(%c : memref<4x8x5xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A^T B per batch (attention's dV = P^T dO): A is [batch, K, M].
// CHECK-LABEL: func.func @transposed_lhs
// CHECK: call @ckptGemmF32(%{{.*}}, %{{.*}}, %{{.*}}, %c3_i64, %c6_i64, %c5_i64, %c7_i64, %c42_i64, %c35_i64, %c1_i64{{.*}}, %c0_i64{{.*}})
func.func @transposed_lhs(%a: memref<3x7x6xf32>, %b: memref<3x7x5xf32>, %c: memref<3x6x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<3x7x6xf32>, memref<3x7x5xf32>) outs(%c : memref<3x6x5xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Grouped-query scores: loops n, hk, g, i, j, e; the 2 query heads of a
// key head and their 5 rows are one M of 10, the key read once for both:
// batch 2 * 3, M 10, N 6, K 4, B transposed.
// CHECK-LABEL: func.func @grouped_scores
// CHECK: call @ckptGemmF32(%{{.*}}, %{{.*}}, %{{.*}}, %c6_i64, %c10_i64, %c6_i64{{.*}}, %c4_i64, %c40_i64, %c24_i64, %c0_i64{{.*}}, %c1_i64{{.*}})
func.func @grouped_scores(%q: memref<2x3x2x5x4xf32>, %k: memref<2x3x6x4xf32>, %s: memref<2x3x2x5x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x2x5x4xf32>, memref<2x3x6x4xf32>) outs(%s : memref<2x3x2x5x6xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %a = arith.addf %z, %p : f32
    linalg.yield %a : f32
  }
  return
}

// A product written transposed (C is [N, M]) is no row-major GEMM: loops.
// CHECK-LABEL: func.func @transposed_out
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @transposed_out(%a: memref<6x7xf32>, %b: memref<7x5xf32>, %c: memref<5x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<6x7xf32>, memref<7x5xf32>) outs(%c : memref<5x6xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Views qualify when their elements are dense in row-major order (one
// image of a batch, at an offset the call reads from the descriptor); a
// view with a gap between rows stays loops.
#img_g = affine_map<(d0, d1, d2) -> (d0, d2)>
#img_x = affine_map<(d0, d1, d2) -> (d1, d2)>
#img_w = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @image_views
// CHECK: call @ckptGemmF32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c6_i64, %c4_i64, %c15_i64, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK: linalg.generic
func.func @image_views(%g: memref<2x6x15xf32>, %x: memref<2x4x15xf32>, %w: memref<6x4xf32>, %y: memref<4x4xf32>) {
  %g1 = memref.subview %g[1, 0, 0] [1, 6, 15] [1, 1, 1] : memref<2x6x15xf32> to memref<6x15xf32, strided<[15, 1], offset: 90>>
  %x1 = memref.subview %x[1, 0, 0] [1, 4, 15] [1, 1, 1] : memref<2x4x15xf32> to memref<4x15xf32, strided<[15, 1], offset: 60>>
  linalg.generic {indexing_maps = [#img_g, #img_x, #img_w],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g1, %x1 : memref<6x15xf32, strided<[15, 1], offset: 90>>, memref<4x15xf32, strided<[15, 1], offset: 60>>)
      outs(%w : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }
  %gc = memref.subview %g[0, 0, 0] [2, 6, 4] [1, 1, 1] : memref<2x6x15xf32> to memref<2x6x4xf32, strided<[90, 15, 1]>>
  %g0 = memref.subview %gc[0, 0, 0] [1, 6, 4] [1, 1, 1] : memref<2x6x4xf32, strided<[90, 15, 1]>> to memref<6x4xf32, strided<[15, 1]>>
  linalg.generic {indexing_maps = [#img_g, #img_x, #img_w],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g0, %y : memref<6x4xf32, strided<[15, 1]>>, memref<4x4xf32>)
      outs(%w : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 16-bit operands summed into f32 (buildProduct's contraction): the GEMM
// of their type with f32 C.
// CHECK-LABEL: func.func @linear_bf16
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<4x8x16xbf16> to memref<*xbf16>
// CHECK: %[[Y:.*]] = memref.cast %arg2 : memref<4x8x32xf32> to memref<*xf32>
// CHECK: call @ckptGemmBF16(%[[X]], %{{.*}}, %[[Y]], %c1_i64, %c32_i64, %c32_i64{{.*}}, %c16_i64, %c0_i64, %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: linalg.generic
func.func @linear_bf16(%x: memref<4x8x16xbf16>, %w: memref<32x16xbf16>, %y: memref<4x8x32xf32>) {
  linalg.generic {indexing_maps = [#lin_in, #lin_w, #lin_out],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<4x8x16xbf16>, memref<32x16xbf16>) outs(%y : memref<4x8x32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %p = arith.mulf %ea, %eb fastmath<reassoc> : f32
    %s = arith.addf %c, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @matmul_f16
// CHECK: call @ckptGemmF16(
// CHECK-NOT: linalg.generic
func.func @matmul_f16(%a: memref<4x8x16xf16>, %b: memref<16x5xf16>, %c: memref<4x8x5xf32>) {
  linalg.generic {indexing_maps = [#mm_lhs, #mm_rhs, #mm_out],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<4x8x16xf16>, memref<16x5xf16>) outs(%c : memref<4x8x5xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %ex = arith.extf %x : f16 to f32
    %ey = arith.extf %y : f16 to f32
    %p = arith.mulf %ex, %ey fastmath<reassoc> : f32
    %s = arith.addf %z, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// Sums in bf16 itself, or of mixed 16-bit types, have no GEMM: they stay
// loops.
// CHECK-LABEL: func.func @no_gemm_for_16_bit_sums
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @no_gemm_for_16_bit_sums(%x: memref<4x8x16xbf16>, %w: memref<32x16xbf16>, %h: memref<32x16xf16>,
                                   %y: memref<4x8x32xbf16>, %z: memref<4x8x32xf32>) {
  linalg.generic {indexing_maps = [#lin_in, #lin_w, #lin_out],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<4x8x16xbf16>, memref<32x16xbf16>) outs(%y : memref<4x8x32xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %p = arith.mulf %a, %b : bf16
    %s = arith.addf %c, %p : bf16
    linalg.yield %s : bf16
  }
  linalg.generic {indexing_maps = [#lin_in, #lin_w, #lin_out],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %h : memref<4x8x16xbf16>, memref<32x16xf16>) outs(%z : memref<4x8x32xf32>) {
  ^bb0(%a: bf16, %b: f16, %c: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : f16 to f32
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }
  return
}
