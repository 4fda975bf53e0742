// Verifier messages of index_add, print and all_reduce.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @index_rank(%x: tensor<6x4xf32>, %i: tensor<3x1xi64>, %s: tensor<3x4xf32>) {
  // expected-error @below {{'ckpt.index_add' op index must be 1-D, got rank 2}}
  %y = ckpt.index_add %x, %i, %s dim = 0 : (tensor<6x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @source_rank(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %s: tensor<3xf32>) {
  // expected-error @below {{'ckpt.index_add' op source has rank 1 but input has rank 2}}
  %y = ckpt.index_add %x, %i, %s dim = 0 : (tensor<6x4xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @index_count(%x: tensor<6x4xf32>, %i: tensor<2xi64>, %s: tensor<3x4xf32>) {
  // expected-error @below {{'ckpt.index_add' op source has 3 slices along dim 0 but index has 2 entries}}
  %y = ckpt.index_add %x, %i, %s dim = 0 : (tensor<6x4xf32>, tensor<2xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @source_shape(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %s: tensor<3x5xf32>) {
  // expected-error @below {{'ckpt.index_add' op source shape [3, 5] differs from input shape [6, 4] outside dim 0}}
  %y = ckpt.index_add %x, %i, %s dim = 0 : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x5xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @index_dim(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf32>) {
  // expected-error @below {{'ckpt.index_add' op dim 2 is out of range for an input of rank 2}}
  %y = ckpt.index_add %x, %i, %s dim = 2 : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @source_element_type(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf16>) {
  // expected-error @below {{'ckpt.index_add' op input and source must share one element type, got 'f32' and 'f16'}}
  %y = ckpt.index_add %x, %i, %s dim = 0 : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf16>) -> tensor<6x4xf32>
  return
}

// -----

func.func @all_reduce_type(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.all_reduce' op requires the same type for all operands and results}}
  %y = "ckpt.all_reduce"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @all_reduce_kind(%x: tensor<4xf32>) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'reduction' [sum, mean, max]}}
  %y = ckpt.all_reduce %x reduction = min : tensor<4xf32>
  return
}

// -----

func.func @print_unsupported_type(%x: tensor<4xi32>) {
  // expected-error @below {{'ckpt.print' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xi32>'}}
  ckpt.print %x : tensor<4xi32>
  return
}
