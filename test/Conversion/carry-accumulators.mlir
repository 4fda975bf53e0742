// RUN: ckpt-opt %s --split-input-file --ckpt-carry-accumulators | FileCheck %s
// A sequential loop inside another loop that loads, updates and stores
// back one element of an allocation at indices fixed in the loop carries
// the element instead: loaded before, stored after, out of every loop of
// the nest in turn, with the same arithmetic in the same order. It stays
// in memory where another access could reach it: a view of the same
// allocation read in the loop, a buffer that could be a view of it, an
// operation of unknown effects, indices that move, or a loop at the top
// level of the function (which ckpt-outline-loops needs without results).

// CHECK-LABEL: func.func @column_sums
// CHECK: %[[SUMS:.*]] = memref.alloc() : memref<8xf64>
// CHECK: scf.parallel (%[[C:.*]]) =
// CHECK-NEXT: %[[INITIAL:.*]] = memref.load %[[SUMS]][%[[C]]]
// CHECK-NEXT: %[[ROWS:.*]] = scf.for %{{.*}} = %{{.*}} iter_args(%[[ROW_SUM:.*]] = %[[INITIAL]]) -> (f64)
// CHECK-NEXT: %[[COLS:.*]] = scf.for %{{.*}} = %{{.*}} iter_args(%[[SUM:.*]] = %[[ROW_SUM]]) -> (f64)
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[X]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[SUM]], %[[WIDE]] : f64
// CHECK-NEXT: scf.yield %[[NEXT]] : f64
// CHECK: scf.yield %[[COLS]] : f64
// CHECK: memref.store %[[ROWS]], %[[SUMS]][%[[C]]]
// CHECK-NOT: memref.store
// CHECK: return %[[SUMS]]
func.func @column_sums(%x: memref<4x8x16xf32>) -> memref<8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %sums = memref.alloc() : memref<8xf64>
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    scf.for %n = %c0 to %c4 step %c1 {
      scf.for %w = %c0 to %c16 step %c1 {
        %v = memref.load %x[%n, %c, %w] : memref<4x8x16xf32>
        %acc = memref.load %sums[%c] : memref<8xf64>
        %wide = arith.extf %v : f32 to f64
        %next = arith.addf %acc, %wide : f64
        memref.store %next, %sums[%c] : memref<8xf64>
      }
    }
    scf.reduce
  }
  return %sums : memref<8xf64>
}

// -----

// Two accumulators of one loop (a maximum and a sum), each carried.
// CHECK-LABEL: func.func @two_accumulators
// CHECK: scf.for %{{.*}} iter_args(%[[MAX:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}) -> (f32, f32)
// CHECK-DAG: arith.maximumf %[[MAX]]
// CHECK-DAG: arith.addf %[[SUM]]
// CHECK-NOT: memref.store
// CHECK: }
// CHECK-DAG: memref.store %{{.*}}#0, %{{.*}}[%{{.*}}] : memref<8xf32>
// CHECK-DAG: memref.store %{{.*}}#1, %{{.*}}[%{{.*}}] : memref<8xf32>
func.func @two_accumulators(%x: memref<8x16xf32>) -> (memref<8xf32>, memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %max = memref.alloc() : memref<8xf32>
  %sum = memref.alloc() : memref<8xf32>
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x16xf32>
      %m = memref.load %max[%r] : memref<8xf32>
      %s = memref.load %sum[%r] : memref<8xf32>
      %m2 = arith.maximumf %m, %v : f32
      %s2 = arith.addf %s, %v : f32
      memref.store %m2, %max[%r] : memref<8xf32>
      memref.store %s2, %sum[%r] : memref<8xf32>
    }
    scf.reduce
  }
  return %max, %sum : memref<8xf32>, memref<8xf32>
}

// -----

// The loop also reads the accumulator's buffer through a view: unchanged.
// CHECK-LABEL: func.func @read_through_view
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func @read_through_view() -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %buffer = memref.alloc() : memref<16xf32>
  %tail = memref.subview %buffer[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
  scf.parallel (%r) = (%c0) to (%c2) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %tail[%j] : memref<8xf32, strided<[1], offset: 8>>
      %acc = memref.load %buffer[%r] : memref<16xf32>
      %next = arith.addf %acc, %v : f32
      memref.store %next, %buffer[%r] : memref<16xf32>
    }
    scf.reduce
  }
  return %buffer : memref<16xf32>
}

// -----

// The accumulator is a function argument, which another argument may view.
// CHECK-LABEL: func.func @argument_accumulator
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func @argument_accumulator(%x: memref<8x16xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x16xf32>
      %acc = memref.load %out[%r] : memref<8xf32>
      %next = arith.addf %acc, %v : f32
      memref.store %next, %out[%r] : memref<8xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A buffer the pass cannot trace to an allocation or an argument (a
// call's result) may be a view of the accumulator: unchanged.
// CHECK-LABEL: func.func @unknown_buffer
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func private @opaque(memref<8xf32>) -> memref<8xf32>
func.func @unknown_buffer() -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc_buffer = memref.alloc() : memref<8xf32>
  %other = func.call @opaque(%acc_buffer) : (memref<8xf32>) -> memref<8xf32>
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %other[%j] : memref<8xf32>
      %acc = memref.load %acc_buffer[%r] : memref<8xf32>
      %next = arith.addf %acc, %v : f32
      memref.store %next, %acc_buffer[%r] : memref<8xf32>
    }
    scf.reduce
  }
  return %acc_buffer : memref<8xf32>
}

// -----

// A call inside the loop (effects unknown), and an element that moves with
// the loop (a prefix sum): both unchanged.
// CHECK-LABEL: func.func @call_inside
// CHECK-NOT: iter_args
// CHECK-LABEL: func.func @moving_element
// CHECK-NOT: iter_args
func.func private @observe(f32)
func.func @call_inside(%x: memref<8x16xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %out = memref.alloc() : memref<8xf32>
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x16xf32>
      %acc = memref.load %out[%r] : memref<8xf32>
      func.call @observe(%acc) : (f32) -> ()
      %next = arith.addf %acc, %v : f32
      memref.store %next, %out[%r] : memref<8xf32>
    }
    scf.reduce
  }
  return %out : memref<8xf32>
}
func.func @moving_element(%x: memref<8x16xf32>) -> memref<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %out = memref.alloc() : memref<8x16xf32>
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x16xf32>
      %acc = memref.load %out[%r, %j] : memref<8x16xf32>
      %next = arith.addf %acc, %v : f32
      memref.store %next, %out[%r, %j] : memref<8x16xf32>
    }
    scf.reduce
  }
  return %out : memref<8x16xf32>
}

// -----

// A top-level loop keeps its load and store (its inner loop carries).
// CHECK-LABEL: func.func @top_level
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %[[OUT:.*]][%{{.*}}]
// CHECK-NEXT: scf.for {{.*}} iter_args
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @top_level(%x: memref<8x16xf32>) -> memref<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %out = memref.alloc() : memref<1xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%r, %j] : memref<8x16xf32>
      %acc = memref.load %out[%c0] : memref<1xf32>
      %next = arith.addf %acc, %v : f32
      memref.store %next, %out[%c0] : memref<1xf32>
    }
  }
  return %out : memref<1xf32>
}
