//===- PhiloxDropout.h - dropout with Philox4x32-10 on CUDA ---------------===//
//
// The GPU twin of the compiled CPU dropout: element i keeps its value when
// the top 24 bits of lane i % 4 of the Philox4x32-10 block at counter
// base + offset + i / 4 (key: the seed), over 2^24, are at least p. Same
// bits as ckpt/Runtime/Philox.h and the generated code.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_KERNELS_PHILOXDROPOUT_H
#define CKPT_KERNELS_PHILOXDROPOUT_H

#include <cstdint>

namespace ckpt::kernels {

/// Runs the dropout kernel on device buffers `input` and `output` of `count`
/// floats; returns the CUDA error code (0 on success).
int philoxDropout(const float *input, float *output, uint64_t count,
                  uint64_t seed, uint64_t base, uint64_t offset, float p);

/// Whether a CUDA device is usable here.
bool cudaDeviceAvailable();

} // namespace ckpt::kernels

#endif // CKPT_KERNELS_PHILOXDROPOUT_H
