//===- PhiloxDropout.cu - dropout with Philox4x32-10 on CUDA --------------===//
//
// One thread per element; Random123's philox4x32 runs on the device.
//
//===----------------------------------------------------------------------===//

#include "PhiloxDropout.h"

#include <Random123/philox.h>
#include <cuda_runtime.h>

namespace {

__global__ void dropoutKernel(const float *input, float *output,
                              uint64_t count, uint64_t seed, uint64_t start,
                              float p, float scale) {
  uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= count)
    return;
  uint64_t block = start + i / 4;
  r123::Philox4x32::ctr_type counter = {
      {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0,
       0}};
  r123::Philox4x32::key_type key = {
      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
  uint32_t word = r123::Philox4x32()(counter, key)[i % 4];
  float uniform = static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
  output[i] = uniform >= p ? input[i] * scale : 0.0f;
}

} // namespace

int ckpt::kernels::philoxDropout(const float *input, float *output,
                                 uint64_t count, uint64_t seed, uint64_t base,
                                 uint64_t offset, float p) {
  constexpr unsigned threads = 256;
  unsigned blocks = static_cast<unsigned>((count + threads - 1) / threads);
  if (blocks > 0)
    dropoutKernel<<<blocks, threads>>>(input, output, count, seed,
                                       base + offset, p, 1.0f / (1.0f - p));
  return static_cast<int>(cudaGetLastError());
}

bool ckpt::kernels::cudaDeviceAvailable() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}
