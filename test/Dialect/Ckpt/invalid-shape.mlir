// Verifier messages of reshape, transpose, broadcast_to, slice and concat.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @below {{'ckpt.reshape' op element count changes from 6 to 8}}
  %y = ckpt.reshape %x : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<6xf32>) {
  // expected-error @below {{'ckpt.reshape' op failed to verify that all of {input, result} have same element type}}
  %y = ckpt.reshape %x : tensor<6xf32> -> tensor<2x3xf16>
  return
}

// -----

func.func @transpose_length(%x: tensor<2x3x4xf32>) {
  // expected-error @below {{'ckpt.transpose' op permutation has 2 entries but the input has rank 3}}
  %y = ckpt.transpose %x permutation = [1, 0] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_repeat(%x: tensor<2x3x4xf32>) {
  // expected-error @below {{'ckpt.transpose' op permutation [0, 0, 1] is not a permutation of 0..2}}
  %y = ckpt.transpose %x permutation = [0, 0, 1] : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @below {{'ckpt.transpose' op result 0 has type 'tensor<2x3xf32>' but the operands and attributes give 'tensor<3x2xf32>'}}
  %y = ckpt.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @below {{'ckpt.broadcast_to' op cannot broadcast rank 3 to the smaller rank 2}}
  %y = ckpt.broadcast_to %x : tensor<2x3x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<3x4xf32>) {
  // expected-error @below {{'ckpt.broadcast_to' op input dimension 0 of size 3 cannot broadcast to size 5}}
  %y = ckpt.broadcast_to %x : tensor<3x4xf32> -> tensor<2x5x4xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<4xi1>) {
  // expected-error @below {{'ckpt.broadcast_to' op failed to verify that all of {input, result} have same element type}}
  %y = ckpt.broadcast_to %x : tensor<4xi1> -> tensor<3x4xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.slice' op slice [0, 9) does not fit dimension 1 of size 8}}
  %y = ckpt.slice %x dim = 1 start = 0 end = 9 : tensor<2x8xf32> -> tensor<2x9xf32>
  return
}

// -----

func.func @slice_reversed(%x: tensor<2x?xf32>) {
  // expected-error @below {{'ckpt.slice' op slice [4, 2) does not fit dimension 1 of size ?}}
  %y = ckpt.slice %x dim = 1 start = 4 end = 2 : tensor<2x?xf32> -> tensor<2x0xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.slice' op step must be >= 1, got 0}}
  %y = ckpt.slice %x dim = 1 start = 0 end = 8 step = 0 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_dim(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.slice' op dim 2 is out of range for an input of rank 2}}
  %y = ckpt.slice %x dim = 2 start = 0 end = 1 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @below {{'ckpt.concat' op needs at least one input}}
  %y = "ckpt.concat"() <{dim = 0 : i64}> : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @below {{'ckpt.concat' op input 1 has rank 3 but input 0 has rank 2}}
  %y = ckpt.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @below {{'ckpt.concat' op input 1 has shape [4, 3], which differs from input 0 [2, 3] outside dim 1}}
  %y = ckpt.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2xf32>, %b: tensor<2xi64>) {
  // expected-error @below {{'ckpt.concat' op inputs must share one element type, got 'f32' and 'i64'}}
  %y = ckpt.concat %a, %b dim = 0 : (tensor<2xf32>, tensor<2xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<2xf32>) {
  // expected-error @below {{'ckpt.concat' op dim 1 is out of range for an input of rank 1}}
  %y = ckpt.concat %a dim = 1 : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// i1 elements: each input's 2^62 bytes fit 64 bits, their concatenation
// does not.
func.func @concat_overflow(%a: tensor<4611686018427387904xi1>) {
  // expected-error @below {{'ckpt.concat' op concatenated size along dim 0 overflows 64 bits}}
  %y = ckpt.concat %a, %a dim = 0 : (tensor<4611686018427387904xi1>, tensor<4611686018427387904xi1>) -> tensor<4xi1>
  return
}

// -----

// Every ckpt op's tensors have a byte size that fits 64 bits:
// 2^32 * 2^32 * 4 f32 elements are 2^68 bytes.
func.func @result_bytes_overflow(%w: tensor<4xf32>) {
  // expected-error @below {{'ckpt.broadcast_to' op result 0 ('tensor<4294967296x4294967296x4xf32>'): byte size overflows 64 bits}}
  %b = ckpt.broadcast_to %w : tensor<4xf32> -> tensor<4294967296x4294967296x4xf32>
  return
}

// -----

// The element width counts: 2^62 elements fit 64 bits, their 2^64 bytes
// in f32 do not.
func.func @operand_bytes_overflow(%x: tensor<4611686018427387904xf32>) {
  // expected-error @below {{'ckpt.neg' op operand 0 ('tensor<4611686018427387904xf32>'): byte size overflows 64 bits}}
  %y = ckpt.neg %x : tensor<4611686018427387904xf32>
  return
}

// -----

// A reshape between two overflowing shapes is caught before their element
// counts (which would wrap to the same number) are compared.
func.func @reshape_bytes_overflow(%x: tensor<4294967296x4294967297xi1>) {
  // expected-error @below {{'ckpt.reshape' op operand 0 ('tensor<4294967296x4294967297xi1>'): byte size overflows 64 bits}}
  %y = ckpt.reshape %x : tensor<4294967296x4294967297xi1> -> tensor<4294967296xi1>
  return
}
