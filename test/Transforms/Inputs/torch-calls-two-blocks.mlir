// Two blocks, tanh(x @ w), as ckpt-import-torch --record-calls writes them:
// PyTorch's op calls (mm and tanh per block, then sum), the storages they
// read and make (x, w0 and w1 are found: 0, 1, 2), the module calls (the model and
// blocks.0 and blocks.1), what autograd saves in each (x and w0, tanh0;
// tanh0 and w1, tanh1) and which call makes each op's value.
module attributes {ckpt.torch_calls = {
  function = "two_blocks",
  ops = ["aten.mm.default", "aten.tanh.default", "aten.mm.default",
         "aten.tanh.default", "aten.sum.default"],
  reads = [array<i64: 0, 1>, array<i64: 3>, array<i64: 4, 2>, array<i64: 5>,
           array<i64: 6>],
  outputs = [array<i64: 3>, array<i64: 4>, array<i64: 5>, array<i64: 6>,
             array<i64: 7>],
  storage_bytes = array<i64: 128, 256, 256, 128, 128, 128, 128, 4>,
  found_storages = array<i64: 0, 1, 2>,
  modules = [
    {path = "", parent = -1 : i64, calls = array<i64: 0, 5>, inputs = array<i64: 0>},
    {path = "blocks.0", parent = 0 : i64, calls = array<i64: 0, 2>, inputs = array<i64: 0>},
    {path = "blocks.1", parent = 0 : i64, calls = array<i64: 2, 4>, inputs = array<i64: 4>}],
  packs = array<i64: 1, 0, 1, 1, 1, 4, 2, 4, 2, 2, 2, 6>,
  writes = array<i64>,
  values = {"mm0" = array<i64: 0, 0>, "tanh0" = array<i64: 1, 0>,
            "mm1" = array<i64: 2, 0>, "tanh1" = array<i64: 3, 0>,
            "sum" = array<i64: 4, 0>}}} {
func.func @two_blocks(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32> {ckpt.param},
                      %w1: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %mm0 = ckpt.matmul %x, %w0 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("mm0")
  %tanh0 = ckpt.tanh %mm0 : tensor<4x8xf32> loc("tanh0")
  %mm1 = ckpt.matmul %tanh0, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("mm1")
  %tanh1 = ckpt.tanh %mm1 : tensor<4x8xf32> loc("tanh1")
  %sum = ckpt.reduce_sum %tanh1 : tensor<4x8xf32> -> tensor<f32> loc("sum")
  return %sum : tensor<f32>
}
}
