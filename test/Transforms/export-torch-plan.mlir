// ckpt-export-torch-plan=executor=regions writes a planned step as
// PyTorch's selective checkpointing: one region per block (the model's two
// submodule calls, chosen automatically), each op call saved when it makes
// a kept value, and the bytes PyTorch holds after forward without and with
// the plan.
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan="output=%t.sqrt.json executor=regions" -o /dev/null
// RUN: FileCheck %s --check-prefix=SQRT --input-file %t.sqrt.json
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=none --ckpt-export-torch-plan=executor=regions -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan="executor=regions modules=blocks.1" -o /dev/null | FileCheck %s --check-prefix=ONE
// The IR is unchanged.
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt > %t.before.mlir
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan=output=%t.json > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

// sqrt keeps tanh0 (the second block's input) and recomputes tanh1: the
// first block saves its tanh call, the second saves nothing, and PyTorch
// holds tanh0 alone (128 B) where autograd alone holds both.
// SQRT:      "ckpt_saved_bytes": 256,
// SQRT-NEXT: "executor": "regions",
// SQRT-NEXT: "format": "ckpt-torch-plan",
// SQRT-NEXT: "function": "two_blocks",
// SQRT-NEXT: "held_bytes": {
// SQRT-NEXT:   "outside_regions": 0,
// SQRT-NEXT:   "with_plan": 128,
// SQRT-NEXT:   "without_plan": 256
// SQRT-NEXT: },
// SQRT-NEXT: "not_saved_as_planned": [],
// SQRT-NEXT: "plan": "sqrt",
// SQRT-NEXT: "regions": [
// SQRT-NEXT:   {
// SQRT-NEXT:     "call": 0,
// SQRT-NEXT:     "held_bytes": 128,
// SQRT-NEXT:     "module": "blocks.0",
// SQRT-NEXT:     "ops": [
// SQRT-NEXT:       {
// SQRT-NEXT:         "occurrence": 0,
// SQRT-NEXT:         "op": "aten.mm.default",
// SQRT-NEXT:         "policy": "MUST_RECOMPUTE"
// SQRT-NEXT:       },
// SQRT-NEXT:       {
// SQRT-NEXT:         "occurrence": 0,
// SQRT-NEXT:         "op": "aten.tanh.default",
// SQRT-NEXT:         "outputs": [
// SQRT-NEXT:           0
// SQRT-NEXT:         ],
// SQRT-NEXT:         "policy": "MUST_SAVE"
// SQRT-NEXT:       }
// SQRT-NEXT:     ],
// The SHA-256 of "aten.mm.default\naten.tanh.default".
// SQRT-NEXT:     "ops_sha256": "8b9f580add3f1f4f54d78d6bcf20e06980c08c671c4c93a0002156ec409ba32d",
// SQRT-NEXT:     "recomputes": true
// SQRT-NEXT:   },
// SQRT-NEXT:   {
// SQRT-NEXT:     "call": 0,
// SQRT-NEXT:     "held_bytes": 128,
// SQRT-NEXT:     "module": "blocks.1",
// SQRT:            "policy": "MUST_RECOMPUTE"
// SQRT:            "policy": "MUST_RECOMPUTE"
// SQRT:        "step": "two_blocks_train",
// SQRT-NEXT:   "version": 2

// Without a plan every kept value is saved: PyTorch holds what autograd
// holds.
// NONE:      "held_bytes": {
// NONE-NEXT:   "outside_regions": 0,
// NONE-NEXT:   "with_plan": 256,
// NONE-NEXT:   "without_plan": 256
// NONE:      "module": "blocks.0",
// NONE:      "policy": "MUST_SAVE"
// NONE:      "module": "blocks.1",
// NONE:      "policy": "MUST_SAVE"

// With blocks.1 the only region, blocks.0 runs outside: autograd saves its
// tanh0 as it always does, and the region's input is that same tensor.
// ONE:      "held_bytes": {
// ONE-NEXT:   "outside_regions": 128,
// ONE-NEXT:   "with_plan": 128,
// ONE:      "regions": [
// ONE-NEXT:   {
// ONE-NEXT:     "call": 0,
// ONE-NEXT:     "held_bytes": 128,
// ONE-NEXT:     "module": "blocks.1",
// ONE:        "recomputes": true
// ONE-NEXT: }
// ONE-NEXT: ],
