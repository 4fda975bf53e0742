// ckpt-gpu-map-loops leaves the host only allocation, views and launches:
// a parallel loop becomes a flat index space in blocks of threads, a copy
// a parallel loop, other memory accesses a one-thread kernel, and the
// constants a kernel reads are read inside it.
// RUN: ckpt-opt %s --ckpt-gpu-map-loops=threads-per-block=128 --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not ckpt-opt %s --ckpt-gpu-map-loops=threads-per-block=2000 --split-input-file 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: threads-per-block must be in [1, 1024], got 2000
// RUN: ckpt-opt %s --ckpt-gpu-map-loops="threads-per-block=128 permute-iterations=1" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=PERMUTE
// The file's error cases fail this run; the report is of the first function.
// RUN: not ckpt-opt %s --ckpt-gpu-map-loops="report-kernels=1" --split-input-file 2>&1 | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @parallel
// A 4x300 loop: 1200 iterations, 10 blocks of 128 threads; thread (b, t)
// runs iteration b * 128 + t when below 1200, row (i / 300), column
// (i % 300).
// CHECK:      scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c10) step
// CHECK:        scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c128) step
// CHECK:          %[[SCALED:.*]] = arith.muli %[[B]], %c128
// CHECK:          %[[I:.*]] = arith.addi %[[SCALED]], %[[T]]
// CHECK:          %[[IN:.*]] = arith.cmpi ult, %[[I]], %c1200
// CHECK:          scf.if %[[IN]] {
// CHECK:            %[[COL:.*]] = arith.remui %[[I]], %c300
// CHECK:            %[[ROW:.*]] = arith.divui %[[I]], %c300
// CHECK:            memref.load %arg0[%{{.*}}, %{{.*}}]
// CHECK:        } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:      } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// Permuted: thread (b, t) runs iteration (b * 128 + t) * 751 mod 1200 (751
// is coprime to 1200, and near 5/8 of it).
// PERMUTE-LABEL: func.func @parallel
// PERMUTE:          %[[I:.*]] = arith.addi
// PERMUTE:          scf.if
// PERMUTE:            %[[SPREAD:.*]] = arith.muli %[[I]], %c751
// PERMUTE:            %[[P:.*]] = arith.remui %[[SPREAD]], %c1200
// PERMUTE:            %[[COL:.*]] = arith.remui %[[P]], %c300
// PERMUTE:            %[[ROW:.*]] = arith.divui %[[P]], %c300
// One kernel, launched once; no GEMM.
// REPORT: remark: GPU kernels: 1, launches per call: 1, GEMM calls per call: 0
func.func @parallel(%in: memref<4x300xf32>, %out: memref<4x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c300) step (%c1, %c1) {
    %v = memref.load %in[%i, %j] : memref<4x300xf32>
    memref.store %v, %out[%i, %j] : memref<4x300xf32>
    scf.reduce
  }
  return
}

// -----

// A full reduction's loop and the store before it run in one kernel of a
// single thread; the nested parallel loop runs sequentially in it.
// CHECK-LABEL: func.func @single_thread
// CHECK:      scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}}) step
// CHECK:        scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}}) step
// CHECK:          memref.store %{{.*}}, %arg1[] : memref<f32>
// CHECK:          scf.for
// CHECK:            scf.for
// CHECK-NOT:        scf.parallel
// CHECK:        } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:      } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NEXT: return
func.func @single_thread(%in: memref<8xf32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %sum[] : memref<f32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.parallel (%k) = (%c0) to (%c1) step (%c1) {
      %v = memref.load %in[%i] : memref<8xf32>
      %s = memref.load %sum[] : memref<f32>
      %t = arith.addf %s, %v : f32
      memref.store %t, %sum[] : memref<f32>
      scf.reduce
    }
  }
  return
}

// -----

// A copy becomes a parallel copy loop; a constant global (and the view
// taken of it) moves into the kernel that reads it; a scalar loaded on the
// host for a kernel is loaded by the kernel.
memref.global "private" constant @table : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
// CHECK-LABEL: func.func @copy_and_constants
// CHECK-NOT:  memref.copy
// CHECK:      scf.parallel
// CHECK:        scf.parallel
// CHECK:          memref.load %arg0
// CHECK:          memref.store %{{.*}}, %arg1
// CHECK:      scf.parallel
// CHECK:        %[[G:.*]] = memref.get_global @table
// CHECK:        %[[FLAT:.*]] = memref.collapse_shape %[[G]]
// CHECK:        %[[SCALE:.*]] = memref.load %arg2[%{{.*}}] : memref<2xf32>
// CHECK:        scf.parallel
// CHECK:          %[[V:.*]] = memref.load %[[FLAT]]
// CHECK:          arith.mulf %[[V]], %[[SCALE]]
// CHECK-NOT:  memref.get_global
// CHECK:      return
func.func @copy_and_constants(%a: memref<6xf32>, %b: memref<6xf32>, %s: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  memref.copy %a, %b : memref<6xf32> to memref<6xf32>
  %g = memref.get_global @table : memref<2x3xf32>
  %flat = memref.collapse_shape %g [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  %scale = memref.load %s[%c1] : memref<2xf32>
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %v = memref.load %flat[%i] : memref<6xf32>
    %w = arith.mulf %v, %scale : f32
    memref.store %w, %b[%i] : memref<6xf32>
    scf.reduce
  }
  return
}

// -----

func.func @dynamic(%in: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{cannot map a loop with dynamic bounds to the GPU: shapes must be static}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %in[%i] : memref<?xf32>
    memref.store %v, %in[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

func.func @host_read(%in: memref<2xindex>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @below {{a value read from memory is used on the host, where the GPU step cannot read device memory}}
  %n = memref.load %in[%c0] : memref<2xindex>
  %buffer = memref.alloc(%n) : memref<?xf32>
  return %buffer : memref<?xf32>
}

// -----

func.func @host_stack(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{a stack buffer (memref.alloca) on the host cannot be read by GPU kernels or GEMMs: allocate it with memref.alloc}}
  %stack = memref.alloca() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %stack[%i] : memref<4xf32>
    memref.store %v, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

memref.global "private" constant @weights : memref<2x2xf32> = dense<1.0>
func.func private @gemm(memref<4xf32>, memref<2x2xf32>)

func.func @global_to_call(%out: memref<2x2xf32>) {
  // expected-error @below {{constant global 'weights' reaches a call, which reads device memory: the global stays in host memory}}
  %g = memref.get_global @weights : memref<2x2xf32>
  %flat = memref.collapse_shape %g [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  // expected-note @below {{called here}}
  func.call @gemm(%flat, %out) : (memref<4xf32>, memref<2x2xf32>) -> ()
  return
}
