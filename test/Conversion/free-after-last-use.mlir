// Buffers are freed right after their last use (through views), not at the
// end of the block.
// RUN: ckpt-opt %s --ckpt-free-after-last-use | FileCheck %s

// CHECK-LABEL: func.func @lifetimes
//       CHECK:   %[[A:.+]] = memref.alloc
//       CHECK:   %[[B:.+]] = memref.alloc
//       CHECK:   %[[V:.+]] = memref.collapse_shape %[[A]]
//       CHECK:   memref.copy %[[V]], %{{.+}}
//  CHECK-NEXT:   memref.dealloc %[[A]]
//       CHECK:   memref.copy %[[B]], %{{.+}}
//  CHECK-NEXT:   memref.dealloc %[[B]]
//  CHECK-NEXT:   return
func.func @lifetimes(%out: memref<4xf32>, %out2: memref<2x2xf32>) {
  %a = memref.alloc() : memref<2x2xf32>
  %b = memref.alloc() : memref<2x2xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  memref.copy %v, %out : memref<4xf32> to memref<4xf32>
  memref.copy %b, %out2 : memref<2x2xf32> to memref<2x2xf32>
  memref.dealloc %a : memref<2x2xf32>
  memref.dealloc %b : memref<2x2xf32>
  return
}
