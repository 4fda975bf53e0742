// Recomputing batch norms never updates their running statistics twice:
// the statistics are values, made by ckpt.batch_norm_update_stats, which
// backward never reads, so plans recompute the normalisation alone and the
// step returns the forward's statistics. For the plans none, manual (the
// segment below), uniform, sqrt and dp (with and without a budget), the
// loss, the four updated running statistics and every gradient are
// bit-identical (.npy bytes) to the none plan's, and each measured peak is
// the simulated one to the byte (with the update in the normalisation op,
// a recomputed batch norm made statistics nobody read: the lowering
// dropped them, and dp's peak was measured 160 B under the simulated one).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_src_root/scripts/compare-plans.sh %s %t strategy=none strategy=manual \
// RUN:   strategy=uniform strategy=sqrt strategy=dp "strategy=dp budget=210KB" | FileCheck %s
// RUN: ls %t/strategy_none | FileCheck %s --check-prefix=FILES
// The plans recompute the batch norms during backward.
// RUN: FileCheck %s --input-file=%t/strategy_manual.mlir --check-prefix=MANUAL
// RUN: FileCheck %s --input-file=%t/strategy_uniform.mlir --check-prefix=UNIFORM

// CHECK: strategy=none reference 233428 233428 +0.00%
// CHECK: strategy=manual yes 200596 200596 +0.00%
// CHECK: strategy=uniform yes 233364 233364 +0.00%
// CHECK: strategy=sqrt yes 200596 200596 +0.00%
// CHECK: strategy=dp yes 200596 200596 +0.00%
// CHECK: strategy=dp budget=210KB yes 200596 200596 +0.00%

// FILES: grad13.npy
// FILES: result0.npy
// FILES-NEXT: result1.npy
// FILES-NEXT: result2.npy
// FILES-NEXT: result3.npy
// FILES-NEXT: result4.npy

// MANUAL-LABEL: func.func @bn_cnn_train
// MANUAL:      ckpt.batch_norm
// MANUAL-NEXT: %[[RM1:[a-z_0-9]+]], %[[RV1:[a-z_0-9]+]] = ckpt.batch_norm_update_stats
// MANUAL:      ckpt.batch_norm
// MANUAL-NEXT: %[[RM2:[a-z_0-9]+]], %[[RV2:[a-z_0-9]+]] = ckpt.batch_norm_update_stats
// MANUAL:      ckpt.recompute
// MANUAL-NEXT:   ckpt.conv2d
// MANUAL-NEXT:   ckpt.batch_norm
// MANUAL-NEXT:   ckpt.yield
// MANUAL:      return %{{[0-9]+}}, %[[RM1]], %[[RV1]], %[[RM2]], %[[RV2]], %

// UNIFORM-LABEL: func.func @bn_cnn_train
// UNIFORM:      ckpt.recompute
// UNIFORM-NEXT:   ckpt.batch_norm
// UNIFORM-NEXT:   ckpt.yield
// UNIFORM:      ckpt.recompute
// UNIFORM-NEXT:   ckpt.batch_norm
// UNIFORM-NEXT:   ckpt.yield
func.func @bn_cnn(%image: tensor<4x3x16x16xf32>, %labels: tensor<4xi64>,
                  %w1: tensor<8x3x3x3xf32> {ckpt.param}, %g1: tensor<8xf32> {ckpt.param},
                  %b1: tensor<8xf32> {ckpt.param}, %rm1: tensor<8xf32>, %rv1: tensor<8xf32>,
                  %w2: tensor<8x8x3x3xf32> {ckpt.param}, %g2: tensor<8xf32> {ckpt.param},
                  %b2: tensor<8xf32> {ckpt.param}, %rm2: tensor<8xf32>, %rv2: tensor<8xf32>,
                  %wc: tensor<10x128xf32> {ckpt.param}, %bc: tensor<10xf32> {ckpt.param})
    -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %s1:3 = ckpt.checkpoint(%x = %image, %w = %w1, %g = %g1, %b = %b1, %m = %rm1, %v = %rv1)
      : (tensor<4x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      -> (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>) {
    %c = ckpt.conv2d %x, %w padding = [1, 1]
        : (tensor<4x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x16x16xf32>
    %n:3 = ckpt.batch_norm %c weight %g bias %b
        : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>)
    %n_stats:2 = ckpt.batch_norm_update_stats %c, %n#1 running_mean %m running_var %v
        : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    %a = ckpt.relu %n#0 : tensor<4x8x16x16xf32>
    ckpt.yield %a, %n_stats#0, %n_stats#1 : tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>
  }
  %c2 = ckpt.conv2d %s1#0, %w2 padding = [1, 1]
      : (tensor<4x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x16x16xf32>
  %n2:3 = ckpt.batch_norm %c2 weight %g2 bias %b2
      : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>)
  %n2_stats:2 = ckpt.batch_norm_update_stats %c2, %n2#1 running_mean %rm2 running_var %rv2 momentum = 0.25
      : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %a2 = ckpt.relu %n2#0 : tensor<4x8x16x16xf32>
  %p = ckpt.avg_pool2d %a2 kernel = [4, 4] : tensor<4x8x16x16xf32> -> tensor<4x8x4x4xf32>
  %f = ckpt.reshape %p : tensor<4x8x4x4xf32> -> tensor<4x128xf32>
  %logits = ckpt.linear %f, %wc, %bc : (tensor<4x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %loss = ckpt.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss, %s1#1, %s1#2, %n2_stats#0, %n2_stats#1 : tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
