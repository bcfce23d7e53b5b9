#!/bin/bash
# A differential fuzz campaign on a lent machine's CPU cores (the TPU machine: 13 cores,
# JAX installed, no numlir): `pack` here puts numlir's build, its Python package at HEAD and
# the LLVM/MLIR/OpenMP libraries it loads (47 MB compressed) into .tpu-carry/, which
# .git/info/exclude must ignore; `run` there unpacks them under /tmp and runs a campaign with
# JAX on its CPU client, copying the summary and reproducers to $OUT.
#
#   test/fuzz/lent_machine.sh pack
#   device run (carry .tpu-carry): bash .tpu-carry/lent_machine.sh run SEED N SECONDS
#
# One 9-minute call finished about 3,500 programs with 12 workers (docs/fuzzing.md).
set -u
case "${1:-}" in
pack)
  repo=$(git rev-parse --show-toplevel) && cd "$repo" || exit 1
  stage=$(mktemp -d) && mkdir -p "$stage/lib" "$stage/nl" .tpu-carry/whl
  cp -L /usr/lib/llvm-22/lib/libLLVM.so.22.1 /usr/lib/llvm-22/lib/libMLIR.so.22.1 \
    /usr/lib/x86_64-linux-gnu/libomp.so.5 "$stage/lib/"
  git archive HEAD python test | tar -x -C "$stage/nl"
  cp .venv/lib/python3.11/site-packages/numlir/*.so "$stage/nl/python/numlir/"
  (cd "$stage" && tar -cf - lib | xz -9 -T0 > "$repo/.tpu-carry/llvm.tar.xz" &&
   tar -cf - nl | xz -6 -T0 > "$repo/.tpu-carry/numlir.tar.xz")
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d .tpu-carry/whl tqdm
  cp test/fuzz/lent_machine.sh .tpu-carry/
  rm -rf "$stage"
  du -sh .tpu-carry ;;
run)
  SEED=$2; N=$3; LIMIT=$4
  here=$(cd "$(dirname "$0")" && pwd)
  mkdir -p /tmp/nl && cd /tmp/nl || exit 1
  [ -d lib ] || xz -dc "$here/llvm.tar.xz" | tar -x
  [ -d nl ] || xz -dc "$here/numlir.tar.xz" | tar -x
  export LD_LIBRARY_PATH=/tmp/nl/lib JAX_PLATFORMS=cpu NUMLIR_ENABLE_COMPILATION_CACHE=0
  export PYTHONPATH=/tmp/nl/nl/python:/tmp/nl/nl/test:${PYTHONPATH:-}
  python3 -c 'import tqdm' 2>/dev/null || {
    PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps \
      --target /tmp/site "$here"/whl/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site; }
  python3 -c 'import numpy as np, numlir, numlir.numpy as jnp
print(numlir.jit(lambda x: jnp.tanh(x) @ x.T)(np.ones((3, 3), np.float32)).sum())' || exit 1
  out=/tmp/fuzzout/seed$SEED && mkdir -p "$out" && cd /tmp/nl/nl || exit 1
  # Stopped by time: the summary counts the programs finished in order.
  timeout -s INT "$LIMIT" python3 -m fuzz.campaign --n "$N" --seed "$SEED" \
    --jobs "$(( $(nproc) - 1 ))" --out "$out" > "/tmp/fuzzout/campaign-$SEED.log" 2>&1
  cp "$out"/summary.* "$OUT/" 2>/dev/null
  tar -czf "$OUT/fuzzout-$SEED.tgz" -C /tmp/fuzzout "seed$SEED"
  cat "$out/summary.txt" ;;
*)
  echo "usage: $0 pack | run SEED N SECONDS" >&2; exit 2 ;;
esac
