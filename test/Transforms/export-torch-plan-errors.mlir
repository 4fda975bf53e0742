// ckpt-export-torch-plan's errors about its input: a step imported without
// --record-calls, a damaged record, and a record of another function.
// RUN: rm -f %t.json
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics --ckpt-pipeline=strategy=none --ckpt-export-torch-plan="output=%t.json executor=regions" -o /dev/null
// Nothing is written when the export fails.
// RUN: not test -e %t.json

// expected-error @below {{no record of PyTorch's op calls: import the model with 'ckpt-import-torch --record-calls'}}
module {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls' needs 'values', a dictionary}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = [], outputs = [], reads = [], storage_bytes = array<i64>,
  found_storages = array<i64>, modules = [], packs = array<i64>,
  writes = array<i64>}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'outputs' needs one entry per op call}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [],
  reads = [array<i64: 0>],
  storage_bytes = array<i64>, found_storages = array<i64>, modules = [],
  packs = array<i64>, writes = array<i64>,
  values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'outputs' names a storage it does not have}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 3>],
  reads = [array<i64: 0>],
  storage_bytes = array<i64: 16>, found_storages = array<i64: 0>,
  modules = [], packs = array<i64>,
  writes = array<i64>, values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'modules' needs {path, parent (an earlier entry or -1), calls = array<i64: first, end>, inputs} per module call}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>],
  storage_bytes = array<i64: 16, 4>, found_storages = array<i64: 0>,
  modules = [{path = "", parent = -1 : i64, calls = array<i64: 0, 2>,
              inputs = array<i64: 0>}],
  packs = array<i64>, writes = array<i64>,
  values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'packs' needs (module call, storage) pairs}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>],
  storage_bytes = array<i64: 16, 4>, found_storages = array<i64: 0>,
  modules = [{path = "", parent = -1 : i64, calls = array<i64: 0, 1>,
              inputs = array<i64: 0>}],
  packs = array<i64: 1, 0>, writes = array<i64>,
  values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'values' maps op names to array<i64: op call, output>}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>],
  storage_bytes = array<i64: 16, 4>, found_storages = array<i64: 0>,
  modules = [{path = "", parent = -1 : i64, calls = array<i64: 0, 1>,
              inputs = array<i64: 0>}],
  packs = array<i64>, writes = array<i64>,
  values = {"l" = array<i64: 0, 1>}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{no training step of 'g' to export; run ckpt-autodiff (or ckpt-pipeline) first}}
module attributes {ckpt.torch_calls = {
  function = "g", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>],
  storage_bytes = array<i64: 16, 4>, found_storages = array<i64: 0>,
  modules = [{path = "", parent = -1 : i64, calls = array<i64: 0, 1>,
              inputs = array<i64: 0>}],
  packs = array<i64>, writes = array<i64>,
  values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// The model has no submodule: nothing to make a region of.
// expected-error @below {{the model has no submodule call to make a checkpoint region of; name the regions with 'modules'}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>],
  storage_bytes = array<i64: 16, 4>, found_storages = array<i64: 0>,
  modules = [{path = "", parent = -1 : i64, calls = array<i64: 0, 1>,
              inputs = array<i64: 0>}],
  packs = array<i64>, writes = array<i64>,
  values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'reads' needs one entry per op call}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [], storage_bytes = array<i64: 16, 4>,
  found_storages = array<i64: 0>, modules = [], packs = array<i64>,
  writes = array<i64>, values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'reads' needs an array<i64> of storages per op call}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 2>], storage_bytes = array<i64: 16, 4>,
  found_storages = array<i64: 0>, modules = [], packs = array<i64>,
  writes = array<i64>, values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'nondeterministic' is an array<i64> of op calls}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>], storage_bytes = array<i64: 16, 4>,
  found_storages = array<i64: 0>, modules = [], packs = array<i64>,
  writes = array<i64>, nondeterministic = array<i64: 1>, values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}

// -----

// expected-error @below {{'ckpt.torch_calls': 'scratch' needs (op call, tensor argument) pairs}}
module attributes {ckpt.torch_calls = {
  function = "f", ops = ["aten.sum.default"], outputs = [array<i64: 1>],
  reads = [array<i64: 0>], storage_bytes = array<i64: 16, 4>,
  found_storages = array<i64: 0>, modules = [], packs = array<i64>,
  writes = array<i64>, scratch = array<i64: 0, 1>, values = {}}} {
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
}
