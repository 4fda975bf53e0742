//===- FunctionBuilder.h - a function to build ops in, for unit tests -----===//
//
// A module with the ckpt and func dialects loaded, and a helper that opens a
// function with given argument types so tests can build ops on its
// arguments.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_UNITTESTS_DIALECT_FUNCTIONBUILDER_H
#define CKPT_UNITTESTS_DIALECT_FUNCTIONBUILDER_H

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

class FunctionBuilderTest : public ::testing::Test {
protected:
  FunctionBuilderTest() : builder(&context) {
    context.loadDialect<ckpt::CkptDialect, mlir::func::FuncDialect>();
    module = mlir::ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A new function whose arguments have `types`; ops are built in its body.
  mlir::ValueRange arguments(mlir::TypeRange types) {
    builder.setInsertionPointToEnd(module->getBody());
    auto func = mlir::func::FuncOp::create(
        builder, builder.getUnknownLoc(), "f",
        builder.getFunctionType(types, {}));
    mlir::Block *entry = func.addEntryBlock();
    builder.setInsertionPointToEnd(entry);
    return entry->getArguments();
  }

  mlir::RankedTensorType f32(llvm::ArrayRef<int64_t> shape) {
    return mlir::RankedTensorType::get(shape, builder.getF32Type());
  }
  mlir::RankedTensorType f64(llvm::ArrayRef<int64_t> shape) {
    return mlir::RankedTensorType::get(shape, builder.getF64Type());
  }
  mlir::RankedTensorType bf16(llvm::ArrayRef<int64_t> shape) {
    return mlir::RankedTensorType::get(shape, builder.getBF16Type());
  }

  mlir::MLIRContext context;
  mlir::OpBuilder builder;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

#endif // CKPT_UNITTESTS_DIALECT_FUNCTIONBUILDER_H
