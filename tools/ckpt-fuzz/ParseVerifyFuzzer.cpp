//===- ParseVerifyFuzzer.cpp - parse and verify arbitrary bytes -----------===//
//
// Custom op syntax, attribute parsing and every verifier of the ckpt dialect
// against whatever bytes come in: a parse error or a verifier error is
// fine, anything else is a finding. A module that verifies must print and
// parse back to a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::unique_ptr<MLIRContext> context = ckpt::fuzz::makeContext();
  OwningOpRef<ModuleOp> module =
      ckpt::fuzz::parseModule(ckpt::fuzz::asText(data, size), *context);
  if (!module)
    return 0;
  std::string printed;
  llvm::raw_string_ostream(printed) << *module;
  OwningOpRef<ModuleOp> reparsed = ckpt::fuzz::parseModule(printed, *context);
  ckpt::fuzz::fuzzCheck(reparsed && succeeded(verify(*reparsed)),
                        "a verified module does not round-trip:\n" + printed);
  return 0;
}
