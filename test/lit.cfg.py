# lit suite for numlir's dialect, passes, conversions and pipelines.
import os

import lit.formats
import lit.llvm

# Without a site config (lit run on this source directory, tools found via
# NUMLIR_TOOLS_DIR) nobody has initialized lit.llvm yet.
if lit.llvm.llvm_config is None:
    lit.llvm.initialize(lit_config, config)
from lit.llvm import llvm_config

config.name = "numlir"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "python", "Output"]

numlir_tools = getattr(config, "numlir_tools_dir", None) or os.environ.get(
    "NUMLIR_TOOLS_DIR", os.path.join(os.path.dirname(__file__), "..", "build", "bin"))
config.test_exec_root = os.path.join(
    getattr(config, "numlir_obj_root", os.path.join(numlir_tools, "..")), "test")
llvm_tools = getattr(config, "llvm_tools_dir", "/usr/lib/llvm-22/bin")
config.llvm_tools_dir = llvm_tools

llvm_config.with_environment("PATH", numlir_tools, append_path=False)
llvm_config.with_environment("PATH", llvm_tools, append_path=True)
llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(["hlo-opt", "hlo-translate", "mlir-translate", "llc"],
                                   [numlir_tools, llvm_tools])

# ods-examples.test runs mlir-tblgen on the dialect's .td files, which
# include MLIR's.
config.substitutions.append(
    ("%hlo_include_dir", os.path.join(config.test_source_root, "..", "dialects", "hlo", "include")))
config.substitutions.append(
    ("%mlir_include_dir", os.path.join(os.path.dirname(llvm_tools), "include")))

# Tests of the parallel loops need a host that cpu-parallelize-loops splits
# for (it makes one chunk per core of the compiling host).
if (os.cpu_count() or 1) >= 2:
    config.available_features.add("multicore")

# The CUDA backend's PTX tests link libdevice (math functions): PyPI's nvidia-nvvm in the
# project's virtualenv (make setup installs it), NUMLIR_LIBDEVICE, or a CUDA toolkit's.
import glob  # noqa: E402

_repo = os.path.join(os.path.dirname(__file__), "..")
_libdevice = [os.environ.get("NUMLIR_LIBDEVICE", "")] + sorted(
    glob.glob(os.path.join(_repo, ".venv", "lib", "python3*", "site-packages", "nvidia", "*",
                           "nvvm", "libdevice", "libdevice.10.bc"))
    + glob.glob("/usr/local/cuda*/nvvm/libdevice/libdevice.10.bc"), reverse=True)
_libdevice = [p for p in _libdevice if p and os.path.exists(p)]
if _libdevice:
    config.available_features.add("libdevice")
    config.substitutions.append(("%libdevice", os.path.abspath(_libdevice[0])))
