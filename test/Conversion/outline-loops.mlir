// RUN: ckpt-opt %s --ckpt-outline-loops | FileCheck %s
// RUN: ckpt-opt %s --ckpt-outline-loops="min-parallel-iterations=4" | FileCheck %s --check-prefix=LOW
// RUN: ckpt-opt %s --ckpt-outline-loops="parallel-chunks=1000" | FileCheck %s --check-prefix=CHUNKS
// Every top-level loop moves into a private function that takes what it
// reads from outside (constants are cloned in), is never inlined and has
// internal linkage in LLVM; the step keeps only the calls. A parallel loop
// shorter than min-parallel-iterations (32768 by default), counting the
// iterations of the loops inside it, becomes a sequential scf.for nest
// first, dimensions in order, wherever it is. A row reduction of 256 rows of 256 is long
// enough. A parallel loop keeps its outer dimensions parallel until they
// number parallel-chunks (64) iterations; the others become an scf.for
// nest inside, whose innermost loop LLVM can vectorise.

// CHECK-LABEL: func.func private @step_loop0
// CHECK-SAME: (%[[S2:.*]]: f32, %[[A2:.*]]: memref<256x256xf32>)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[X:.*]]) = (%[[C0]]) to (%[[C256]])
// CHECK-NEXT: scf.for %[[Y:.*]] = %[[C0]] to %[[C256]]
// CHECK-NEXT: memref.store %[[S2]], %[[A2]][%[[X]], %[[Y]]]
// CHECK-LABEL: func.func private @step_loop1
// CHECK-SAME: (%[[S3:.*]]: f32, %[[B3:.*]]: memref<8x4xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: memref.store %[[S3]], %[[B3]][%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func private @step_loop2
// CHECK: scf.parallel
// CHECK-LABEL: func.func private @step_loop3
// CHECK-SAME: (%[[S4:.*]]: f32, %[[B4:.*]]: memref<8x4xf32>)
// CHECK: scf.for
// The same rule holds inside a sequential loop (a convolution's copies in
// its loop over the images): the short parallel loop in it runs in order,
// the long one stays parallel over its rows.
// CHECK-LABEL: func.func private @step_loop4
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.store
// CHECK-NOT: scf.for
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[A:.*]]: memref<256x256xf32>, %[[B:.*]]: memref<8x4xf32>, %[[S:.*]]: f32)
// CHECK: call @step_loop0(%[[S]], %[[A]]) : (f32, memref<256x256xf32>) -> ()
// CHECK-NEXT: call @step_loop1(%[[S]], %[[B]]) : (f32, memref<8x4xf32>) -> ()
// CHECK-NEXT: call @step_loop2(%[[A]], %[[B]]) : (memref<256x256xf32>, memref<8x4xf32>) -> ()
// CHECK-NEXT: call @step_loop3(%[[S]], %[[B]]) : (f32, memref<8x4xf32>) -> ()
// CHECK-NEXT: call @step_loop4
// CHECK-NEXT: return

// LOW-COUNT-5: scf.parallel
// LOW-NOT: scf.parallel
// LOW-LABEL: func.func @step

// CHUNKS-LABEL: func.func private @step_loop0
// CHUNKS: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
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
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %s, %b[%i, %c0] : memref<8x4xf32>
  }
  scf.for %n = %c0 to %c4 step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
      memref.store %s, %b[%i, %j] : memref<8x4xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c256) step (%c1, %c1) {
      memref.store %s, %a[%i, %j] : memref<256x256xf32>
      scf.reduce
    }
  }
  return
}
