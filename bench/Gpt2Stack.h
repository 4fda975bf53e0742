//===- Gpt2Stack.h - the GPT-2-style decoder with any number of blocks ---===//
//
// The bundled examples/gpt2_stack.mlir (B=2, T=64, D=128, 4 heads,
// vocabulary 1024, dropout 0.1, LM head tied to the token embedding) with
// `blocks` pre-LayerNorm blocks instead of 4, as forward-graph text.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_BENCH_GPT2STACK_H
#define CKPT_BENCH_GPT2STACK_H

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ckpt::bench {

/// The GPT-2-style stack with `blocks` blocks, as text.
inline std::string gpt2Stack(int blocks) {
  const char *params[][2] = {
      {"ln1_{b}_w", "tensor<128xf32>"},     {"ln1_{b}_b", "tensor<128xf32>"},
      {"attn_{b}_w", "tensor<384x128xf32>"}, {"attn_{b}_b", "tensor<384xf32>"},
      {"aproj_{b}_w", "tensor<128x128xf32>"}, {"aproj_{b}_b", "tensor<128xf32>"},
      {"ln2_{b}_w", "tensor<128xf32>"},     {"ln2_{b}_b", "tensor<128xf32>"},
      {"fc_{b}_w", "tensor<512x128xf32>"},  {"fc_{b}_b", "tensor<512xf32>"},
      {"mproj_{b}_w", "tensor<128x512xf32>"}, {"mproj_{b}_b", "tensor<128xf32>"}};
  // One block; {b} is its index, {in} the residual stream it reads.
  const char *block = R"(
  %n1_{b}, %m1_{b}, %r1_{b} = ckpt.layer_norm {in} weight %ln1_{b}_w bias %ln1_{b}_b normalized_shape = [128] : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
  %qkv_{b} = ckpt.linear %n1_{b}, %attn_{b}_w, %attn_{b}_b : (tensor<2x64x128xf32>, tensor<384x128xf32>, tensor<384xf32>) -> tensor<2x64x384xf32>
  %qf_{b} = ckpt.slice %qkv_{b} dim = 2 start = 0 end = 128 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
  %qh_{b} = ckpt.reshape %qf_{b} : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
  %q_{b} = ckpt.transpose %qh_{b} permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
  %kf_{b} = ckpt.slice %qkv_{b} dim = 2 start = 128 end = 256 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
  %kh_{b} = ckpt.reshape %kf_{b} : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
  %k_{b} = ckpt.transpose %kh_{b} permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
  %vf_{b} = ckpt.slice %qkv_{b} dim = 2 start = 256 end = 384 : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
  %vh_{b} = ckpt.reshape %vf_{b} : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
  %v_{b} = ckpt.transpose %vh_{b} permutation = [0, 2, 1, 3] : tensor<2x64x4x32xf32> -> tensor<2x4x64x32xf32>
  %kt_{b} = ckpt.transpose %k_{b} permutation = [0, 1, 3, 2] : tensor<2x4x64x32xf32> -> tensor<2x4x32x64xf32>
  %qk_{b} = ckpt.matmul %q_{b}, %kt_{b} : (tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32>) -> tensor<2x4x64x64xf32>
  %sc_{b} = ckpt.mul %qk_{b}, %scale : (tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
  %masked_{b} = ckpt.where %causal, %sc_{b}, %neg_inf : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
  %att_{b} = ckpt.softmax %masked_{b} dim = 3 : tensor<2x4x64x64xf32>
  %attd_{b} = ckpt.dropout %att_{b} p = 1.000000e-01 : tensor<2x4x64x64xf32>
  %ctx_{b} = ckpt.matmul %attd_{b}, %v_{b} : (tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
  %ctxt_{b} = ckpt.transpose %ctx_{b} permutation = [0, 2, 1, 3] : tensor<2x4x64x32xf32> -> tensor<2x64x4x32xf32>
  %ctxm_{b} = ckpt.reshape %ctxt_{b} : tensor<2x64x4x32xf32> -> tensor<2x64x128xf32>
  %ao_{b} = ckpt.linear %ctxm_{b}, %aproj_{b}_w, %aproj_{b}_b : (tensor<2x64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
  %aod_{b} = ckpt.dropout %ao_{b} p = 1.000000e-01 : tensor<2x64x128xf32>
  %res1_{b} = ckpt.add {in}, %aod_{b} : tensor<2x64x128xf32>
  %n2_{b}, %m2_{b}, %r2_{b} = ckpt.layer_norm %res1_{b} weight %ln2_{b}_w bias %ln2_{b}_b normalized_shape = [128] : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
  %fc_{b} = ckpt.linear %n2_{b}, %fc_{b}_w, %fc_{b}_b : (tensor<2x64x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<2x64x512xf32>
  %gelu_{b} = ckpt.gelu %fc_{b} approximate = tanh : tensor<2x64x512xf32>
  %mo_{b} = ckpt.linear %gelu_{b}, %mproj_{b}_w, %mproj_{b}_b : (tensor<2x64x512xf32>, tensor<128x512xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
  %mod_{b} = ckpt.dropout %mo_{b} p = 1.000000e-01 : tensor<2x64x128xf32>
  %res2_{b} = ckpt.add %res1_{b}, %mod_{b} : tensor<2x64x128xf32>)";
  auto instantiate = [](std::string text, int b, const std::string &in) {
    std::string index = std::to_string(b);
    for (auto [key, value] : {std::pair<std::string, std::string>{"{b}", index},
                              {"{in}", in}})
      for (size_t at; (at = text.find(key)) != std::string::npos;)
        text.replace(at, key.size(), value);
    return text;
  };

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @gpt2(%tokens: tensor<2x64xi64>, %labels: tensor<128xi64>, "
        "%causal: tensor<64x64xi1>, %wte: tensor<1024x128xf32> {ckpt.param}, "
        "%wpe: tensor<64x128xf32> {ckpt.param}";
  for (int b = 0; b < blocks; ++b)
    for (auto [name, type] : params)
      os << ", %" << instantiate(name, b, "") << ": " << type
         << " {ckpt.param}";
  os << ", %lnf_w: tensor<128xf32> {ckpt.param}, %lnf_b: tensor<128xf32> "
        "{ckpt.param}) -> tensor<f32> {\n";
  os << "  %positions = arith.constant dense<[";
  for (int t = 0; t < 64; ++t)
    os << (t ? ", " : "") << t;
  os << R"(]> : tensor<64xi64>
  %scale = arith.constant dense<1.767767e-01> : tensor<f32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<f32>
  %tok = ckpt.embedding %tokens, %wte : (tensor<2x64xi64>, tensor<1024x128xf32>) -> tensor<2x64x128xf32>
  %pos = ckpt.embedding %positions, %wpe : (tensor<64xi64>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %emb = ckpt.add %tok, %pos : (tensor<2x64x128xf32>, tensor<64x128xf32>) -> tensor<2x64x128xf32>
  %x = ckpt.dropout %emb p = 1.000000e-01 : tensor<2x64x128xf32>)";
  std::string stream = "%x";
  for (int b = 0; b < blocks; ++b) {
    os << instantiate(block, b, stream);
    stream = "%res2_" + std::to_string(b);
  }
  os << "\n  %nf, %mf, %rf = ckpt.layer_norm " << stream
     << R"( weight %lnf_w bias %lnf_b normalized_shape = [128] : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<2x64x128xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>)
  %logits = ckpt.linear %nf, %wte : (tensor<2x64x128xf32>, tensor<1024x128xf32>) -> tensor<2x64x1024xf32>
  %flat = ckpt.reshape %logits : tensor<2x64x1024xf32> -> tensor<128x1024xf32>
  %loss = ckpt.cross_entropy %flat, %labels : (tensor<128x1024xf32>, tensor<128xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
)";
  return text;
}

} // namespace ckpt::bench

#endif // CKPT_BENCH_GPT2STACK_H
