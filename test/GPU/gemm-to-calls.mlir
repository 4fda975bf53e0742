// ckpt-gemm-to-calls replaces the matrix products ckpt.linear and
// ckpt.matmul lower to (C += A * B over one reduction dimension, on
// contiguous buffers) by calls of ckptGemmF32 with their GEMM shape: batch,
// M, N, K, the batch strides of A and B (0 broadcasts), and whether B is
// transposed. Other generics stay.
// RUN: ckpt-opt %s --ckpt-gemm-to-calls | FileCheck %s

#lin_in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#lin_w = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#lin_out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#mm_lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#mm_rhs = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#mm_out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#add = affine_map<(d0) -> (d0)>

// CHECK: func.func private @ckptGemmF32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64)

// A linear on [4, 8, 16] rows by a [32, 16] weight: M = 32 rows, B
// transposed.
// CHECK-LABEL: func.func @linear
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<4x8x16xf32> to memref<*xf32>
// CHECK: %[[W:.*]] = memref.cast %arg1 : memref<32x16xf32> to memref<*xf32>
// CHECK: %[[Y:.*]] = memref.cast %arg2 : memref<4x8x32xf32> to memref<*xf32>
// CHECK: call @ckptGemmF32(%[[X]], %[[W]], %[[Y]], %c1_i64, %c32_i64, %c32_i64{{.*}}, %c16_i64, %c0_i64, %c0_i64{{.*}}, %c1_i64{{.*}})
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

// A batched matmul whose right operand is shared by the 4 batches:
// batch 4, M 8, N 5, K 16, A's stride 128, B's 0.
// CHECK-LABEL: func.func @broadcast_matmul
// CHECK: call @ckptGemmF32(%{{.*}}, %{{.*}}, %{{.*}}, %c4_i64, %c8_i64, %c5_i64, %c16_i64, %c128_i64, %c0_i64, %c0_i64{{.*}})
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
