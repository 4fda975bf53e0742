//===- MlpStack.h - the article's MLP stack with any number of blocks ----===//
//
// The benchmarks' model: LayerNorm, Linear(D,4D), GELU, Linear(4D,D) and a
// residual add per block, at B=8, L=512, D=512 fp32, as forward-graph text.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_BENCH_MLPSTACK_H
#define CKPT_BENCH_MLPSTACK_H

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ckpt::bench {

/// The MLP stack with `blocks` residual blocks, as text.
inline std::string mlpStack(int blocks) {
  const std::string act = "tensor<8x512x512xf32>";
  const std::string wide = "tensor<8x512x2048xf32>";
  const std::string stats = "tensor<8x512x1xf32>";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @mlp(%x: " << act;
  for (int b = 0; b < blocks; ++b)
    os << ", %g" << b << ": tensor<512xf32> {ckpt.param}, %be" << b
       << ": tensor<512xf32> {ckpt.param}, %w1_" << b
       << ": tensor<2048x512xf32> {ckpt.param}, %b1_" << b
       << ": tensor<2048xf32> {ckpt.param}, %w2_" << b
       << ": tensor<512x2048xf32> {ckpt.param}, %b2_" << b
       << ": tensor<512xf32> {ckpt.param}";
  os << ") -> tensor<f32> {\n";
  std::string h = "%x";
  for (int b = 0; b < blocks; ++b) {
    std::string n = std::to_string(b);
    os << "  %n" << n << ", %m" << n << ", %r" << n << " = ckpt.layer_norm "
       << h << " weight %g" << n << " bias %be" << n
       << " normalized_shape = [512] : (" << act
       << ", tensor<512xf32>, tensor<512xf32>) -> (" << act << ", " << stats
       << ", " << stats << ")\n";
    os << "  %h" << n << " = ckpt.linear %n" << n << ", %w1_" << n << ", %b1_"
       << n << " : (" << act << ", tensor<2048x512xf32>, tensor<2048xf32>) -> "
       << wide << "\n";
    os << "  %a" << n << " = ckpt.gelu %h" << n << " : " << wide << "\n";
    os << "  %o" << n << " = ckpt.linear %a" << n << ", %w2_" << n << ", %b2_"
       << n << " : (" << wide << ", tensor<512x2048xf32>, tensor<512xf32>) -> "
       << act << "\n";
    os << "  %y" << n << " = ckpt.add " << h << ", %o" << n << " : " << act
       << "\n";
    h = "%y" + n;
  }
  os << "  %loss = ckpt.reduce_mean " << h << " : " << act
     << " -> tensor<f32>\n  return %loss : tensor<f32>\n}\n";
  return text;
}

} // namespace ckpt::bench

#endif // CKPT_BENCH_MLPSTACK_H
