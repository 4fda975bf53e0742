//===- FuzzSupport.h - what the fuzz targets share ------------------------===//
//
// Each input gets a fresh single-threaded context (attributes and types a
// context uniques would otherwise pile up over millions of inputs) whose
// diagnostics are dropped: bad input is expected, only crashes, sanitizer
// reports and broken invariants (`fuzzCheck`) are findings.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TOOLS_FUZZ_FUZZSUPPORT_H
#define CKPT_TOOLS_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ckpt::fuzz {

/// A context with the dialects of ckpt programs and of their lowering.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Parses (and verifies) `text` as a module; null when it is not one.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::StringRef text,
                                              mlir::MLIRContext &context);

/// Checks the IR after every pass that succeeds, and aborts when it does
/// not verify: with the pass manager's own verifier, IR a pass broke would
/// pass for a rejected input.
void verifyAfterEachPass(mlir::PassManager &pm);

/// Aborts with `what` unless `holds`: an invariant the tools promise broke.
void fuzzCheck(bool holds, llvm::StringRef what);

inline llvm::StringRef asText(const uint8_t *data, size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

} // namespace ckpt::fuzz

#endif // CKPT_TOOLS_FUZZ_FUZZSUPPORT_H
