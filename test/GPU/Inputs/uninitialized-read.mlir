// A sum whose accumulator is never initialised: with --poison-allocations
// it starts as NaN (0xFF bytes), and so does the result.
func.func @uninitialized(%x: tensor<4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %in = bufferization.to_buffer %x read_only : tensor<4xf32> to memref<4xf32>
  %acc = memref.alloc() : memref<f32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %in[%i] : memref<4xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %acc[] : memref<f32>
  }
  %sum = bufferization.to_tensor %acc restrict : memref<f32> to tensor<f32>
  return %sum : tensor<f32>
}
