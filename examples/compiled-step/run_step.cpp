// Runs a training step compiled by `ckpt-compile --shared` from C++:
//
//   ckpt-compile step.mlir --shared -o libstep.so   (writes ckpt_step.h too)
//   c++ -I. run_step.cpp -L. -lstep -Wl,-rpath,. -o run_step && ./run_step
//
// Fills every argument with a fixed pattern (indices within their bound,
// the random state seed 0), runs the step twice, and prints the loss, the
// measured and simulated peaks, and whether the two runs gave the same bits.

#include "ckpt_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  int arguments = ckpt_step_num_arguments(), results = ckpt_step_num_results();
  std::vector<std::vector<char>> inputs(arguments), first(results),
      second(results);
  std::vector<const void *> inputPointers;
  for (int i = 0; i < arguments; ++i) {
    const ckpt_step_tensor *tensor = ckpt_step_argument(i);
    inputs[i].resize(tensor->bytes);
    char *data = inputs[i].data();
    size_t count = 1;
    for (int d = 0; d < tensor->rank; ++d)
      count *= tensor->shape[d];
    for (size_t j = 0; j < count; ++j) {
      double pattern = std::sin(0.1 * j + i);
      if (tensor->random_state)
        reinterpret_cast<int64_t *>(data)[j] = 0;
      else if (tensor->element == CKPT_STEP_F32)
        reinterpret_cast<float *>(data)[j] = static_cast<float>(pattern);
      else if (tensor->element == CKPT_STEP_F64)
        reinterpret_cast<double *>(data)[j] = pattern;
      else if (tensor->element == CKPT_STEP_I64)
        reinterpret_cast<int64_t *>(data)[j] =
            static_cast<int64_t>(j) % std::max<int64_t>(tensor->index_bound, 1);
      else
        data[j] = j % 2;
    }
    inputPointers.push_back(inputs[i].data());
  }
  auto run = [&](std::vector<std::vector<char>> &outputs, uint64_t &peak) {
    std::vector<void *> pointers;
    for (int i = 0; i < results; ++i) {
      outputs[i].resize(ckpt_step_result(i)->bytes);
      pointers.push_back(outputs[i].data());
    }
    return ckpt_step_run(inputPointers.data(), pointers.data(), &peak);
  };
  uint64_t peak = 0;
  if (run(first, peak) != 0 || run(second, peak) != 0) {
    std::fprintf(stderr, "error: %s\n", ckpt_step_error());
    return 1;
  }
  const ckpt_step_tensor *loss = ckpt_step_result(0);
  double value = loss->element == CKPT_STEP_F64
                     ? *reinterpret_cast<const double *>(first[0].data())
                     : *reinterpret_cast<const float *>(first[0].data());
  std::printf("step: @%s, %d arguments, %d results\n", ckpt_step_name(),
              arguments, results);
  std::printf("loss: %.9g\n", value);
  std::printf("peak bytes: measured %llu, simulated %llu\n",
              static_cast<unsigned long long>(peak),
              static_cast<unsigned long long>(ckpt_step_simulated_peak()));
  std::printf("runs agree: %s\n", first == second ? "yes" : "no");
  return first == second ? 0 : 1;
}
