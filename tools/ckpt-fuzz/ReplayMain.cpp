//===- ReplayMain.cpp - run a fuzz target over files without libFuzzer ----===//
//
// Builds without CKPT_ENABLE_FUZZERS link each target with this main, which
// runs it once per file named on the command line: the regression tests
// replay the seed corpus and every input a fuzzer once crashed on.
//
//===----------------------------------------------------------------------===//

#include "llvm/FuzzMutate/FuzzerCLI.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput);
}
