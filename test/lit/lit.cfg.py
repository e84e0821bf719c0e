# lit configuration of the Latch regression suite (FileCheck, not and count come from llvm-22-tools).
import os
import lit.formats

config.name = "latch"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.latch_bin_dir, "test", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.environment["PATH"] = os.pathsep.join(
    [config.latch_bin_dir, os.path.join(config.latch_bin_dir, "test", "capi"), config.llvm_tools_dir,
     config.environment.get("PATH", os.environ.get("PATH", ""))])
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.substitutions.append(("%latch_src", config.latch_source_dir))
config.substitutions.append(("%latch_bin", config.latch_bin_dir))
if config.latch_sanitize:
    config.available_features.add("asan")
# The JAX reference checks (test/lit/jax) need the pinned venv that `make check` passes as
# `--param venv_python=...`; without it they are UNSUPPORTED (REQUIRES: jax).
venv_python = lit_config.params.get("venv_python")
if venv_python:
    config.available_features.add("jax")
    config.substitutions.append(("%venv_python", venv_python))
# The benchmark's GPU-free tests (bench/test_bench.py) read the GPU bundle that `make check` builds first
# (`make gpu-bundle`); without it they are UNSUPPORTED (REQUIRES: gpu-bundle).
if os.path.exists(os.path.join(config.latch_bin_dir, "gpu-bundle", "programs", "tinymoe-small", "host.manifest.json")):
    config.available_features.add("gpu-bundle")
# ptxas (CUDA) assembles the PTX that `latch-opt --emit=ptx` writes (test/lit/emit); tests that run it say
# REQUIRES: ptxas and call it as %ptxas.
import shutil
ptxas = "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
