// RUN: ckpt-opt %s --ckpt-outline-parallel-loops | FileCheck %s
// RUN: ckpt-opt %s --ckpt-outline-parallel-loops="min-parallel-iterations=4" | FileCheck %s --check-prefix=LOW
// A top-level parallel loop of at least min-parallel-iterations (32768 by
// default) iterations, counting those of the loops inside it, moves into a
// private function that takes what it reads from outside (constants are
// cloned in); a shorter one becomes a sequential scf.for nest in place,
// dimensions in order. A row reduction of 256 rows of 256 is long enough.

// CHECK-LABEL: func.func private @step_loop0
// CHECK-SAME: (%[[S2:.*]]: f32, %[[A2:.*]]: memref<256x256xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[X:.*]], %[[Y:.*]]) = (%[[C0]], %[[C0]]) to (%[[C256]], %[[C256]])
// CHECK: memref.store %[[S2]], %[[A2]][%[[X]], %[[Y]]]
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[A:.*]]: memref<256x256xf32>, %[[B:.*]]: memref<8x4xf32>, %[[S:.*]]: f32)
// CHECK: call @step_loop0(%[[S]], %[[A]]) : (f32, memref<256x256xf32>) -> ()
// CHECK: scf.for %[[I:.*]] = %c0 to %c8 step %c1
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c4 step %c1
// CHECK-NEXT: memref.store %[[S]], %[[B]][%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
// CHECK: call @step_loop1(%[[A]], %[[B]]) : (memref<256x256xf32>, memref<8x4xf32>) -> ()
// CHECK: return

// LOW: func.func private @step_loop0
// LOW: func.func private @step_loop1
// LOW: func.func private @step_loop2
// LOW-LABEL: func.func @step
// LOW: call @step_loop0
// LOW: call @step_loop1
// LOW: call @step_loop2
func.func @step(%a: memref<256x256xf32>, %b: memref<8x4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c256) step (%c1, %c1) {
    memref.store %s, %a[%i, %j] : memref<256x256xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    memref.store %s, %b[%i, %j] : memref<8x4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %a[%i, %j] : memref<256x256xf32>
      memref.store %v, %b[%c0, %c0] : memref<8x4xf32>
    }
    scf.reduce
  }
  return
}
