//===- ckpt-compile.cpp - a planned step as an executable or a library ----===//
//
// Lowers a training step as ckpt-run does, compiles it ahead of time for
// this processor (and its kernels for a GPU architecture), and links it
// with the runtime alone into an executable that runs it like ckpt-run, or
// into a shared library with the C interface of ckpt_step.h. Neither needs
// MLIR or LLVM at run time; both give ckpt-run's bits.
//
//===----------------------------------------------------------------------===//

#include "CompileConfig.h"
#include "StepHeader.inc"

#include "ckpt/Execution/Step.h"
#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/StepDriver.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace cl = llvm::cl;

// Only these options appear in --help (LLVM registers hundreds of its own).
static cl::OptionCategory compileCategory("ckpt-compile options");
static ckpt::StepOptions stepOptions(compileCategory);

static cl::opt<std::string> outputFile("o",
                                       cl::desc("The executable (or, with "
                                                "--shared, library) to write"),
                                       cl::value_desc("path"), cl::Required,
                                       cl::cat(compileCategory));
static cl::opt<std::string>
    chip("chip",
         cl::desc("GPU architecture of the kernels with --device=cuda "
                  "(default sm_90: H100/H200; host: this machine's first "
                  "GPU's)"),
         cl::init("sm_90"), cl::cat(compileCategory));
static cl::opt<bool> shared(
    "shared",
    cl::desc("Write a shared library with the C interface of ckpt_step.h "
             "(written beside it) instead of an executable"),
    cl::init(false), cl::cat(compileCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "ckpt-compile: error: " << message << "\n";
  return 1;
}

/// Adds `wrapper(void **)`, which calls `function` with the values the
/// pointers point at and stores its result through the pointer after them:
/// the packed interface the runtime's driver calls (as MLIR's JIT builds).
static llvm::Function *addPackedWrapper(llvm::Module &module,
                                        llvm::Function &function,
                                        llvm::StringRef wrapperName) {
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::get(context, 0);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {pointer}, false),
      llvm::GlobalValue::InternalLinkage, wrapperName, module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", wrapper));
  llvm::Value *fields = wrapper->getArg(0);
  llvm::SmallVector<llvm::Value *> arguments;
  for (auto [index, argument] : llvm::enumerate(function.args())) {
    llvm::Value *slot = builder.CreateConstGEP1_64(pointer, fields, index);
    llvm::Value *address = builder.CreateLoad(pointer, slot);
    arguments.push_back(builder.CreateLoad(argument.getType(), address));
  }
  llvm::Value *result = builder.CreateCall(&function, arguments);
  if (!function.getReturnType()->isVoidTy()) {
    llvm::Value *slot =
        builder.CreateConstGEP1_64(pointer, fields, function.arg_size());
    builder.CreateStore(result, builder.CreateLoad(pointer, slot));
  }
  builder.CreateRetVoid();
  return wrapper;
}

/// Replaces the module's `llvm.global_ctors` or `llvm.global_dtors` (on the
/// GPU: loading and unloading the kernels' binary) with a function that
/// calls them in their order, for the runtime to call once the device is
/// open; a constructor run before main would find no driver. Null when
/// there are none.
static llvm::Constant *takeGlobalStructors(llvm::Module &module,
                                           llvm::StringRef arrayName,
                                           llvm::StringRef functionName) {
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::get(context, 0);
  llvm::GlobalVariable *array = module.getGlobalVariable(arrayName);
  if (!array)
    return llvm::ConstantPointerNull::get(pointer);
  // (priority, function); constructors run by ascending priority,
  // destructors by descending.
  llvm::SmallVector<std::pair<uint64_t, llvm::Constant *>> structors;
  if (auto *entries = dyn_cast<llvm::ConstantArray>(array->getInitializer()))
    for (llvm::Value *entry : entries->operands()) {
      auto *fields = cast<llvm::ConstantStruct>(entry);
      structors.push_back(
          {cast<llvm::ConstantInt>(fields->getOperand(0))->getZExtValue(),
           fields->getOperand(1)});
    }
  llvm::stable_sort(structors, [&](const auto &a, const auto &b) {
    return arrayName == "llvm.global_ctors" ? a.first < b.first
                                            : a.first > b.first;
  });
  array->eraseFromParent();
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::InternalLinkage, functionName, module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", function));
  for (auto [priority, callee] : structors)
    builder.CreateCall(type, callee);
  builder.CreateRetVoid();
  return function;
}

/// Writes `text` to `path` (a header).
static int writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return fail("cannot write '" + path + "': " + error.message());
  os << text;
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "ckpt-compile: compiles a ckpt training step into an executable that "
      "runs it as ckpt-run does, or a shared library (--shared), needing no "
      "MLIR or LLVM at run time\n");
  std::string message;
  std::optional<ckpt::StepDevice> stepDevice = stepOptions.check(message);
  if (!stepDevice)
    return fail(message);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  std::unique_ptr<ckpt::LoadedStep> loaded = ckpt::loadStep(
      stepOptions.inputFile, stepOptions.functionName, *stepDevice, message);
  if (!loaded)
    return message.empty() ? 1 : fail(message);
  ModuleOp module = *loaded->module;
  const ckpt::runtime::StepSpec *spec = &loaded->spec;
  std::string kernelChip = chip;
  if (*stepDevice == ckpt::StepDevice::Cuda && chip == "host") {
    if (!ckpt::runtime::openCudaDevice(0, message))
      return fail("--chip=host: " + message);
    kernelChip = ckpt::runtime::getCudaDeviceChip();
  }
  if (failed(ckpt::lowerStep(module, *stepDevice, kernelChip,
                             stepOptions.permuteGpuIterations)))
    return 1;

  auto host = ckpt::createHostTargetMachine();
  if (!host)
    return fail("cannot target this processor: " +
                llvm::toString(host.takeError()));
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> step =
      translateModuleToLLVMIR(module, llvmContext, spec->name);
  if (!step)
    return fail("cannot translate '" + stepOptions.inputFile + "' to LLVM IR");
  step->setDataLayout((*host)->createDataLayout());
  step->setTargetTriple((*host)->getTargetTriple());

  // The entry points and the description, in one global the runtime's
  // main (or C interface) reads.
  auto *pointer = llvm::PointerType::get(llvmContext, 0);
  auto wrap = [&](llvm::StringRef name,
                  llvm::StringRef wrapperName) -> llvm::Constant * {
    llvm::Function *function = step->getFunction(name);
    if (!function)
      return llvm::ConstantPointerNull::get(pointer);
    return addPackedWrapper(*step, *function, wrapperName);
  };
  llvm::Constant *entry = wrap(spec->name, "ckpt_packed_step");
  if (isa<llvm::ConstantPointerNull>(entry))
    return fail("'" + spec->name + "' is not in the lowered module");
  llvm::Constant *forward = wrap(spec->forwardName, "ckpt_packed_forward");
  llvm::Constant *specData = llvm::ConstantDataArray::getString(
      llvmContext, ckpt::runtime::serializeStepSpec(*spec));
  auto *description = new llvm::GlobalVariable(
      *step, specData->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, specData, "ckpt_step_spec");
  llvm::Constant *initialize =
      takeGlobalStructors(*step, "llvm.global_ctors", "ckpt_initialize_step");
  llvm::Constant *finalize =
      takeGlobalStructors(*step, "llvm.global_dtors", "ckpt_finalize_step");
  auto *compiledType = llvm::StructType::get(
      llvmContext, {pointer, pointer, pointer, pointer, pointer});
  new llvm::GlobalVariable(
      *step, compiledType, /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(
          compiledType, {entry, forward, initialize, finalize, description}),
      ckpt::runtime::kCompiledStepSymbol);

  if (stepOptions.optLevel > 0)
    if (llvm::Error error = ckpt::makeStepOptimizer(stepOptions.optLevel,
                                                    host->get())(step.get()))
      return fail("optimising the step failed: " +
                  llvm::toString(std::move(error)));

  // The object, then the link, into temporary files: the output appears
  // whole or not at all.
  llvm::SmallString<128> object, exports, linked;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("ckpt-step", "o", object))
    return fail("cannot create a temporary file: " + error.message());
  linked = outputFile + ".partial";
  llvm::scope_exit removeTemporaries([&] {
    for (llvm::StringRef temporary : {object, exports, linked})
      if (!temporary.empty())
        llvm::sys::fs::remove(temporary);
  });
  {
    std::error_code error;
    llvm::raw_fd_ostream os(object, error);
    if (error)
      return fail("cannot write '" + object + "': " + error.message());
    llvm::legacy::PassManager codegen;
    if ((*host)->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return fail("this processor's target cannot write object files");
    codegen.run(*step);
  }

  // The runtime's archives are in the library directory beside the
  // directory of this executable (the build tree's and an install's).
  llvm::SmallString<128> libraryDir(
      llvm::sys::fs::getMainExecutable(argv[0], (void *)&fail));
  llvm::sys::path::remove_filename(libraryDir);
  llvm::sys::path::append(libraryDir, "..", "lib");
  auto archive = [&](llvm::StringRef name) {
    llvm::SmallString<128> path(libraryDir);
    llvm::sys::path::append(path, "lib" + name + ".a");
    return std::string(path);
  };
  std::string front = archive(shared ? "CkptStepLibrary" : "CkptStepMain");
  std::string runtime = archive("CkptRuntime");
  for (const std::string &path : {front, runtime})
    if (!llvm::sys::fs::exists(path))
      return fail("the runtime library '" + path + "' is missing");

  std::string compiler = CKPT_COMPILE_CXX;
  if (const char *cxx = std::getenv("CXX"); cxx && *cxx)
    compiler = cxx;
  // A name is looked up in PATH; a path must be a program.
  llvm::ErrorOr<std::string> program =
      llvm::StringRef(compiler).contains('/')
          ? (llvm::sys::fs::can_execute(compiler)
                 ? llvm::ErrorOr<std::string>(compiler)
                 : std::make_error_code(std::errc::no_such_file_or_directory))
          : llvm::sys::findProgramByName(compiler);
  if (!program)
    return fail("no C++ compiler to link with: '" + compiler + "' (set CXX)");
  llvm::SmallVector<std::string> args = {compiler, "-o", linked.str().str(),
                                         object.str().str()};
  if (shared) {
    // The library exports the C interface alone (the C++ library's
    // templates would otherwise leave too).
    if (std::error_code error =
            llvm::sys::fs::createTemporaryFile("ckpt-step", "map", exports))
      return fail("cannot create a temporary file: " + error.message());
    if (int status =
            writeFile(exports, "{ global: ckpt_step_*; local: *; };\n"))
      return status;
    args.append({"-shared", "-Wl,--version-script=" + exports.str().str(),
                 "-Wl,--whole-archive", front, "-Wl,--no-whole-archive"});
  } else
    args.push_back(front);
  args.push_back(runtime);
  for (llvm::StringRef flag :
       llvm::split(llvm::StringRef(CKPT_COMPILE_LINK_LIBRARIES), ';'))
    if (!flag.empty())
      args.push_back(flag.str());
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string error;
  int status = llvm::sys::ExecuteAndWait(*program, argRefs, std::nullopt, {}, 0,
                                         0, &error);
  if (status != 0) {
    std::string command;
    for (const std::string &arg : args)
      command += (command.empty() ? "" : " ") + arg;
    return fail("linking failed" + (error.empty() ? "" : ": " + error) +
                "\n  " + command);
  }
  if (shared) {
    llvm::SmallString<128> header(outputFile);
    llvm::sys::path::remove_filename(header);
    llvm::sys::path::append(header, "ckpt_step.h");
    if (int status = writeFile(header, kStepHeader))
      return status;
  }
  if (std::error_code error = llvm::sys::fs::rename(linked, outputFile))
    return fail("cannot write '" + outputFile + "': " + error.message());
  return 0;
}
