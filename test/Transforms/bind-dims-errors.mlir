// RUN: ckpt-opt %s --ckpt-bind-dims="bind=B=8,L=16,Z=2" -split-input-file -verify-diagnostics
// RUN: not ckpt-opt %s --ckpt-bind-dims="bind=B8" -split-input-file 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not ckpt-opt %s --ckpt-bind-dims="bind=B=8,B=9" -split-input-file 2>&1 | FileCheck %s --check-prefix=TWICE

// SYNTAX: error: bind expects NAME=SIZE entries with non-negative sizes, separated by commas; got 'B8'
// TWICE: error: bind gives the dimension 'B' twice

// expected-error @below {{argument 0 dimension 1 ('L') has size 12 but bind gives 16}}
func.func @mismatch(%x: tensor<?x12xf32> {ckpt.dim_names = ["B", "L"]}) -> tensor<?x12xf32> {
  return %x : tensor<?x12xf32>
}

// -----

// expected-error @below {{'ckpt.dim_names' on argument 0 must be an array with one string per dimension of its tensor type 'tensor<?x12xf32>'}}
func.func @wrong_count(%x: tensor<?x12xf32> {ckpt.dim_names = ["B"]}) -> tensor<?x12xf32> {
  return %x : tensor<?x12xf32>
}

// -----

// expected-warning @below {{no argument dimension is named 'Z'}}
module {
  func.func @unused_name(%x: tensor<?x16xf32> {ckpt.dim_names = ["B", "L"]}) -> tensor<?x16xf32> {
    return %x : tensor<?x16xf32>
  }
}
