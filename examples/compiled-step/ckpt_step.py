"""Runs a training step compiled by `ckpt-compile --shared` from Python.

    ckpt-opt --ckpt-pipeline model.mlir -o step.mlir
    ckpt-compile step.mlir --shared -o libstep.so
    python ckpt_step.py libstep.so --inputs DIR --out OUT

`CompiledStep` wraps the library's C interface (ckpt_step.h) with ctypes
and NumPy: `step(arrays)` takes one array per argument and returns one per
result, the same bits as ckpt-run on the same inputs and thread count.
"""

import argparse
import ctypes
import os
import sys

import numpy as np

_DTYPES = {0: np.float32, 1: np.float64, 2: np.int64, 3: np.bool_}


class _Tensor(ctypes.Structure):
    _fields_ = [("element", ctypes.c_int), ("rank", ctypes.c_int),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("bytes", ctypes.c_size_t), ("parameter", ctypes.c_int),
                ("random_state", ctypes.c_int),
                ("index_bound", ctypes.c_int64)]


class CompiledStep:
    """A compiled step: its arguments' and results' shapes and dtypes, and
    a call that runs it."""

    def __init__(self, path):
        lib = ctypes.CDLL(os.path.abspath(path))
        for name, result, args in [
                ("ckpt_step_name", ctypes.c_char_p, []),
                ("ckpt_step_num_arguments", ctypes.c_int, []),
                ("ckpt_step_num_results", ctypes.c_int, []),
                ("ckpt_step_argument", ctypes.POINTER(_Tensor), [ctypes.c_int]),
                ("ckpt_step_result", ctypes.POINTER(_Tensor), [ctypes.c_int]),
                ("ckpt_step_simulated_peak", ctypes.c_uint64, []),
                ("ckpt_step_set_threads", None, [ctypes.c_int]),
                ("ckpt_step_run", ctypes.c_int,
                 [ctypes.POINTER(ctypes.c_void_p),
                  ctypes.POINTER(ctypes.c_void_p),
                  ctypes.POINTER(ctypes.c_uint64)]),
                ("ckpt_step_error", ctypes.c_char_p, [])]:
            function = getattr(lib, name)
            function.restype, function.argtypes = result, args
        self._lib = lib
        self.name = lib.ckpt_step_name().decode()
        self.arguments = [self._describe(lib.ckpt_step_argument(i).contents)
                          for i in range(lib.ckpt_step_num_arguments())]
        self.results = [self._describe(lib.ckpt_step_result(i).contents)
                        for i in range(lib.ckpt_step_num_results())]
        self.simulated_peak = lib.ckpt_step_simulated_peak()

    @staticmethod
    def _describe(tensor):
        return {"dtype": np.dtype(_DTYPES[tensor.element]),
                "shape": tuple(tensor.shape[d] for d in range(tensor.rank)),
                "parameter": bool(tensor.parameter),
                "random_state": bool(tensor.random_state),
                "index_bound": tensor.index_bound}

    def set_threads(self, threads):
        self._lib.ckpt_step_set_threads(threads)

    def __call__(self, arrays):
        """Runs the step on `arrays` (one per argument); returns its results
        and the measured peak in bytes."""
        if len(arrays) != len(self.arguments):
            raise ValueError(f"{self.name} takes {len(self.arguments)} "
                             f"arrays, got {len(arrays)}")
        inputs = []
        for i, (array, spec) in enumerate(zip(arrays, self.arguments)):
            array = np.ascontiguousarray(array)
            if array.dtype != spec["dtype"] or array.shape != spec["shape"]:
                raise ValueError(
                    f"argument {i} must be {spec['dtype']} of shape "
                    f"{spec['shape']}, got {array.dtype} of {array.shape}")
            inputs.append(array)
        outputs = [np.empty(spec["shape"], spec["dtype"])
                   for spec in self.results]
        pointers = lambda arrays: (ctypes.c_void_p * max(len(arrays), 1))(
            *[array.ctypes.data for array in arrays])
        peak = ctypes.c_uint64()
        if self._lib.ckpt_step_run(pointers(inputs), pointers(outputs),
                                   ctypes.byref(peak)):
            raise RuntimeError(self._lib.ckpt_step_error().decode())
        return outputs, peak.value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library")
    parser.add_argument("--inputs", required=True,
                        help="DIR with argN.npy for every argument but the "
                             "random state")
    parser.add_argument("--seed", type=int, default=0,
                        help="the random state's seed (base counter 0)")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", help="write gradN.npy and resultK.npy here "
                                      "as ckpt-run --out does")
    args = parser.parse_args()
    step = CompiledStep(args.library)
    step.set_threads(args.threads)
    arrays = [np.array([args.seed, 0], np.int64) if spec["random_state"]
              else np.load(os.path.join(args.inputs, f"arg{i}.npy"))
              for i, spec in enumerate(step.arguments)]
    results, peak = step(arrays)
    print(f"step: @{step.name}, {len(step.arguments)} arguments, "
          f"{len(step.results)} results")
    print(f"loss: {float(results[0]):.9g}")
    print(f"peak bytes: measured {peak}, simulated {step.simulated_peak}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        parameters = [i for i, spec in enumerate(step.arguments)
                      if spec["parameter"]]
        states = sum(spec["random_state"] for spec in step.results)
        forward = len(step.results) - len(parameters) - states
        for k, result in enumerate(results[:forward]):
            np.save(os.path.join(args.out, f"result{k}.npy"), result)
        for arg, grad in zip(parameters, results[forward:]):
            np.save(os.path.join(args.out, f"grad{arg}.npy"), grad)


if __name__ == "__main__":
    sys.exit(main())
