// ckpt-export-torch-plan (executor=ops, the default) writes a planned step
// as PyTorch's op calls and the outputs the plan drops, decided per storage:
// sqrt keeps tanh0, the second block's input, and recomputes the second
// block. Autograd saves tanh1 (storage 6), which the plan drops; its rerun
// reads mm1 (storage 5), dropped too; mm1's rerun reads tanh0 and w1, both
// kept. So calls 2 and 3 drop their outputs.
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan=output=%t.json -o /dev/null
// RUN: FileCheck %s --check-prefix=SQRT --input-file %t.json
// Without a plan nothing is dropped.
// RUN: ckpt-opt %S/Inputs/torch-calls-two-blocks.mlir --ckpt-pipeline=strategy=none --ckpt-export-torch-plan -o /dev/null | FileCheck %s --check-prefix=NONE
// A call that writes what the run found in place (as batch norm writes
// its running statistics) never runs again: tanh1 writing w1 keeps its
// output, fixed.
// RUN: sed 's/writes = array<i64>/writes = array<i64: 3, 2>/' %S/Inputs/torch-calls-two-blocks.mlir > %t.found.mlir
// RUN: ckpt-opt %t.found.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan -o /dev/null | FileCheck %s --check-prefixes=NONE,FOUND
// Unless none of the call's outputs reads what it writes there (the import
// found so; batch norm's outputs do not read its running statistics): its
// rerun writes a scratch copy of that argument, listed in `scratch`, and
// the plan is sqrt's. mm1 writing w1, its second tensor argument:
// RUN: sed 's/writes = array<i64>/writes = array<i64: 2, 2>, scratch = array<i64: 2, 1>/' %S/Inputs/torch-calls-two-blocks.mlir > %t.scratch.mlir
// RUN: ckpt-opt %t.scratch.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan -o /dev/null | FileCheck %s --check-prefix=SCRATCH
// A rerun of mm1 would read tanh0, kept, after the sum wrote it in place:
// mm1 is kept, and tanh1 comes back from it.
// RUN: sed 's/writes = array<i64>/writes = array<i64: 4, 4>/' %S/Inputs/torch-calls-two-blocks.mlir > %t.written.mlir
// RUN: ckpt-opt %t.written.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan -o /dev/null | FileCheck %s --check-prefix=WRITTEN
// A call whose rerun may not repeat its bits keeps its outputs.
// RUN: sed 's/writes = array<i64>/writes = array<i64>, nondeterministic = array<i64: 3>/' %S/Inputs/torch-calls-two-blocks.mlir > %t.nondeterministic.mlir
// RUN: ckpt-opt %t.nondeterministic.mlir --ckpt-pipeline=strategy=sqrt --ckpt-export-torch-plan -o /dev/null | FileCheck %s --check-prefixes=NONE,NONDETERMINISTIC

// SQRT:      "ckpt_saved_bytes": 256,
// SQRT-NEXT: "dropped": [
// SQRT-NEXT:   [
// SQRT-NEXT:     2,
// SQRT-NEXT:     0
// SQRT-NEXT:   ],
// SQRT-NEXT:   [
// SQRT-NEXT:     3,
// SQRT-NEXT:     0
// SQRT-NEXT:   ]
// SQRT-NEXT: ],
// SQRT-NEXT: "executor": "ops",
// SQRT-NEXT: "fixed": [],
// SQRT-NEXT: "format": "ckpt-torch-plan",
// SQRT-NEXT: "function": "two_blocks",
// SQRT-NEXT: "not_saved_as_planned": [],
// SQRT-NEXT: "ops": [
// SQRT-NEXT:   "aten.mm.default",
// SQRT-NEXT:   "aten.tanh.default",
// SQRT-NEXT:   "aten.mm.default",
// SQRT-NEXT:   "aten.tanh.default",
// SQRT-NEXT:   "aten.sum.default"
// SQRT-NEXT: ],
// The SHA-256 of the op names joined with newlines.
// SQRT-NEXT: "ops_sha256": "be4bf262d970a6ae1bdc45330a7a232da1d5ebd305641e69a403f97bd6b93434",
// SQRT-NEXT: "plan": "sqrt",
// SQRT-NEXT: "scratch": [],
// SQRT-NEXT: "step": "two_blocks_train",
// SQRT-NEXT: "version": 2

// NONE: "dropped": [],
// FOUND:      "fixed": [
// FOUND-NEXT:   [
// FOUND-NEXT:     3,
// FOUND-NEXT:     0
// FOUND-NEXT:   ]
// FOUND-NEXT: ],
// SCRATCH:      "dropped": [
// SCRATCH-NEXT:   [
// SCRATCH-NEXT:     2,
// SCRATCH-NEXT:     0
// SCRATCH-NEXT:   ],
// SCRATCH-NEXT:   [
// SCRATCH-NEXT:     3,
// SCRATCH-NEXT:     0
// SCRATCH-NEXT:   ]
// SCRATCH-NEXT: ],
// SCRATCH:      "fixed": [],
// SCRATCH:      "scratch": [
// SCRATCH-NEXT:   [
// SCRATCH-NEXT:     2,
// SCRATCH-NEXT:     1
// SCRATCH-NEXT:   ]
// SCRATCH-NEXT: ],
// WRITTEN:      "dropped": [
// WRITTEN-NEXT:   [
// WRITTEN-NEXT:     3,
// WRITTEN-NEXT:     0
// WRITTEN-NEXT:   ]
// WRITTEN-NEXT: ],
// NONDETERMINISTIC:      "fixed": [
// NONDETERMINISTIC-NEXT:   [
// NONDETERMINISTIC-NEXT:     3,
// NONDETERMINISTIC-NEXT:     0
// NONDETERMINISTIC-NEXT:   ]
// NONDETERMINISTIC-NEXT: ],
