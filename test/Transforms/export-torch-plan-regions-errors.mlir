// ckpt-export-torch-plan's errors about its options: the executor, and the
// regions named with 'modules'.
// RUN: not ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan=executor=sac -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXECUTOR
// RUN: not ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan="modules=blocks.*" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPS
// RUN: not ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan="executor=regions modules=layers.*" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan="executor=regions modules=blocks.[" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GLOB
// A module whose op calls write its input in place cannot be a region:
// PyTorch's checkpoint holds the input for the recompute.
// RUN: sed 's/writes = array<i64>/writes = array<i64: 3, 4>/' %S/Inputs/torch-calls-two-blocks.mlir > %t.inplace.mlir
// RUN: not ckpt-opt %t.inplace.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan="executor=regions modules=blocks.*" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INPLACE
// Automatically, the region is left out.
// RUN: ckpt-opt %t.inplace.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan=executor=regions -o /dev/null | FileCheck %s --check-prefix=LEFT
// The plan must be materialised.
// RUN: not ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-autodiff --ckpt-plan=strategy=sqrt --ckpt-export-torch-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATERIALISE
// An unwritable output is an error, and nothing is left behind.
// RUN: not ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan=output=%t.missing/plan.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTPUT

// EXECUTOR: error: unknown executor 'sac'; expected ops or regions
// OPS: error: 'modules' names the regions of 'executor=regions'; the ops executor has none
// NONE: error: 'modules': no submodule call matches 'layers.*'
// GLOB: error: 'modules': 'blocks.[' is not a glob pattern: invalid glob pattern, unmatched '['
// INPLACE: error: 'modules': module 'blocks.1' writes its input in place (op call 3, aten.tanh.default), so PyTorch cannot checkpoint it
// LEFT:     "module": "blocks.0",
// LEFT-NOT: "module": "blocks.1",
// MATERIALISE: error: the plan is not materialised; run ckpt-insert-recompute first
// OUTPUT: error: cannot write the plan to '{{.*}}missing/plan.json': {{.*}}
