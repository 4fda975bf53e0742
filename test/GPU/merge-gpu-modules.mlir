// ckpt-merge-gpu-modules moves every outlined kernel into the first GPU
// module, named after the module it came from, keeps one copy of a constant
// global two kernels read, and points the launches at the merged kernels.
// RUN: ckpt-opt %s --ckpt-merge-gpu-modules --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       func.func @step(
// CHECK:         gpu.launch_func @step_kernel::@step_kernel blocks
// CHECK:         gpu.launch_func @step_kernel::@step_kernel_0 blocks
// CHECK:         gpu.launch_func @step_kernel::@step_kernel_1 blocks
// CHECK:       gpu.module @step_kernel {
// CHECK-NEXT:    memref.global "private" constant @table
// CHECK-NEXT:    gpu.func @step_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK:         gpu.func @step_kernel_0(%{{.*}}: memref<4xf32>) kernel
// CHECK:         memref.global "private" constant @other
// CHECK-NEXT:    gpu.func @step_kernel_1(%{{.*}}: memref<4xf32>) kernel
// CHECK:       }
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  func.func @step(%buffer: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%buffer : memref<4xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%buffer : memref<4xf32>)
    gpu.launch_func @step_kernel_1::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%buffer : memref<4xf32>)
    return
  }
  gpu.module @step_kernel {
    memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%out: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %table = memref.get_global @table : memref<4xf32>
      %value = memref.load %table[%i] : memref<4xf32>
      memref.store %value, %out[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%out: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %table = memref.get_global @table : memref<4xf32>
      %value = memref.load %table[%i] : memref<4xf32>
      %twice = arith.addf %value, %value : f32
      memref.store %twice, %out[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_1 {
    memref.global "private" constant @other : memref<4xf32> = dense<0.5>
    gpu.func @step_kernel(%out: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %other = memref.get_global @other : memref<4xf32>
      %value = memref.load %other[%i] : memref<4xf32>
      memref.store %value, %out[%i] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

// One GPU module: nothing to merge.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         gpu.launch_func @only::@only blocks
// CHECK:       gpu.module @only {
module attributes {gpu.container_module} {
  func.func @step(%buffer: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @only::@only blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buffer : memref<4xf32>)
    return
  }
  gpu.module @only {
    gpu.func @only(%out: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @first() kernel {
      gpu.return
    }
  }
  // expected-error @below {{GPU modules are merged before targets are attached; this one has targets already}}
  gpu.module @second [#nvvm.target<chip = "sm_90">] {
    gpu.func @second() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @first {
    memref.global "private" constant @table : memref<2xf32> = dense<1.0>
  }
  gpu.module @second {
    // expected-error @below {{two GPU modules define 'table' differently}}
    memref.global "private" constant @table : memref<2xf32> = dense<2.0>
  }
}
