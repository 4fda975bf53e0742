/*===- ckpt_step.h - C interface of a step compiled by ckpt-compile -------===*\
|*                                                                            *|
|* `ckpt-compile STEP.mlir --shared -o libstep.so` writes a shared library    *|
|* with these functions (and this header beside it). Arguments and results   *|
|* are dense row-major arrays in host memory, in the step's argument and     *|
|* result order: a training step's arguments are its inputs and parameters   *|
|* (the random state, where it has one, is two int64: seed and base          *|
|* counter); its results are the forward's results (the loss first), the     *|
|* gradient of every parameter in argument order, then the advanced random   *|
|* state. A run gives the same bits as ckpt-run on the same inputs and       *|
|* thread count.                                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef CKPT_STEP_H
#define CKPT_STEP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of arguments and results. */
enum {
  CKPT_STEP_F32 = 0,
  CKPT_STEP_F64 = 1,
  CKPT_STEP_I64 = 2,
  CKPT_STEP_I1 = 3 /* one byte, 0 or 1 */,
  CKPT_STEP_F16 = 4,
  CKPT_STEP_BF16 = 5 /* the upper 16 bits of an f32, as uint16_t */
};

typedef struct ckpt_step_tensor {
  int element;         /* CKPT_STEP_F32, ... */
  int rank;
  const int64_t *shape;
  size_t bytes;        /* of the dense array */
  int parameter;       /* an argument whose gradient the step returns */
  int random_state;    /* the random state (two int64) */
  int64_t index_bound; /* int64 indices are valid below this; 0: no bound */
} ckpt_step_tensor;

/* The step's name, and its arguments and results; NULL out of range. */
const char *ckpt_step_name(void);
int ckpt_step_num_arguments(void);
int ckpt_step_num_results(void);
const ckpt_step_tensor *ckpt_step_argument(int index);
const ckpt_step_tensor *ckpt_step_result(int index);

/* The memory simulator's peak: arguments plus the step's heap, in bytes. */
uint64_t ckpt_step_simulated_peak(void);

/* Threads of the CPU's matrix products and parallel loops (0: every core,
   the default); the same count gives the same bits on every run. */
void ckpt_step_set_threads(int threads);

/* Runs the step once: arguments[i] points at argument i, results[i] at
   memory for result i (ckpt_step_result(i)->bytes), which it writes. When
   peak_bytes is not NULL it receives the measured peak, comparable to
   ckpt_step_simulated_peak(). Returns 0, or nonzero with
   ckpt_step_error() saying why. */
int ckpt_step_run(const void *const *arguments, void *const *results,
                  uint64_t *peak_bytes);

/* Why the last ckpt_step_run failed. */
const char *ckpt_step_error(void);

#ifdef __cplusplus
}
#endif

#endif /* CKPT_STEP_H */
