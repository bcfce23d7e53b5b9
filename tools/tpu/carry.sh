# What travels to the lent TPU machine, which has JAX and libtpu but no numlir, no network
# and at most 64 MiB of tree per call: numlir's build and Python sources, the LLVM, MLIR and
# OpenMP libraries its compiler loads (47 MB compressed), and wheels the machine lacks.
# Sourced by tools/tpu/run.sh and test/fuzz/lent_machine.sh; .git/info/exclude must ignore
# .tpu-carry/.

CARRY=.tpu-carry

# carry_pack REPO WHEEL...: REPO/.tpu-carry/ with numlir at HEAD, its libraries, the PJRT
# plugin's wheel and the named wheels from PyPI.
carry_pack() {
  local repo=$1 stage
  shift
  cd "$repo" || return 1
  local libs="/usr/lib/llvm-22/lib/libLLVM.so.22.1 /usr/lib/llvm-22/lib/libMLIR.so.22.1
    /usr/lib/x86_64-linux-gnu/libomp.so.5"
  # The libraries' archive (75 s of xz) is kept while it is newer than the libraries.
  local keep=yes lib
  for lib in $libs; do [ "$CARRY/llvm.tar.xz" -nt "$lib" ] || keep=no; done
  [ $keep = yes ] && mv "$CARRY/llvm.tar.xz" "$repo/.llvm.tar.xz.kept"
  rm -rf "$CARRY" && mkdir -p "$CARRY/whl" || return 1
  stage=$(mktemp -d) && mkdir -p "$stage/lib" "$stage/nl" || return 1
  if [ $keep = yes ]; then
    mv "$repo/.llvm.tar.xz.kept" "$CARRY/llvm.tar.xz"
  else
    # shellcheck disable=SC2086 - a list of paths
    cp -L $libs "$stage/lib/" || return 1
    (cd "$stage" && tar -cf - lib | xz -9 -T0 > "$repo/$CARRY/llvm.tar.xz") || return 1
  fi
  git archive HEAD python test plugins examples bench tools data | tar -x -C "$stage/nl"
  cp .venv/lib/python3.11/site-packages/numlir/*.so "$stage/nl/python/numlir/" || return 1
  # A library copied in from the build tree finds its neighbours there, not on the machine.
  if readelf -d "$stage"/nl/python/numlir/*.so | grep -q "RUNPATH.*$repo/build"; then
    echo "carry_pack: a numlir library names $repo/build in its RUNPATH;" \
      "reinstall with pip install -e . first" >&2
    return 1
  fi
  (cd "$stage" && tar -cf - nl | xz -6 -T0 > "$repo/$CARRY/numlir.tar.xz") || return 1
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d "$CARRY/whl" "$@"
  .venv/bin/python -m pip wheel -q --no-deps --no-build-isolation -w "$CARRY/whl" plugins/pjrt
  cp tools/tpu/carry.sh "$CARRY/"
  rm -rf "$stage"
}

# carry_unpack DIR: the files carried in DIR unpacked under /tmp/nl (once per machine), the
# wheels installed into /tmp/site, and the environment that finds them.
carry_unpack() {
  local here=$1
  mkdir -p /tmp/nl && cd /tmp/nl || return 1
  [ -d lib ] || xz -dc "$here/llvm.tar.xz" | tar -x || return 1
  # numlir itself always: a warm machine may hold an older unpack.
  rm -rf nl && xz -dc "$here/numlir.tar.xz" | tar -x || return 1
  PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --upgrade --no-index \
    --no-deps --target /tmp/site "$here"/whl/*.whl 2>/dev/null || return 1
  export LD_LIBRARY_PATH=/tmp/nl/lib
  # The carried wheels go last: the machine's own jax, numpy and friends come first.
  export PYTHONPATH=/tmp/nl/nl/python:/tmp/nl/nl/test:${PYTHONPATH:-}:/tmp/site
}
