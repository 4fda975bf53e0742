// ckpt-fold-transposes: a transpose of the last two dimensions that only
// matrix products read becomes their transpose flags; any other transpose
// stays.
// RUN: ckpt-opt %s --ckpt-fold-transposes -split-input-file | FileCheck %s
// Running it twice changes nothing the second time.
// RUN: ckpt-opt %s --ckpt-fold-transposes -split-input-file | ckpt-opt --ckpt-fold-transposes -split-input-file > %t.twice
// RUN: ckpt-opt %s --ckpt-fold-transposes -split-input-file | ckpt-opt -split-input-file | diff - %t.twice

// Attention's scores: q @ k^T reads k in place.
// CHECK-LABEL: func.func @scores
//  CHECK-SAME:   (%[[Q:.+]]: tensor<2x4x8x16xf32>, %[[K:.+]]: tensor<2x4x8x16xf32>)
//   CHECK-NOT:   ckpt.transpose
//       CHECK:   %[[S:.+]] = ckpt.matmul %[[Q]], %[[K]] transpose_rhs : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
//  CHECK-NEXT:   return %[[S]]
func.func @scores(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32> {
  %kt = ckpt.transpose %k permutation = [0, 1, 3, 2] : tensor<2x4x8x16xf32> -> tensor<2x4x16x8xf32>
  %s = ckpt.matmul %q, %kt : (tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32>
  return %s : tensor<2x4x8x8xf32>
}

// -----

// One transpose read by two products, on either side: a product that read
// its operand transposed already reads it as it is. A square matrix read
// transposed as both operands of one product folds on both.
// CHECK-LABEL: func.func @several_products
//  CHECK-SAME:   (%[[A:.+]]: tensor<6x4xf32>, %[[B:.+]]: tensor<4x6xf32>, %[[C:.+]]: tensor<5x5xf32>)
//   CHECK-NOT:   ckpt.transpose
//       CHECK:   ckpt.matmul %[[A]], %[[A]] transpose_lhs : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
//       CHECK:   ckpt.matmul %[[B]], %[[A]] : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
//       CHECK:   ckpt.matmul %[[C]], %[[C]] transpose_lhs transpose_rhs : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
func.func @several_products(%a: tensor<6x4xf32>, %b: tensor<4x6xf32>, %c: tensor<5x5xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<5x5xf32>) {
  %at = ckpt.transpose %a permutation = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %p = ckpt.matmul %at, %a : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  %r = ckpt.matmul %b, %at transpose_rhs : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x4xf32>
  %ct = ckpt.transpose %c permutation = [1, 0] : tensor<5x5xf32> -> tensor<5x5xf32>
  %both = ckpt.matmul %ct, %ct : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  return %p, %r, %both : tensor<4x4xf32>, tensor<4x4xf32>, tensor<5x5xf32>
}

// -----

// A transpose of a transpose that a product reads folds from the outer one
// in: both go, and the two flags cancel.
// CHECK-LABEL: func.func @transpose_of_transpose
//  CHECK-SAME:   (%[[X:.+]]: tensor<3x5x7xf32>, %[[Y:.+]]: tensor<3x7x2xf32>)
//   CHECK-NOT:   ckpt.transpose
//       CHECK:   ckpt.matmul %[[X]], %[[Y]] : (tensor<3x5x7xf32>, tensor<3x7x2xf32>) -> tensor<3x5x2xf32>
func.func @transpose_of_transpose(%x: tensor<3x5x7xf32>, %y: tensor<3x7x2xf32>) -> tensor<3x5x2xf32> {
  %t = ckpt.transpose %x permutation = [0, 2, 1] : tensor<3x5x7xf32> -> tensor<3x7x5xf32>
  %tt = ckpt.transpose %t permutation = [0, 2, 1] : tensor<3x7x5xf32> -> tensor<3x5x7xf32>
  %p = ckpt.matmul %tt, %y : (tensor<3x5x7xf32>, tensor<3x7x2xf32>) -> tensor<3x5x2xf32>
  return %p : tensor<3x5x2xf32>
}

// -----

// Stays: a transpose that another op also reads (folding it would keep its
// input alive beside it), and one that moves a batch dimension (a GEMM's
// flag cannot read it).
// CHECK-LABEL: func.func @kept
//       CHECK:   %[[T:.+]] = ckpt.transpose %{{.+}} permutation = [1, 0]
//       CHECK:   ckpt.matmul %[[T]], %{{.+}} :
//       CHECK:   ckpt.relu %[[T]]
//       CHECK:   %[[H:.+]] = ckpt.transpose %{{.+}} permutation = [1, 0, 2]
//       CHECK:   ckpt.matmul %[[H]], %{{.+}} :
func.func @kept(%a: tensor<6x4xf32>, %b: tensor<6x3xf32>, %x: tensor<2x5x7xf32>, %y: tensor<5x7x2xf32>) -> (tensor<4x3xf32>, tensor<4x6xf32>, tensor<5x2x2xf32>) {
  %at = ckpt.transpose %a permutation = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %p = ckpt.matmul %at, %b : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
  %r = ckpt.relu %at : tensor<4x6xf32>
  %h = ckpt.transpose %x permutation = [1, 0, 2] : tensor<2x5x7xf32> -> tensor<5x2x7xf32>
  %q = ckpt.matmul %h, %y : (tensor<5x2x7xf32>, tensor<5x7x2xf32>) -> tensor<5x2x2xf32>
  return %p, %r, %q : tensor<4x3xf32>, tensor<4x6xf32>, tensor<5x2x2xf32>
}
