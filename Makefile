# numlir: `make demo` and `make test` do all set-up on a fresh Debian 12/13.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
LLVM_BIN := /usr/lib/llvm-22/bin
STAMPS := .stamps
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools \
	gcc g++ ninja-build python3-venv python3-dev
JOBS ?= $(shell nproc)

.PHONY: setup build test test-lit test-python demo bench fuzz clean

setup: $(STAMPS)/debian $(STAMPS)/venv

# System packages: LLVM/MLIR 22 from Debian (bookworm-security / trixie-security).
$(STAMPS)/debian:
	@mkdir -p $(STAMPS)
	@if ! dpkg -s $(DEBIAN_PACKAGES) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES); \
	fi
	@touch $@

# Python dependencies, test oracles included, in a project virtualenv.
$(STAMPS)/venv: pyproject.toml $(STAMPS)/debian
	@mkdir -p $(STAMPS)
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.0" cmake ninja \
	  numpy ml_dtypes tqdm pytest pytest-xdist hypothesis jax jaxlib
	@touch $@

# Builds the C++ core, hlo-opt, the runtime and the extensions into build/,
# and installs the package into the virtualenv in editable mode.
build: setup
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install -q --no-build-isolation -e . \
	  -Cbuild.verbose=false

test-lit: build
	$(LLVM_BIN)/lit -sv build/test

test-python: build
	$(PY) -m pytest -q -n $(JOBS) test/python

test: build
	$(LLVM_BIN)/lit -s build/test
	$(PY) -m pytest -q -n $(JOBS) test/python

# A differential fuzzing campaign against jax: make fuzz N=10000 SEED=1 (docs/fuzzing.md).
fuzz: build
	PYTHONPATH=test $(PY) -m fuzz.campaign --n $(or $(N),1000) --seed $(or $(SEED),1) \
	  --start $(or $(START),0) --jobs $(JOBS) --out fuzz-out

demo: build
	$(PY) examples/logistic_regression_digits.py

bench: build
	$(PY) -m pip install -q torch==2.13.0 || $(PY) -m pip install -q torch
	$(PY) bench/run.py

clean:
	rm -rf build $(STAMPS)
