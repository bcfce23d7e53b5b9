#!/bin/bash
# A differential fuzz campaign on a lent machine's CPU cores (the TPU machine: 13 cores,
# JAX installed, no numlir): `pack` here puts what travels into .tpu-carry/
# (tools/tpu/carry.sh); `run` there unpacks it under /tmp and runs a campaign with JAX on its
# CPU client, copying the summary and reproducers to $OUT.
#
#   test/fuzz/lent_machine.sh pack
#   device run (carry .tpu-carry): bash .tpu-carry/lent_machine.sh run SEED N SECONDS [START [ARG...]]
#
# START (default 0) continues a seed from its program START, e.g. one begun here; further
# arguments go to the campaign (e.g. --favor fft,linalg).
#
# One 9-minute call finished about 3,500 programs with 12 workers (docs/fuzzing.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/carry.sh" ]; then . "$here/carry.sh"; else . "$here/../../tools/tpu/carry.sh"; fi
case "${1:-}" in
pack)
  carry_pack "$(git rev-parse --show-toplevel)" tqdm || exit 1
  cp test/fuzz/lent_machine.sh "$CARRY/" && du -sh "$CARRY" ;;
run)
  SEED=$2; N=$3; LIMIT=$4; START=${5:-0}
  shift $(( $# < 5 ? $# : 5 ))
  carry_unpack "$here" || exit 1
  export JAX_PLATFORMS=cpu NUMLIR_ENABLE_COMPILATION_CACHE=0
  python3 -c 'import numpy as np, numlir, numlir.numpy as jnp
print(numlir.jit(lambda x: jnp.tanh(x) @ x.T)(np.ones((3, 3), np.float32)).sum())' || exit 1
  out=/tmp/fuzzout/seed$SEED-$START && mkdir -p "$out" && cd /tmp/nl/nl || exit 1
  # Stopped by time: the summary counts the programs finished in order.
  timeout -s INT "$LIMIT" python3 -m fuzz.campaign --n "$N" --seed "$SEED" --start "$START" \
    --jobs "$(( $(nproc) - 1 ))" --out "$out" "$@" > "/tmp/fuzzout/campaign-$SEED.log" 2>&1
  cp "$out"/summary.* "$OUT/" 2>/dev/null
  tar -czf "$OUT/fuzzout-$SEED-$START.tgz" -C /tmp/fuzzout "seed$SEED-$START"
  cat "$out/summary.txt" ;;
*)
  echo "usage: $0 pack | run SEED N SECONDS [START [ARG...]]" >&2; exit 2 ;;
esac
