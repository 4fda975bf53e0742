# lit configuration of the ckpt regression tests.

import os
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "CKPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ckpt_obj_root, "test")
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

llvm_config.use_default_substitutions()
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%ckpt_src_root", config.ckpt_src_root))
config.substitutions.append(("%ckpt_obj_root", config.ckpt_obj_root))
config.substitutions.append(("%examples",
                             os.path.join(config.ckpt_src_root, "examples")))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Helper scripts in Inputs/ call the tools by name.
llvm_config.with_environment("PATH", config.ckpt_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["ckpt-opt", "ckpt-run", "ckpt-compile", "ckpt-fuzz-parse",
     "ckpt-fuzz-pipeline",
     "ckpt-fuzz-options"], [config.ckpt_tools_dir])

# An instrumented build's libraries need the sanitizer runtimes in whatever
# links them: the installed package's consumers are tested unsanitized.
if config.sanitized:
    config.available_features.add("sanitizers")

# The GPU pipeline's tests need ptxas (the CUDA toolkit CMake found); the
# tests that run kernels need a GPU and its driver.
if config.cuda_toolkit:
    config.available_features.add("cuda-toolkit")
try:
    gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                          text=True, timeout=30)
    if gpus.returncode == 0 and "GPU" in gpus.stdout:
        config.available_features.add("cuda-device")
except (OSError, subprocess.TimeoutExpired):
    pass

# The PyTorch bridge's tests need a Python that imports torch (CMake found
# it: CKPT_TORCH_PYTHON) and the package of python/ (setup installs it).
if config.torch_python:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", config.torch_python))
    llvm_config.add_tool_substitutions(["ckpt-import-torch"],
                                       [config.ckpt_tools_dir])
