// The GPT-2-style stack of gpt2_stack.mlir with every block wrapped in a
// checkpoint segment (torch.utils.checkpoint per block). Each segment takes
// the residual stream and the block's parameters, plus the causal mask and
// the attention constants; its dropouts draw the same random numbers when
// the block is recomputed, so gradients equal those of the plain stack bit
// for bit.
func.func @gpt2(%tokens: tensor<2x64xi64>,
                %labels: tensor<128xi64>,
                %causal: tensor<64x64xi1>,
                %wte: tensor<1024x128xf32> {ckpt.param},
                %wpe: tensor<64x128xf32> {ckpt.param},
                %ln1_0_w: tensor<128xf32> {ckpt.param},
                %ln1_0_b: tensor<128xf32> {ckpt.param},
                %attn_0_w: tensor<384x128xf32> {ckpt.param},
                %attn_0_b: tensor<384xf32> {ckpt.param},
                %aproj_0_w: tensor<128x128xf32> {ckpt.param},
                %aproj_0_b: tensor<128xf32> {ckpt.param},
                %ln2_0_w: tensor<128xf32> {ckpt.param},
                %ln2_0_b: tensor<128xf32> {ckpt.param},
                %fc_0_w: tensor<512x128xf32> {ckpt.param},
                %fc_0_b: tensor<512xf32> {ckpt.param},
                %mproj_0_w: tensor<128x512xf32> {ckpt.param},
                %mproj_0_b: tensor<128xf32> {ckpt.param},
                %ln1_1_w: tensor<128xf32> {ckpt.param},
                %ln1_1_b: tensor<128xf32> {ckpt.param},
                %attn_1_w: tensor<384x128xf32> {ckpt.param},
                %attn_1_b: tensor<384xf32> {ckpt.param},
                %aproj_1_w: tensor<128x128xf32> {ckpt.param},
                %aproj_1_b: tensor<128xf32> {ckpt.param},
                %ln2_1_w: tensor<128xf32> {ckpt.param},
                %ln2_1_b: tensor<128xf32> {ckpt.param},
                %fc_1_w: tensor<512x128xf32> {ckpt.param},
                %fc_1_b: tensor<512xf32> {ckpt.param},
                %mproj_1_w: tensor<128x512xf32> {ckpt.param},
                %mproj_1_b: tensor<128xf32> {ckpt.param},
                %ln1_2_w: tensor<128xf32> {ckpt.param},
                %ln1_2_b: tensor<128xf32> {ckpt.param},
                %attn_2_w: tensor<384x128xf32> {ckpt.param},
                %attn_2_b: tensor<384xf32> {ckpt.param},
                %aproj_2_w: tensor<128x128xf32> {ckpt.param},
                %aproj_2_b: tensor<128xf32> {ckpt.param},
                %ln2_2_w: tensor<128xf32> {ckpt.param},
                %ln2_2_b: tensor<128xf32> {ckpt.param},
                %fc_2_w: tensor<512x128xf32> {ckpt.param},
                %fc_2_b: tensor<512xf32> {ckpt.param},
                %mproj_2_w: tensor<128x512xf32> {ckpt.param},
                %mproj_2_b: tensor<128xf32> {ckpt.param},
                %ln1_3_w: tensor<128xf32> {ckpt.param},
                %ln1_3_b: tensor<128xf32> {ckpt.param},
                %attn_3_w: tensor<384x128xf32> {ckpt.param},
                %attn_3_b: tensor<384xf32> {ckpt.param},
                %aproj_3_w: tensor<128x128xf32> {ckpt.param},
                %aproj_3_b: tensor<128xf32> {ckpt.param},
                %ln2_3_w: tensor<128xf32> {ckpt.param},
                %ln2_3_b: tensor<128xf32> {ckpt.param},
                %fc_3_w: tensor<512x128xf32> {ckpt.param},
                %fc_3_b: tensor<512xf32> {ckpt.param},
                %mproj_3_w: tensor<128x512xf32> {ckpt.param},
                %mproj_3_b: tensor<128xf32> {ckpt.param},
                %lnf_w: tensor<128xf32> {ckpt.param},
                %lnf_b: tensor<128xf32> {ckpt.param}) -> tensor<f32> {
  %positions = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]> : tensor<64xi64>
  %scale = arith.constant dense<1.767767e-01> : tensor<f32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<f32>
  %tok = ckpt.embedding %tokens, %wte : (tensor<2x64xi64>, tensor<1024x128xf32>) -> tensor<2x64x128xf32>
  %pos = ckpt.embedding %positions, %wpe : (tensor<64xi64>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %emb = ckpt.add %tok, %pos : (tensor<2x64x128xf32>, tensor<64x128xf32>) -> tensor<2x64x128xf32>
  %x = ckpt.dropout %emb p = 1.000000e-01 : tensor<2x64x128xf32>
  // block 0: attention
  %res2_0 = ckpt.checkpoint(%in = %x, %ln1_w = %ln1_0_w, %ln1_b = %ln1_0_b, %attn_w = %attn_0_w, %attn_b = %attn_0_b, %att_scale = %scale, %mask = %causal, %masked_value = %neg_inf, %aproj_w = %aproj_0_w, %aproj_b = %aproj_0_b, %ln2_w = %ln2_0_w, %ln2_b = %ln2_0_b, %fc_w = %fc_0_w, %fc_b = %fc_0_b, %mproj_w = %mproj_0_w, %mproj_b = %mproj_0_b)
      : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<f32>, tensor<64x64xi1>, tensor<f32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32> {
    %n1_0, %m1_0, %r1_0 = ckpt.layer_norm %in weight %ln1_w bias %ln1_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %qkv_0 = ckpt.linear %n1_0, %attn_w, %attn_b : (tensor<2x64x128xf32>, tensor<384x128xf32>, tensor<384xf32>) -> tensor<2x64x384xf32>
    %qf_0 = ckpt.slice %qkv_0 dim = 2 start = 0 end = 128 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %qh_0 = ckpt.reshape %qf_0 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %q_0 = ckpt.transpose %qh_0 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kf_0 = ckpt.slice %qkv_0 dim = 2 start = 128 end = 256 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %kh_0 = ckpt.reshape %kf_0 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %k_0 = ckpt.transpose %kh_0 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %vf_0 = ckpt.slice %qkv_0 dim = 2 start = 256 end = 384 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %vh_0 = ckpt.reshape %vf_0 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %v_0 = ckpt.transpose %vh_0 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kt_0 = ckpt.transpose %k_0 permutation = [0, 1, 3, 2] : tensor<2x4x64x32xf32> -> tensor<2x4x32x64xf32>
    %qk_0 = ckpt.matmul %q_0, %kt_0 : (tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32>) -> tensor<2x4x64x64xf32>
    %sc_0 = ckpt.mul %qk_0, %att_scale : (tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %masked_0 = ckpt.where %mask, %sc_0, %masked_value : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %att_0 = ckpt.softmax %masked_0 dim = 3 : tensor<2x4x64x64xf32>
    %attd_0 = ckpt.dropout %att_0 p = 1.000000e-01 : tensor<2x4x64x64xf32>
    %ctx_0 = ckpt.matmul %attd_0, %v_0 : (tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
    %ctxt_0 = ckpt.transpose %ctx_0 permutation = [0, 2, 1, 3] : tensor<2x4x64x32xf32> -> tensor<2x64x4x32xf32>
    %ctxm_0 = ckpt.reshape %ctxt_0 : tensor<2x64x4x32xf32> -> tensor<2x64x128xf32>
    %ao_0 = ckpt.linear %ctxm_0, %aproj_w, %aproj_b : (tensor<2x64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %aod_0 = ckpt.dropout %ao_0 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res1_0 = ckpt.add %in, %aod_0 : tensor<2x64x128xf32>
    // block 0: MLP
    %n2_0, %m2_0, %r2_0 = ckpt.layer_norm %res1_0 weight %ln2_w bias %ln2_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %fc_0 = ckpt.linear %n2_0, %fc_w, %fc_b : (tensor<2x64x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<2x64x512xf32>
    %gelu_0 = ckpt.gelu %fc_0 approximate = tanh : tensor<2x64x512xf32>
    %mo_0 = ckpt.linear %gelu_0, %mproj_w, %mproj_b : (tensor<2x64x512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %mod_0 = ckpt.dropout %mo_0 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res2_0 = ckpt.add %res1_0, %mod_0 : tensor<2x64x128xf32>
    ckpt.yield %res2_0 : tensor<2x64x128xf32>
  }
  // block 1: attention
  %res2_1 = ckpt.checkpoint(%in = %res2_0, %ln1_w = %ln1_1_w, %ln1_b = %ln1_1_b, %attn_w = %attn_1_w, %attn_b = %attn_1_b, %att_scale = %scale, %mask = %causal, %masked_value = %neg_inf, %aproj_w = %aproj_1_w, %aproj_b = %aproj_1_b, %ln2_w = %ln2_1_w, %ln2_b = %ln2_1_b, %fc_w = %fc_1_w, %fc_b = %fc_1_b, %mproj_w = %mproj_1_w, %mproj_b = %mproj_1_b)
      : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<f32>, tensor<64x64xi1>, tensor<f32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32> {
    %n1_1, %m1_1, %r1_1 = ckpt.layer_norm %in weight %ln1_w bias %ln1_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %qkv_1 = ckpt.linear %n1_1, %attn_w, %attn_b : (tensor<2x64x128xf32>, tensor<384x128xf32>, tensor<384xf32>) -> tensor<2x64x384xf32>
    %qf_1 = ckpt.slice %qkv_1 dim = 2 start = 0 end = 128 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %qh_1 = ckpt.reshape %qf_1 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %q_1 = ckpt.transpose %qh_1 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kf_1 = ckpt.slice %qkv_1 dim = 2 start = 128 end = 256 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %kh_1 = ckpt.reshape %kf_1 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %k_1 = ckpt.transpose %kh_1 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %vf_1 = ckpt.slice %qkv_1 dim = 2 start = 256 end = 384 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %vh_1 = ckpt.reshape %vf_1 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %v_1 = ckpt.transpose %vh_1 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kt_1 = ckpt.transpose %k_1 permutation = [0, 1, 3, 2] : tensor<2x4x64x32xf32> -> tensor<2x4x32x64xf32>
    %qk_1 = ckpt.matmul %q_1, %kt_1 : (tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32>) -> tensor<2x4x64x64xf32>
    %sc_1 = ckpt.mul %qk_1, %att_scale : (tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %masked_1 = ckpt.where %mask, %sc_1, %masked_value : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %att_1 = ckpt.softmax %masked_1 dim = 3 : tensor<2x4x64x64xf32>
    %attd_1 = ckpt.dropout %att_1 p = 1.000000e-01 : tensor<2x4x64x64xf32>
    %ctx_1 = ckpt.matmul %attd_1, %v_1 : (tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
    %ctxt_1 = ckpt.transpose %ctx_1 permutation = [0, 2, 1, 3] : tensor<2x4x64x32xf32> -> tensor<2x64x4x32xf32>
    %ctxm_1 = ckpt.reshape %ctxt_1 : tensor<2x64x4x32xf32> -> tensor<2x64x128xf32>
    %ao_1 = ckpt.linear %ctxm_1, %aproj_w, %aproj_b : (tensor<2x64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %aod_1 = ckpt.dropout %ao_1 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res1_1 = ckpt.add %in, %aod_1 : tensor<2x64x128xf32>
    // block 1: MLP
    %n2_1, %m2_1, %r2_1 = ckpt.layer_norm %res1_1 weight %ln2_w bias %ln2_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %fc_1 = ckpt.linear %n2_1, %fc_w, %fc_b : (tensor<2x64x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<2x64x512xf32>
    %gelu_1 = ckpt.gelu %fc_1 approximate = tanh : tensor<2x64x512xf32>
    %mo_1 = ckpt.linear %gelu_1, %mproj_w, %mproj_b : (tensor<2x64x512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %mod_1 = ckpt.dropout %mo_1 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res2_1 = ckpt.add %res1_1, %mod_1 : tensor<2x64x128xf32>
    ckpt.yield %res2_1 : tensor<2x64x128xf32>
  }
  // block 2: attention
  %res2_2 = ckpt.checkpoint(%in = %res2_1, %ln1_w = %ln1_2_w, %ln1_b = %ln1_2_b, %attn_w = %attn_2_w, %attn_b = %attn_2_b, %att_scale = %scale, %mask = %causal, %masked_value = %neg_inf, %aproj_w = %aproj_2_w, %aproj_b = %aproj_2_b, %ln2_w = %ln2_2_w, %ln2_b = %ln2_2_b, %fc_w = %fc_2_w, %fc_b = %fc_2_b, %mproj_w = %mproj_2_w, %mproj_b = %mproj_2_b)
      : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<f32>, tensor<64x64xi1>, tensor<f32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32> {
    %n1_2, %m1_2, %r1_2 = ckpt.layer_norm %in weight %ln1_w bias %ln1_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %qkv_2 = ckpt.linear %n1_2, %attn_w, %attn_b : (tensor<2x64x128xf32>, tensor<384x128xf32>, tensor<384xf32>) -> tensor<2x64x384xf32>
    %qf_2 = ckpt.slice %qkv_2 dim = 2 start = 0 end = 128 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %qh_2 = ckpt.reshape %qf_2 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %q_2 = ckpt.transpose %qh_2 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kf_2 = ckpt.slice %qkv_2 dim = 2 start = 128 end = 256 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %kh_2 = ckpt.reshape %kf_2 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %k_2 = ckpt.transpose %kh_2 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %vf_2 = ckpt.slice %qkv_2 dim = 2 start = 256 end = 384 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %vh_2 = ckpt.reshape %vf_2 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %v_2 = ckpt.transpose %vh_2 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kt_2 = ckpt.transpose %k_2 permutation = [0, 1, 3, 2] : tensor<2x4x64x32xf32> -> tensor<2x4x32x64xf32>
    %qk_2 = ckpt.matmul %q_2, %kt_2 : (tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32>) -> tensor<2x4x64x64xf32>
    %sc_2 = ckpt.mul %qk_2, %att_scale : (tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %masked_2 = ckpt.where %mask, %sc_2, %masked_value : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %att_2 = ckpt.softmax %masked_2 dim = 3 : tensor<2x4x64x64xf32>
    %attd_2 = ckpt.dropout %att_2 p = 1.000000e-01 : tensor<2x4x64x64xf32>
    %ctx_2 = ckpt.matmul %attd_2, %v_2 : (tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
    %ctxt_2 = ckpt.transpose %ctx_2 permutation = [0, 2, 1, 3] : tensor<2x4x64x32xf32> -> tensor<2x64x4x32xf32>
    %ctxm_2 = ckpt.reshape %ctxt_2 : tensor<2x64x4x32xf32> -> tensor<2x64x128xf32>
    %ao_2 = ckpt.linear %ctxm_2, %aproj_w, %aproj_b : (tensor<2x64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %aod_2 = ckpt.dropout %ao_2 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res1_2 = ckpt.add %in, %aod_2 : tensor<2x64x128xf32>
    // block 2: MLP
    %n2_2, %m2_2, %r2_2 = ckpt.layer_norm %res1_2 weight %ln2_w bias %ln2_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %fc_2 = ckpt.linear %n2_2, %fc_w, %fc_b : (tensor<2x64x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<2x64x512xf32>
    %gelu_2 = ckpt.gelu %fc_2 approximate = tanh : tensor<2x64x512xf32>
    %mo_2 = ckpt.linear %gelu_2, %mproj_w, %mproj_b : (tensor<2x64x512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %mod_2 = ckpt.dropout %mo_2 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res2_2 = ckpt.add %res1_2, %mod_2 : tensor<2x64x128xf32>
    ckpt.yield %res2_2 : tensor<2x64x128xf32>
  }
  // block 3: attention
  %res2_3 = ckpt.checkpoint(%in = %res2_2, %ln1_w = %ln1_3_w, %ln1_b = %ln1_3_b, %attn_w = %attn_3_w, %attn_b = %attn_3_b, %att_scale = %scale, %mask = %causal, %masked_value = %neg_inf, %aproj_w = %aproj_3_w, %aproj_b = %aproj_3_b, %ln2_w = %ln2_3_w, %ln2_b = %ln2_3_b, %fc_w = %fc_3_w, %fc_b = %fc_3_b, %mproj_w = %mproj_3_w, %mproj_b = %mproj_3_b)
      : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<f32>, tensor<64x64xi1>, tensor<f32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32> {
    %n1_3, %m1_3, %r1_3 = ckpt.layer_norm %in weight %ln1_w bias %ln1_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %qkv_3 = ckpt.linear %n1_3, %attn_w, %attn_b : (tensor<2x64x128xf32>, tensor<384x128xf32>, tensor<384xf32>) -> tensor<2x64x384xf32>
    %qf_3 = ckpt.slice %qkv_3 dim = 2 start = 0 end = 128 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %qh_3 = ckpt.reshape %qf_3 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %q_3 = ckpt.transpose %qh_3 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kf_3 = ckpt.slice %qkv_3 dim = 2 start = 128 end = 256 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %kh_3 = ckpt.reshape %kf_3 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %k_3 = ckpt.transpose %kh_3 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %vf_3 = ckpt.slice %qkv_3 dim = 2 start = 256 end = 384 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
    %vh_3 = ckpt.reshape %vf_3 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %v_3 = ckpt.transpose %vh_3 permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
    %kt_3 = ckpt.transpose %k_3 permutation = [0, 1, 3, 2] : tensor<2x4x64x32xf32> -> tensor<2x4x32x64xf32>
    %qk_3 = ckpt.matmul %q_3, %kt_3 : (tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32>) -> tensor<2x4x64x64xf32>
    %sc_3 = ckpt.mul %qk_3, %att_scale : (tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %masked_3 = ckpt.where %mask, %sc_3, %masked_value : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %att_3 = ckpt.softmax %masked_3 dim = 3 : tensor<2x4x64x64xf32>
    %attd_3 = ckpt.dropout %att_3 p = 1.000000e-01 : tensor<2x4x64x64xf32>
    %ctx_3 = ckpt.matmul %attd_3, %v_3 : (tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
    %ctxt_3 = ckpt.transpose %ctx_3 permutation = [0, 2, 1, 3] : tensor<2x4x64x32xf32> -> tensor<2x64x4x32xf32>
    %ctxm_3 = ckpt.reshape %ctxt_3 : tensor<2x64x4x32xf32> -> tensor<2x64x128xf32>
    %ao_3 = ckpt.linear %ctxm_3, %aproj_w, %aproj_b : (tensor<2x64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %aod_3 = ckpt.dropout %ao_3 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res1_3 = ckpt.add %in, %aod_3 : tensor<2x64x128xf32>
    // block 3: MLP
    %n2_3, %m2_3, %r2_3 = ckpt.layer_norm %res1_3 weight %ln2_w bias %ln2_b normalized_shape = [128]
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
    %fc_3 = ckpt.linear %n2_3, %fc_w, %fc_b : (tensor<2x64x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<2x64x512xf32>
    %gelu_3 = ckpt.gelu %fc_3 approximate = tanh : tensor<2x64x512xf32>
    %mo_3 = ckpt.linear %gelu_3, %mproj_w, %mproj_b : (tensor<2x64x512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
    %mod_3 = ckpt.dropout %mo_3 p = 1.000000e-01 : tensor<2x64x128xf32>
    %res2_3 = ckpt.add %res1_3, %mod_3 : tensor<2x64x128xf32>
    ckpt.yield %res2_3 : tensor<2x64x128xf32>
  }
  %nf, %mf, %rf = ckpt.layer_norm %res2_3 weight %lnf_w bias %lnf_b normalized_shape = [128]
      : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
  %logits = ckpt.linear %nf, %wte : (tensor<2x64x128xf32>, tensor<1024x128xf32>) -> tensor<2x64x1024xf32>
  %flat = ckpt.reshape %logits : tensor<2x64x1024xf32> -> tensor<128x1024xf32>
  %loss = ckpt.cross_entropy %flat, %labels : (tensor<128x1024xf32>, tensor<128xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
