#!/bin/bash
# numlir on the lent TPU machine through the PJRT plugin (docs/pjrt.md). Here, `pack` puts
# what it needs into .tpu-carry/; there, each device call (carry .tpu-carry) runs one part
# and copies its logs and results to $OUT:
#
#   tools/tpu/run.sh pack
#   bash .tpu-carry/run.sh tests [BACKEND]   # an export made here, run without the compiler;
#                                             # the dispatch probe; test_pjrt_backend.py and
#                                             # the DCGAN example
#   bash .tpu-carry/run.sh bench [BACKEND [OPTION...]]  # bench/run.py --device BACKEND
#                                             # beside jax, e.g. --only W1,W7,D
#   bash .tpu-carry/run.sh probe BACKEND SEED/PROGRAM...  # who aborts on a fuzz program:
#                                             # jax, numlir or both (probe_programs.py)
#   bash .tpu-carry/run.sh constructs BACKEND [NAME...]   # the same for single ops
#                                             # (probe_constructs.py)
#   bash .tpu-carry/run.sh dispatch BACKEND [N]  # where a jitted call's time goes, beside
#                                             # jax (dispatch_probe.py)
#
# BACKEND is tpu; pjrt_cpu (jaxlib's CPU client) rehearses a part on any machine.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/carry.sh" ]; then . "$here/carry.sh"; else . "$here/../tpu/carry.sh"; fi
part=${1:-}
backend=${2:-tpu}
out=${OUT:-/tmp/tpu-out}
case "$part" in
pack)
  # The machine has jax and numpy; the DCGAN's reference (haiku, optax) and pytest travel.
  carry_pack "$(git rev-parse --show-toplevel)" tqdm tabulate dm-haiku jmp absl-py optax \
    chex toolz pytest pluggy iniconfig || exit 1
  # An export made here, for `tests` to run there without numlir's compiler (issue 35).
  .venv/bin/python tools/tpu/exported_on_tpu.py make "$CARRY/exported" || exit 1
  cp tools/tpu/run.sh "$CARRY/" && du -sh "$CARRY" ;;
tests)
  carry_unpack "$here" || exit 1
  mkdir -p "$out" && cd /tmp/nl/nl || exit 1
  # Several runs, so that an abort inside XLA (which kills pytest) hides no other part;
  # the fuzz parts name each program on stderr before compiling it.
  pjrt_tests() {
    NUMLIR_PJRT_TEST_BACKEND=$backend NUMLIR_PJRT_TEST_TRACE=1 \
      NUMLIR_ENABLE_COMPILATION_CACHE=0 python3 -m pytest -v -rfE --tb=short \
      -p no:cacheprovider "$@" >> "$out/tests-$backend.log" 2>&1
  }
  status=0
  python3 tools/tpu/exported_on_tpu.py check "$here/exported" "$backend" \
    >> "$out/tests-$backend.log" 2>&1 || status=1
  # Where a jitted call's time goes, beside jax (dispatch_probe.py; about 30 s).
  python3 tools/tpu/dispatch_probe.py "$backend" 2000 > "$out/dispatch-$backend.txt" 2>&1 \
    || status=1
  grep -E " us$|failed" "$out/dispatch-$backend.txt"
  # While no process holds the chip: libtpu loaded by path (NUMLIR_PJRT_PLUGINS).
  pjrt_tests test/python/test_pjrt_backend.py -k libtpu || status=1
  pjrt_tests test/python/test_pjrt_backend.py -k "not fuzzer and not libtpu" || status=1
  for chunk in 0 1 2; do
    # --capture=sys: the program names reach the log even when XLA aborts.
    pjrt_tests --capture=sys \
      "test/python/test_pjrt_backend.py::test_fuzzer_programs_agree_with_numlirs_cpu_backend[$chunk]" \
      || status=1
  done
  pjrt_tests \
    test/python/test_gan_example.py::test_the_script_trains_on_a_pjrt_device_as_on_numlirs_cpu \
    || status=1
  cp -r /tmp/tpu_logs "$out/" 2>/dev/null
  grep -E "passed|failed|Fatal|without numlir's compiler" "$out/tests-$backend.log"
  exit $status ;;
bench)
  carry_unpack "$here" || exit 1
  mkdir -p "$out" && cd /tmp/nl/nl || exit 1
  python3 bench/run.py --device "$backend" --rounds 2 --no-chart "${@:3}" \
    --results-dir "$out/bench-$backend" > "$out/bench-$backend.txt" 2>"$out/bench-$backend.err"
  status=$?
  tail -25 "$out/bench-$backend.txt"
  exit $status ;;
probe)
  carry_unpack "$here" || exit 1
  cd /tmp/nl/nl && python3 tools/tpu/probe_programs.py "$backend" "${@:3}" ;;
constructs)
  carry_unpack "$here" || exit 1
  cd /tmp/nl/nl && python3 tools/tpu/probe_constructs.py "$backend" "${@:3}" ;;
dispatch)
  carry_unpack "$here" || exit 1
  cd /tmp/nl/nl && python3 tools/tpu/dispatch_probe.py "$backend" "${@:3}" ;;
*)
  echo "usage: $0 pack | tests [BACKEND] | bench [BACKEND [OPTION...]] |" \
    "probe BACKEND SEED/PROGRAM... | constructs BACKEND [NAME...] | dispatch BACKEND [N]" >&2
  exit 2 ;;
esac
