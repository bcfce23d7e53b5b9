#!/bin/bash
# numlir's cuda backend on a machine with an NVIDIA GPU and its driver (docs/cuda-backend.md):
# what no machine numlir's CI has can verify. Run from a checkout after `make build`:
#
#   tools/gpu/run.sh tests     # pytest -m gpu: the cuda backend against the cpu backend on
#                              # the primitive set, a convolution and the MLP step; then the
#                              # cuda tests that also run without a GPU
#   tools/gpu/run.sh bench     # bench/run.py --device cuda: numlir on the GPU beside jax's
#                              # (a CUDA jaxlib) on the same chip, W1-W7: W1-W3 as a
#                              # fraction of the GPU's copy bandwidth (bench/gpu_limits.py,
#                              # the driver API's device-to-device copies), the rest in ms
#
# Results go to $OUT (default /tmp/gpu-out). NUMLIR_CUDA_CHIP picks the chip to compile for
# (default: sm_90); NUMLIR_LIBCUDA names the driver library if it is not libcuda.so.1.
set -u
cd "$(git rev-parse --show-toplevel)" || exit 1
out=${OUT:-/tmp/gpu-out}
mkdir -p "$out"
case "${1:-}" in
tests)
  nvidia-smi > "$out/nvidia-smi.txt" 2>&1
  NUMLIR_TEST_GPU=1 NUMLIR_BACKEND=cuda .venv/bin/python -m pytest -v -rfE -m gpu -p no:cacheprovider \
    test/python/test_cuda_gpu.py 2>&1 | tee "$out/tests-gpu.log"
  .venv/bin/python -m pytest -q -p no:cacheprovider test/python/test_cuda_backend.py \
    test/python/test_cuda_runtime.py test/python/test_cuda_emulated.py 2>&1 \
    | tee "$out/tests-cuda.log" ;;
bench)
  .venv/bin/python bench/run.py --device cuda --only W1,W2,W3,W4a,W4b,W5,W6,W7 \
    --results-dir "$out" 2>&1 | tee "$out/bench.log" ;;
*)
  sed -n '2,13p' "$0"; exit 2 ;;
esac
