// Every ckpt op round-trips through its custom syntax and the generic form.
// RUN: ckpt-opt %s | ckpt-opt | FileCheck %s
// RUN: ckpt-opt %s --mlir-print-op-generic | ckpt-opt | FileCheck %s

// CHECK-LABEL: func.func @dense
//  CHECK-SAME:   (%[[X:.+]]: tensor<8x16xf32>, %[[W:.+]]: tensor<32x16xf32> {ckpt.param}, %[[B:.+]]: tensor<32xf32> {ckpt.param}, %[[Q:.+]]: tensor<2x1x4x16xf32>, %[[K:.+]]: tensor<3x16x5xf32>)
func.func @dense(%x: tensor<8x16xf32>, %w: tensor<32x16xf32> {ckpt.param},
                 %b: tensor<32xf32> {ckpt.param}, %q: tensor<2x1x4x16xf32>,
                 %k: tensor<3x16x5xf32>) {
  // CHECK: ckpt.linear %[[X]], %[[W]], %[[B]] : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %0 = ckpt.linear %x, %w, %b : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  // CHECK: ckpt.linear %[[X]], %[[W]] : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %1 = ckpt.linear %x, %w : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  // CHECK: ckpt.matmul %[[Q]], %[[K]] : (tensor<2x1x4x16xf32>, tensor<3x16x5xf32>) -> tensor<2x3x4x5xf32>
  %2 = ckpt.matmul %q, %k : (tensor<2x1x4x16xf32>, tensor<3x16x5xf32>) -> tensor<2x3x4x5xf32>
  return
}

// CHECK-LABEL: func.func @elementwise
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<8xf32>, %[[M:.+]]: tensor<4x1xi1>, %[[S:.+]]: tensor<f32>, %[[H:.+]]: tensor<4x8xbf16>)
func.func @elementwise(%a: tensor<4x8xf32>, %v: tensor<8xf32>, %m: tensor<4x1xi1>,
                       %s: tensor<f32>, %h: tensor<4x8xbf16>) {
  // CHECK: ckpt.add %[[A]], %[[A]] : tensor<4x8xf32>
  %0 = ckpt.add %a, %a : tensor<4x8xf32>
  // CHECK: ckpt.sub %[[A]], %[[V]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = ckpt.sub %a, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: ckpt.mul %[[S]], %[[A]] : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = ckpt.mul %s, %a : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: ckpt.div %[[H]], %[[H]] : tensor<4x8xbf16>
  %3 = ckpt.div %h, %h : tensor<4x8xbf16>
  // CHECK: ckpt.neg %[[A]] : tensor<4x8xf32>
  %4 = ckpt.neg %a : tensor<4x8xf32>
  // CHECK: ckpt.exp %[[A]] : tensor<4x8xf32>
  %5 = ckpt.exp %a : tensor<4x8xf32>
  // CHECK: ckpt.log %[[A]] : tensor<4x8xf32>
  %6 = ckpt.log %a : tensor<4x8xf32>
  // CHECK: ckpt.rsqrt %[[A]] : tensor<4x8xf32>
  %rs = ckpt.rsqrt %a : tensor<4x8xf32>
  // CHECK: ckpt.sqrt %[[A]] : tensor<4x8xf32>
  %sq = ckpt.sqrt %a : tensor<4x8xf32>
  // CHECK: ckpt.abs %[[A]] : tensor<4x8xf32>
  %ab = ckpt.abs %a : tensor<4x8xf32>
  // CHECK: ckpt.cast %[[A]] : tensor<4x8xf32> -> tensor<4x8xbf16>
  %ca = ckpt.cast %a : tensor<4x8xf32> -> tensor<4x8xbf16>
  // CHECK: ckpt.pow %[[A]] exponent = 3.000000e+00 : tensor<4x8xf32>
  %pw = ckpt.pow %a exponent = 3.0 : tensor<4x8xf32>
  // CHECK: ckpt.clamp %[[A]] min = 0.000000e+00 max = 6.000000e+00 : tensor<4x8xf32>
  %c6 = ckpt.clamp %a min = 0.0 max = 6.0 : tensor<4x8xf32>
  // CHECK: ckpt.clamp %[[A]] max = 1.000000e+00 : tensor<4x8xf32>
  %c1 = ckpt.clamp %a max = 1.0 : tensor<4x8xf32>
  // CHECK: ckpt.clamp_grad %[[A]], %[[A]] min = -1.000000e+00 : tensor<4x8xf32>
  %cg = ckpt.clamp_grad %a, %a min = -1.0 : tensor<4x8xf32>
  // CHECK: ckpt.abs_grad %[[A]], %[[A]] : tensor<4x8xf32>
  %ag = ckpt.abs_grad %a, %a : tensor<4x8xf32>
  // CHECK: ckpt.tanh %[[A]] : tensor<4x8xf32>
  %7 = ckpt.tanh %a : tensor<4x8xf32>
  // CHECK: ckpt.sigmoid %[[A]] : tensor<4x8xf32>
  %8 = ckpt.sigmoid %a : tensor<4x8xf32>
  // CHECK: ckpt.relu %[[H]] : tensor<4x8xbf16>
  %9 = ckpt.relu %h : tensor<4x8xbf16>
  // CHECK: ckpt.silu %[[A]] : tensor<4x8xf32>
  %10 = ckpt.silu %a : tensor<4x8xf32>
  // The default approximation is elided.
  // CHECK: ckpt.gelu %[[A]] : tensor<4x8xf32>
  %11 = ckpt.gelu %a : tensor<4x8xf32>
  // CHECK: ckpt.gelu %[[A]] : tensor<4x8xf32>
  %12 = ckpt.gelu %a approximate = none : tensor<4x8xf32>
  // CHECK: ckpt.gelu %[[A]] approximate = tanh : tensor<4x8xf32>
  %13 = ckpt.gelu %a approximate = tanh : tensor<4x8xf32>
  // CHECK: ckpt.where %[[M]], %[[A]], %[[S]] : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %14 = ckpt.where %m, %a, %s : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @normalization
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x8xf16>, %[[G:.+]]: tensor<8xf16>, %[[B:.+]]: tensor<8xf16>, %[[G2:.+]]: tensor<4x8xf16>)
func.func @normalization(%x: tensor<2x4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>,
                         %g2: tensor<4x8xf16>) {
  // CHECK: ckpt.softmax %[[X]] dim = 2 : tensor<2x4x8xf16>
  %0 = ckpt.softmax %x dim = 2 : tensor<2x4x8xf16>
  // CHECK: ckpt.log_softmax %[[X]] dim = 0 : tensor<2x4x8xf16>
  %1 = ckpt.log_softmax %x dim = 0 : tensor<2x4x8xf16>
  // CHECK: ckpt.layer_norm %[[X]] weight %[[G]] bias %[[B]] normalized_shape = [8] : (tensor<2x4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf16>, tensor<2x4x1xf16>)
  %2:3 = ckpt.layer_norm %x weight %g bias %b normalized_shape = [8]
      : (tensor<2x4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf16>, tensor<2x4x1xf16>)
  // CHECK: ckpt.layer_norm %[[X]] bias %[[B]] normalized_shape = [8] eps = 1.000000e-03 : (tensor<2x4x8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf16>, tensor<2x4x1xf16>)
  %3:3 = ckpt.layer_norm %x bias %b normalized_shape = [8] eps = 1.0e-3
      : (tensor<2x4x8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf16>, tensor<2x4x1xf16>)
  // CHECK: ckpt.layer_norm %[[X]] normalized_shape = [4, 8] : (tensor<2x4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2x1x1xf16>, tensor<2x1x1xf16>)
  %4:3 = ckpt.layer_norm %x normalized_shape = [4, 8]
      : (tensor<2x4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2x1x1xf16>, tensor<2x1x1xf16>)
  // CHECK: ckpt.rms_norm %[[X]] weight %[[G2]] normalized_shape = [4, 8] : (tensor<2x4x8xf16>, tensor<4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2x1x1xf16>)
  %5:2 = ckpt.rms_norm %x weight %g2 normalized_shape = [4, 8]
      : (tensor<2x4x8xf16>, tensor<4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2x1x1xf16>)
  // CHECK: ckpt.rms_norm %[[X]] normalized_shape = [8] eps = 1.000000e-05 : (tensor<2x4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf16>)
  %6:2 = ckpt.rms_norm %x normalized_shape = [8] eps = 1.0e-5
      : (tensor<2x4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf16>)
  return
}

// CHECK-LABEL: func.func @dropout
func.func @dropout(%x: tensor<4x8xf64>) {
  // CHECK: ckpt.dropout %{{.+}} p = 1.000000e-01 : tensor<4x8xf64>
  %0 = ckpt.dropout %x p = 0.1 : tensor<4x8xf64>
  // The bounds are allowed: p = 0 is the identity, p = 1 zeroes.
  // CHECK: ckpt.dropout %{{.+}} p = 0.000000e+00 : tensor<4x8xf64>
  %1 = ckpt.dropout %x p = 0.0 : tensor<4x8xf64>
  // CHECK: ckpt.dropout %{{.+}} p = 1.000000e+00 : tensor<4x8xf64>
  %2 = ckpt.dropout %x p = 1.0 : tensor<4x8xf64>
  return
}

// CHECK-LABEL: func.func @shape
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<2x5x4xf32>, %[[I:.+]]: tensor<6xi64>, %[[M:.+]]: tensor<4xi1>)
func.func @shape(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %i: tensor<6xi64>,
                 %m: tensor<4xi1>) {
  // CHECK: ckpt.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = ckpt.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: ckpt.reshape %[[I]] : tensor<6xi64> -> tensor<2x3xi64>
  %1 = ckpt.reshape %i : tensor<6xi64> -> tensor<2x3xi64>
  // CHECK: ckpt.transpose %[[X]] permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %2 = ckpt.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: ckpt.broadcast_to %[[M]] : tensor<4xi1> -> tensor<3x4xi1>
  %3 = ckpt.broadcast_to %m : tensor<4xi1> -> tensor<3x4xi1>
  // CHECK: ckpt.broadcast_to %[[X]] : tensor<2x3x4xf32> -> tensor<5x2x3x4xf32>
  %4 = ckpt.broadcast_to %x : tensor<2x3x4xf32> -> tensor<5x2x3x4xf32>
  // The default step of 1 is elided.
  // CHECK: ckpt.slice %[[X]] dim = 2 start = 1 end = 3 : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %5 = ckpt.slice %x dim = 2 start = 1 end = 3 step = 1 : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  // CHECK: ckpt.slice %[[X]] dim = 2 start = 0 end = 4 step = 3 : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %6 = ckpt.slice %x dim = 2 start = 0 end = 4 step = 3 : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  // CHECK: ckpt.slice %[[X]] dim = 1 start = 2 end = 2 : tensor<2x3x4xf32> -> tensor<2x0x4xf32>
  %7 = ckpt.slice %x dim = 1 start = 2 end = 2 : tensor<2x3x4xf32> -> tensor<2x0x4xf32>
  // CHECK: ckpt.concat %[[X]], %[[Y]], %[[X]] dim = 1 : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
  %8 = ckpt.concat %x, %y, %x dim = 1 : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
  return
}

// CHECK-LABEL: func.func @reductions
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
func.func @reductions(%x: tensor<2x3x4xf32>) {
  // CHECK: ckpt.reduce_sum %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
  %0 = ckpt.reduce_sum %x : tensor<2x3x4xf32> -> tensor<f32>
  // CHECK: ckpt.reduce_mean %[[X]] dims = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = ckpt.reduce_mean %x dims = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  // CHECK: ckpt.reduce_max %[[X]] dims = [1] keepdim : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %2 = ckpt.reduce_max %x dims = [1] keepdim : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  // CHECK: ckpt.reduce_norm %[[X]] dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %nrm = ckpt.reduce_norm %x dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // CHECK: ckpt.reduce_sum %[[X]] keepdim : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %3 = ckpt.reduce_sum %x keepdim : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  return
}

// CHECK-LABEL: func.func @lookup_and_losses
//  CHECK-SAME:   (%[[T:.+]]: tensor<2x5xi64>, %[[E:.+]]: tensor<100x16xf32>, %[[L:.+]]: tensor<10x100xf32>, %[[Y:.+]]: tensor<10xi64>)
func.func @lookup_and_losses(%t: tensor<2x5xi64>, %e: tensor<100x16xf32>,
                             %logits: tensor<10x100xf32>, %labels: tensor<10xi64>) {
  // CHECK: ckpt.embedding %[[T]], %[[E]] : (tensor<2x5xi64>, tensor<100x16xf32>) -> tensor<2x5x16xf32>
  %0 = ckpt.embedding %t, %e : (tensor<2x5xi64>, tensor<100x16xf32>) -> tensor<2x5x16xf32>
  // CHECK: ckpt.embedding %[[T]], %[[E]] padding_idx = 0 : (tensor<2x5xi64>, tensor<100x16xf32>) -> tensor<2x5x16xf32>
  %pad = ckpt.embedding %t, %e padding_idx = 0 : (tensor<2x5xi64>, tensor<100x16xf32>) -> tensor<2x5x16xf32>
  // CHECK: ckpt.cross_entropy %[[L]], %[[Y]] : (tensor<10x100xf32>, tensor<10xi64>) -> tensor<f32>
  %1 = ckpt.cross_entropy %logits, %labels : (tensor<10x100xf32>, tensor<10xi64>) -> tensor<f32>
  // CHECK: ckpt.cross_entropy %[[L]], %[[Y]] ignore_index = -100 : (tensor<10x100xf32>, tensor<10xi64>) -> tensor<f32>
  %ignoring = ckpt.cross_entropy %logits, %labels ignore_index = -100 : (tensor<10x100xf32>, tensor<10xi64>) -> tensor<f32>
  // CHECK: ckpt.mse_loss %[[L]], %[[L]] : (tensor<10x100xf32>, tensor<10x100xf32>) -> tensor<f32>
  %2 = ckpt.mse_loss %logits, %logits : (tensor<10x100xf32>, tensor<10x100xf32>) -> tensor<f32>
  return
}

// Defaults (stride 1, no padding, dilation 1, one group; pooling stride =
// kernel; count_include_pad = true; momentum and eps of batch norm) are not
// printed; a written stride equal to the kernel is kept.
// CHECK-LABEL: func.func @vision
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x9x9xf64>, %[[W:.+]]: tensor<8x4x3x3xf64>, %[[B:.+]]: tensor<8xf64>, %[[GW:.+]]: tensor<6x2x3x3xf64>, %[[C:.+]]: tensor<4xf64>, %[[F:.+]]: tensor<8x4xf32>, %[[FC:.+]]: tensor<4xf32>)
func.func @vision(%x: tensor<2x4x9x9xf64>, %w: tensor<8x4x3x3xf64>, %b: tensor<8xf64>,
                  %gw: tensor<6x2x3x3xf64>, %c: tensor<4xf64>, %f: tensor<8x4xf32>,
                  %fc: tensor<4xf32>) {
  // CHECK: ckpt.conv2d %[[X]], %[[W]] bias %[[B]] : (tensor<2x4x9x9xf64>, tensor<8x4x3x3xf64>, tensor<8xf64>) -> tensor<2x8x7x7xf64>
  %0 = ckpt.conv2d %x, %w bias %b : (tensor<2x4x9x9xf64>, tensor<8x4x3x3xf64>, tensor<8xf64>) -> tensor<2x8x7x7xf64>
  // CHECK: ckpt.conv2d %[[X]], %[[GW]] stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2 : (tensor<2x4x9x9xf64>, tensor<6x2x3x3xf64>) -> tensor<2x6x4x4xf64>
  %1 = ckpt.conv2d %x, %gw stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2
      : (tensor<2x4x9x9xf64>, tensor<6x2x3x3xf64>) -> tensor<2x6x4x4xf64>
  // CHECK: ckpt.conv2d %[[X]], %[[W]] : (tensor<2x4x9x9xf64>, tensor<8x4x3x3xf64>) -> tensor<2x8x7x7xf64>
  %2 = ckpt.conv2d %x, %w stride = [1, 1] padding = [0, 0] dilation = [1, 1] groups = 1
      : (tensor<2x4x9x9xf64>, tensor<8x4x3x3xf64>) -> tensor<2x8x7x7xf64>
  // CHECK: ckpt.max_pool2d %[[X]] kernel = [3, 3] stride = [2, 2] padding = [1, 1] : (tensor<2x4x9x9xf64>) -> (tensor<2x4x5x5xf64>, tensor<2x4x5x5xi64>)
  %3:2 = ckpt.max_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<2x4x9x9xf64>) -> (tensor<2x4x5x5xf64>, tensor<2x4x5x5xi64>)
  // CHECK: ckpt.max_pool2d %[[X]] kernel = [2, 2] : (tensor<2x4x9x9xf64>) -> (tensor<2x4x4x4xf64>, tensor<2x4x4x4xi64>)
  %4:2 = ckpt.max_pool2d %x kernel = [2, 2] : (tensor<2x4x9x9xf64>) -> (tensor<2x4x4x4xf64>, tensor<2x4x4x4xi64>)
  // CHECK: ckpt.avg_pool2d %[[X]] kernel = [3, 3] stride = [2, 1] padding = [1, 0] count_include_pad = false : tensor<2x4x9x9xf64> -> tensor<2x4x5x7xf64>
  %5 = ckpt.avg_pool2d %x kernel = [3, 3] stride = [2, 1] padding = [1, 0] count_include_pad = false
      : tensor<2x4x9x9xf64> -> tensor<2x4x5x7xf64>
  // CHECK: ckpt.avg_pool2d %[[X]] kernel = [3, 3] stride = [3, 3] : tensor<2x4x9x9xf64> -> tensor<2x4x3x3xf64>
  %6 = ckpt.avg_pool2d %x kernel = [3, 3] stride = [3, 3] count_include_pad = true
      : tensor<2x4x9x9xf64> -> tensor<2x4x3x3xf64>
  // CHECK: ckpt.max_pool2d %[[X]] kernel = [2, 2] ceil_mode = true : (tensor<2x4x9x9xf64>) -> (tensor<2x4x5x5xf64>, tensor<2x4x5x5xi64>)
  %cp:2 = ckpt.max_pool2d %x kernel = [2, 2] ceil_mode = true : (tensor<2x4x9x9xf64>) -> (tensor<2x4x5x5xf64>, tensor<2x4x5x5xi64>)
  // CHECK: ckpt.avg_pool2d %[[X]] kernel = [3, 3] stride = [2, 2] padding = [1, 1] ceil_mode = true : tensor<2x4x9x9xf64> -> tensor<2x4x5x5xf64>
  %cm = ckpt.avg_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1] ceil_mode = true
      : tensor<2x4x9x9xf64> -> tensor<2x4x5x5xf64>
  // CHECK: ckpt.upsample_nearest2d %[[X]] scale = [2, 3] : tensor<2x4x9x9xf64> -> tensor<2x4x18x27xf64>
  %7 = ckpt.upsample_nearest2d %x scale = [2, 3] : tensor<2x4x9x9xf64> -> tensor<2x4x18x27xf64>
  // CHECK: %{{.+}}, %[[MEAN:.+]], %{{.+}} = ckpt.batch_norm %[[X]] weight %[[C]] bias %[[C]] eps = 1.000000e-03 : (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>)
  %8:3 = ckpt.batch_norm %x weight %c bias %c eps = 1.0e-3
      : (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>)
      -> (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>)
  // CHECK: ckpt.batch_norm_update_stats %[[X]], %[[MEAN]] running_mean %[[C]] running_var %[[C]] momentum = 2.000000e-01 : (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %r:2 = ckpt.batch_norm_update_stats %x, %8#1 running_mean %c running_var %c momentum = 0.2
      : (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  // CHECK: %{{.+}}, %[[MEAN2:.+]], %{{.+}} = ckpt.batch_norm %[[F]] : (tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %9:3 = ckpt.batch_norm %f : (tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: ckpt.batch_norm_update_stats %[[F]], %[[MEAN2]] running_mean %[[FC]] running_var %[[FC]] : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %10:2 = ckpt.batch_norm_update_stats %f, %9#1 running_mean %fc running_var %fc
      : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// CHECK-LABEL: func.func @checkpoint
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<8x8xf32> {ckpt.param})
func.func @checkpoint(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<4x8xf32> {
  // CHECK: %[[R:.+]]:2 = ckpt.checkpoint(%[[IN:.+]] = %[[X]], %[[WT:.+]] = %[[W]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {note = "block 1"} {
  // CHECK-NEXT:   %[[H:.+]] = ckpt.linear %[[IN]], %[[WT]]
  // CHECK-NEXT:   %[[G:.+]] = ckpt.gelu %[[H]]
  // CHECK-NEXT:   ckpt.yield %[[G]], %[[H]] : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  %r:2 = ckpt.checkpoint(%in = %x, %wt = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {note = "block 1"} {
    %h = ckpt.linear %in, %wt : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g, %h : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // A segment may also be empty of inputs and outputs.
  // CHECK: ckpt.checkpoint() : () -> () {
  // CHECK-NEXT: ckpt.yield
  ckpt.checkpoint() : () -> () {
    ckpt.yield
  }
  // CHECK: return %[[R]]#0
  return %r#0 : tensor<4x8xf32>
}

// ckpt-insert-recompute's region has the checkpoint syntax.
// CHECK-LABEL: func.func @recompute
func.func @recompute(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[R:.+]]:2 = ckpt.recompute(%[[IN:.+]] = %{{.+}}, %[[WT:.+]] = %{{.+}}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {ckpt.backward} {
  // CHECK-NEXT:   %[[H:.+]] = ckpt.linear %[[IN]], %[[WT]]
  // CHECK-NEXT:   %[[G:.+]] = ckpt.gelu %[[H]]
  // CHECK-NEXT:   ckpt.yield %[[H]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  %r:2 = ckpt.recompute(%in = %x, %wt = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {ckpt.backward} {
    %h = ckpt.linear %in, %wt : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %h, %g : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#1 : tensor<4x8xf32>
}

// ckpt-fuse-pointwise's chain has the checkpoint syntax too.
// CHECK-LABEL: func.func @fused_pointwise
func.func @fused_pointwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf64> {
  // CHECK: %[[F:.+]] = ckpt.fused_pointwise(%[[XA:.+]] = %{{.+}}, %[[BA:.+]] = %{{.+}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf64> {
  // CHECK-NEXT:   %[[H:.+]] = ckpt.add %[[XA]], %[[BA]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT:   %[[C:.+]] = ckpt.cast %[[H]] : tensor<4x8xf32> -> tensor<4x8xf64>
  // CHECK-NEXT:   ckpt.yield %[[C]] : tensor<4x8xf64>
  // CHECK-NEXT: }
  %f = ckpt.fused_pointwise(%xa = %x, %ba = %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf64> {
    %h = ckpt.add %xa, %ba : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %c = ckpt.cast %h : tensor<4x8xf32> -> tensor<4x8xf64>
    ckpt.yield %c : tensor<4x8xf64>
  }
  // CHECK: return %[[F]]
  return %f : tensor<4x8xf64>
}

// CHECK-LABEL: func.func @not_recomputable
//  CHECK-SAME:   (%[[X:.+]]: tensor<6x4xf32>, %[[I:.+]]: tensor<3xi64>, %[[S:.+]]: tensor<3x4xf32>)
func.func @not_recomputable(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf32>) {
  // CHECK: ckpt.print %[[X]] : tensor<6x4xf32>
  ckpt.print %x : tensor<6x4xf32>
  // CHECK: ckpt.print %[[I]] prefix = "indices" : tensor<3xi64>
  ckpt.print %i prefix = "indices" : tensor<3xi64>
  // CHECK: ckpt.all_reduce %[[X]] : tensor<6x4xf32>
  %0 = ckpt.all_reduce %x reduction = sum : tensor<6x4xf32>
  // CHECK: ckpt.all_reduce %[[X]] reduction = mean : tensor<6x4xf32>
  %1 = ckpt.all_reduce %x reduction = mean : tensor<6x4xf32>
  // CHECK: ckpt.all_reduce %[[X]] reduction = max : tensor<6x4xf32>
  %2 = ckpt.all_reduce %x reduction = max : tensor<6x4xf32>
  // CHECK: ckpt.index_add %[[X]], %[[I]], %[[S]] dim = 0 : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %3 = ckpt.index_add %x, %i, %s dim = 0 deterministic = true : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  // CHECK: ckpt.index_add %[[X]], %[[I]], %[[S]] dim = 0 deterministic = false : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %4 = ckpt.index_add %x, %i, %s dim = 0 deterministic = false : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return
}

// Unknown sizes agree with any size.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x16xf32>, %w: tensor<32x?xf32>, %v: tensor<16xf32>) {
  // CHECK: ckpt.linear %{{.+}}, %{{.+}} : (tensor<?x16xf32>, tensor<32x?xf32>) -> tensor<?x32xf32>
  %0 = ckpt.linear %x, %w : (tensor<?x16xf32>, tensor<32x?xf32>) -> tensor<?x32xf32>
  // CHECK: ckpt.add %{{.+}}, %{{.+}} : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %1 = ckpt.add %x, %v : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  // CHECK: ckpt.reshape %{{.+}} : tensor<?x16xf32> -> tensor<?x4x4xf32>
  %2 = ckpt.reshape %x : tensor<?x16xf32> -> tensor<?x4x4xf32>
  return
}

// Parameters may also mark arguments of function declarations.
// CHECK-LABEL: func.func private @declaration
//  CHECK-SAME:   (tensor<4xf32> {ckpt.param})
func.func private @declaration(tensor<4xf32> {ckpt.param})

// CHECK-LABEL: func.func @backward
func.func @backward(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %s: tensor<2x1xf32>,
                    %w: tensor<8xf32>, %g: tensor<f32>, %i: tensor<2xi64>,
                    %m: tensor<2xf32>, %rng: !ckpt.rng, %e: tensor<2x2x8xf32>,
                    %t: tensor<2x2xi64>) {
  // CHECK: ckpt.sigmoid_grad %{{.+}}, %{{.+}} : tensor<2x8xf32>
  %0 = ckpt.sigmoid_grad %dy, %x : tensor<2x8xf32>
  // CHECK: ckpt.tanh_grad
  %1 = ckpt.tanh_grad %dy, %x : tensor<2x8xf32>
  // CHECK: ckpt.relu_grad
  %2 = ckpt.relu_grad %dy, %x : tensor<2x8xf32>
  // CHECK: ckpt.silu_grad
  %3 = ckpt.silu_grad %dy, %x : tensor<2x8xf32>
  // CHECK: ckpt.gelu_grad %{{.+}}, %{{.+}} approximate = tanh : tensor<2x8xf32>
  %4 = ckpt.gelu_grad %dy, %x approximate = tanh : tensor<2x8xf32>
  // CHECK: ckpt.softmax_grad %{{.+}}, %{{.+}} dim = 1 : tensor<2x8xf32>
  %5 = ckpt.softmax_grad %dy, %x dim = 1 : tensor<2x8xf32>
  // CHECK: ckpt.log_softmax_grad %{{.+}}, %{{.+}} dim = 0 : tensor<2x8xf32>
  %6 = ckpt.log_softmax_grad %dy, %x dim = 0 : tensor<2x8xf32>
  // CHECK: ckpt.layer_norm_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} weight %{{.+}} normalized_shape = [8] : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %7:3 = ckpt.layer_norm_grad %dy, %x, %s, %s weight %w normalized_shape = [8]
      : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  // CHECK: ckpt.rms_norm_grad %{{.+}}, %{{.+}}, %{{.+}} normalized_shape = [8] : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  %8:2 = ckpt.rms_norm_grad %dy, %x, %s normalized_shape = [8]
      : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  // CHECK: ckpt.embedding_grad %{{.+}}, %{{.+}} num_embeddings = 10 : (tensor<2x2x8xf32>, tensor<2x2xi64>) -> tensor<10x8xf32>
  %9 = ckpt.embedding_grad %e, %t num_embeddings = 10 : (tensor<2x2x8xf32>, tensor<2x2xi64>) -> tensor<10x8xf32>
  // CHECK: ckpt.embedding_grad %{{.+}}, %{{.+}} num_embeddings = 10 padding_idx = 3 : (tensor<2x2x8xf32>, tensor<2x2xi64>) -> tensor<10x8xf32>
  %padded = ckpt.embedding_grad %e, %t num_embeddings = 10 padding_idx = 3 : (tensor<2x2x8xf32>, tensor<2x2xi64>) -> tensor<10x8xf32>
  // CHECK: ckpt.cross_entropy_grad %{{.+}}, %{{.+}}, %{{.+}} : (tensor<f32>, tensor<2x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  %10 = ckpt.cross_entropy_grad %g, %x, %i : (tensor<f32>, tensor<2x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  // CHECK: ckpt.cross_entropy_grad %{{.+}}, %{{.+}}, %{{.+}} ignore_index = 0 : (tensor<f32>, tensor<2x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  %ignoring = ckpt.cross_entropy_grad %g, %x, %i ignore_index = 0 : (tensor<f32>, tensor<2x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  // CHECK: ckpt.mse_loss_grad %{{.+}}, %{{.+}}, %{{.+}} : (tensor<f32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %11 = ckpt.mse_loss_grad %g, %x, %dy : (tensor<f32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: ckpt.reduce_max_grad %{{.+}}, %{{.+}}, %{{.+}} dims = [1] : (tensor<2xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<2x8xf32>
  %12 = ckpt.reduce_max_grad %m, %x, %m dims = [1] : (tensor<2xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<2x8xf32>
  // CHECK: ckpt.reduce_norm_grad %{{.+}}, %{{.+}}, %{{.+}} dims = [1] : (tensor<2xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<2x8xf32>
  %nrmg = ckpt.reduce_norm_grad %m, %x, %m dims = [1] : (tensor<2xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<2x8xf32>
  // CHECK: ckpt.slice_grad %{{.+}} dim = 1 start = 2 end = 10 : tensor<2x8xf32> -> tensor<2x12xf32>
  %13 = ckpt.slice_grad %dy dim = 1 start = 2 end = 10 : tensor<2x8xf32> -> tensor<2x12xf32>
  // CHECK: ckpt.dropout_grad %{{.+}} rng %{{.+}} offset = 4 p = 1.000000e-01 : tensor<2x8xf32>
  %14 = ckpt.dropout_grad %dy rng %rng offset = 4 p = 0.1 : tensor<2x8xf32>
  // CHECK: ckpt.dropout %{{.+}} rng %{{.+}} offset = 0 p = 1.000000e-01 : tensor<2x8xf32>
  %15 = ckpt.dropout %x rng %rng offset = 0 p = 0.1 : tensor<2x8xf32>
  return
}

// CHECK-LABEL: func.func @vision_backward
func.func @vision_backward(%x: tensor<2x4x9x9xf64>, %gw: tensor<6x2x3x3xf64>,
                           %dc: tensor<2x6x4x4xf64>, %dp: tensor<2x4x5x5xf64>,
                           %i: tensor<2x4x5x5xi64>, %da: tensor<2x4x5x7xf64>,
                           %du: tensor<2x4x18x27xf64>, %c: tensor<4xf64>) {
  // CHECK: ckpt.conv2d_input_grad %{{.+}}, %{{.+}} stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2 : (tensor<2x6x4x4xf64>, tensor<6x2x3x3xf64>) -> tensor<2x4x9x9xf64>
  %0 = ckpt.conv2d_input_grad %dc, %gw stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2
      : (tensor<2x6x4x4xf64>, tensor<6x2x3x3xf64>) -> tensor<2x4x9x9xf64>
  // CHECK: ckpt.conv2d_weight_grad %{{.+}}, %{{.+}} stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2 : (tensor<2x6x4x4xf64>, tensor<2x4x9x9xf64>) -> tensor<6x2x3x3xf64>
  %1 = ckpt.conv2d_weight_grad %dc, %x stride = [2, 2] padding = [1, 1] dilation = [2, 2] groups = 2
      : (tensor<2x6x4x4xf64>, tensor<2x4x9x9xf64>) -> tensor<6x2x3x3xf64>
  // CHECK: ckpt.max_pool2d_grad %{{.+}}, %{{.+}} kernel = [3, 3] stride = [2, 2] padding = [1, 1] : (tensor<2x4x5x5xf64>, tensor<2x4x5x5xi64>) -> tensor<2x4x9x9xf64>
  %2 = ckpt.max_pool2d_grad %dp, %i kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<2x4x5x5xf64>, tensor<2x4x5x5xi64>) -> tensor<2x4x9x9xf64>
  // CHECK: ckpt.avg_pool2d_grad %{{.+}} kernel = [3, 3] stride = [2, 1] padding = [1, 0] count_include_pad = false : tensor<2x4x5x7xf64> -> tensor<2x4x9x9xf64>
  %3 = ckpt.avg_pool2d_grad %da kernel = [3, 3] stride = [2, 1] padding = [1, 0] count_include_pad = false
      : tensor<2x4x5x7xf64> -> tensor<2x4x9x9xf64>
  // CHECK: ckpt.upsample_nearest2d_grad %{{.+}} scale = [2, 3] : tensor<2x4x18x27xf64> -> tensor<2x4x9x9xf64>
  %4 = ckpt.upsample_nearest2d_grad %du scale = [2, 3] : tensor<2x4x18x27xf64> -> tensor<2x4x9x9xf64>
  // CHECK: ckpt.batch_norm_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} weight %{{.+}} : (tensor<2x4x9x9xf64>, tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>)
  %5:3 = ckpt.batch_norm_grad %x, %x, %c, %c weight %c
      : (tensor<2x4x9x9xf64>, tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
      -> (tensor<2x4x9x9xf64>, tensor<4xf64>, tensor<4xf64>)
  return
}

// CHECK-LABEL: func.func @advance
// CHECK: ckpt.rng_advance %{{.+}} counters = 4096
func.func @advance(%s: !ckpt.rng) -> !ckpt.rng {
  %n = ckpt.rng_advance %s counters = 4096
  return %n : !ckpt.rng
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x5x8xf64>, %k: tensor<2x2x6x8xf64>, %v: tensor<2x2x6x3xf64>,
                     %m: tensor<5x6xf64>, %s: !ckpt.rng, %do: tensor<2x4x5x3xf64>) {
  // CHECK: ckpt.scaled_dot_product_attention %{{.+}}, %{{.+}}, %{{.+}} causal scale = 1.250000e-01 : (tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>) -> (tensor<2x4x5x3xf64>, tensor<2x4x5xf64>)
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v causal scale = 0.125
      : (tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>) -> (tensor<2x4x5x3xf64>, tensor<2x4x5xf64>)
  // CHECK: ckpt.scaled_dot_product_attention %{{.+}}, %{{.+}}, %{{.+}} mask %{{.+}} rng %{{.+}} offset = 8 scale = 5.000000e-01 p = 1.000000e-01 : (tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>, tensor<5x6xf64>, !ckpt.rng) -> (tensor<2x4x5x3xf64>, tensor<2x4x5xf64>)
  %1:2 = ckpt.scaled_dot_product_attention %q, %k, %v mask %m rng %s offset = 8 scale = 0.5 p = 0.1
      : (tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>, tensor<5x6xf64>, !ckpt.rng) -> (tensor<2x4x5x3xf64>, tensor<2x4x5xf64>)
  // CHECK: ckpt.scaled_dot_product_attention_grad %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} mask %{{.+}} rng %{{.+}} offset = 8 scale = 5.000000e-01 p = 1.000000e-01 : (tensor<2x4x5x3xf64>, tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>, tensor<2x4x5x3xf64>, tensor<2x4x5xf64>, tensor<5x6xf64>, !ckpt.rng) -> (tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>)
  %2:3 = ckpt.scaled_dot_product_attention_grad %do, %q, %k, %v, %1#0, %1#1 mask %m rng %s offset = 8 scale = 0.5 p = 0.1
      : (tensor<2x4x5x3xf64>, tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>, tensor<2x4x5x3xf64>, tensor<2x4x5xf64>, tensor<5x6xf64>, !ckpt.rng)
      -> (tensor<2x4x5x8xf64>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf64>)
  return
}
