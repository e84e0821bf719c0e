# Makefile - the front door: installs what is missing, configures, builds and runs.
#   make demo        TinyMoE from its forward program to PTX, stage by stage, then a short interpreter run
#   make check       every test (lit/FileCheck suite, C API tests, JAX reference checks of latch-interp, the
#                    benchmark's GPU-free tests on the GPU bundle, which it builds first)
#   make venv        the pinned Python environment of the JAX reference checks (.venv/)
#   make check-asan  the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer
#   make gpu-bundle  PTX, manifests, references and runtime sources for the GPU checks (docs/gpu.md)

LLVM_BIN     := /usr/lib/llvm-22/bin
DEB_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools cmake python3-venv
BUILD        ?= build
BUILD_ASAN   ?= build-asan
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
LIT          := $(LLVM_BIN)/lit -sv
PYTHON       ?= python3
VENV         ?= .venv

.PHONY: all deps build build-asan venv demo check check-lit check-asan clean

all: build

# Install only the Debian packages that are missing (apt-get update only when something is).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# cmake --build re-runs the configuration by itself when a CMakeLists.txt changes.
build: deps
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@[ -f $(BUILD_ASAN)/CMakeCache.txt ] || cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DLATCH_SANITIZE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)

# The pinned Python environment of the JAX reference checks (test/jax), made from scratch only when it is
# missing or test/jax/requirements.txt differs from the copy it was made from (the stamp).
venv:
	@cmp -s test/jax/requirements.txt $(VENV)/requirements.stamp 2>/dev/null || { \
	  echo "Creating $(VENV)/ from test/jax/requirements.txt"; \
	  rm -f $(VENV)/requirements.stamp; \
	  $(PYTHON) -m venv --clear $(VENV) && \
	  $(VENV)/bin/pip install -q --disable-pip-version-check -r test/jax/requirements.txt && \
	  cp test/jax/requirements.txt $(VENV)/requirements.stamp; }

demo: build
	@sh examples/demo.sh $(BUILD)

# venv_python enables the tests that need JAX (lit feature `jax`); without it they are UNSUPPORTED.
check: build venv gpu-bundle
	$(LIT) --param venv_python=$(abspath $(VENV))/bin/python $(BUILD)/test/lit

# Leaks inside libMLIR/libLLVM are suppressed only through test/asan/lsan.supp, which says why for each.
# abort_on_error=1: a sanitizer report (leak, overflow, undefined behaviour) ends the program with
# SIGABRT. Its default, exit code 1, is also latch-opt's code for bad input, so `not latch-opt ...` in
# the tests that expect an error would pass over the report; `not` fails on a signal.
check-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/test/asan/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
	$(LIT) $(BUILD_ASAN)/test/lit

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)

# build/gpu-bundle/: PTX, manifests and latch-interp references of the programs in test/gpu/programs.txt,
# with the runtime's C sources and the GPU check scripts, for a GPU machine without LLVM or MLIR; programs
# that do not compile yet are listed in skipped.txt (docs/gpu.md says how to carry and run it).
.PHONY: gpu-bundle
gpu-bundle: build
	$(PYTHON) test/gpu/make_bundle.py --build $(BUILD) --out $(BUILD)/gpu-bundle
