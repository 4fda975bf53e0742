// Parses a ckpt forward graph with the installed dialect and prints it back.
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext context;
  context.loadDialect<ckpt::CkptDialect, mlir::func::FuncDialect>();
  const char *text = R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<16x8xf32> {ckpt.param}) -> tensor<f32> {
      %h = ckpt.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
      %l = ckpt.reduce_mean %h : tensor<4x16xf32> -> tensor<f32>
      return %l : tensor<f32>
    })mlir";
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 1;
  module->print(llvm::outs());
  return 0;
}
