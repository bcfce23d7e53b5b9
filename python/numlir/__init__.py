"""numlir: a JAX-like numeric compiler on MLIR.

Example::

    import numpy as np, numlir, numlir.numpy as jnp

    @numlir.compile          # alias: numlir.jit
    def f(x, w, b):
        return jnp.tanh(x @ w + b).sum(axis=1)

    f(np.ones((4, 8), np.float32), np.ones((8, 3), np.float32), np.zeros(3, np.float32))
"""

from numlir._src import config
from numlir._src.numpy import array_methods as _array_methods  # noqa: F401 - installs x + y, x.sum()...
from numlir._src.forward_mode import jacfwd, jvp, linearize
from numlir._src.jit import ShapeDtypeStruct, clear_caches, compile, jit
from numlir._src.introspection import eval_shape, make_graph, make_jaxpr, typeof
from numlir._src.config import (debug_infs, debug_nans, default_matmul_precision, disable_jit, enable_x64,
                                explain_cache_misses, log_compiles, numpy_rank_promotion)
from numlir._src.device_queries import (default_backend, device_count, devices, host_count, host_id,
                                        host_ids, local_device_count, local_devices, process_count,
                                        process_index, process_indices)
from numlir._src.array import Array
from numlir._src.source_info import named_call, named_scope
from numlir._src.backends.base import Device
from numlir._src.device_transfer import block_until_ready, device_get, device_put
from numlir._src.placement import (default_device, transfer_guard, transfer_guard_device_to_device,
                                   transfer_guard_device_to_host, transfer_guard_host_to_device)
from numlir._src.backends import CompileError, OutOfMemoryError
from numlir._src.vmap import vmap
from numlir._src.pmap import pmap
from numlir._src.shard_map import shard_map
from numlir._src import sharded_jit as _sharded_jit  # noqa: F401 - jit's shardings
from numlir._src.sharding import NamedSharding, P, Shard, make_mesh
from numlir._src.checkpoint import checkpoint, checkpoint_name, checkpoint_policies, remat
from numlir._src.custom_derivatives import custom_jvp, custom_vjp
from numlir._src.custom_gradient import closure_convert, custom_gradient
from numlir._src.reverse_mode import grad, hessian, jacrev, value_and_grad, vjp
from numlir._src.linear_transpose import linear_transpose
from numlir._src.saved_executable import LoadedExecutable, SavedExecutableError
from numlir._src.saved_executable import load as load_executable
from numlir._src.core import (ClosedGraph, ConcretizationTypeError, Graph, ShapedArray,
                              TracerBoolConversionError, UnexpectedTracerError,
                              ensure_compile_time_eval)
from numlir._src.callback import pure_callback
from numlir import (custom_derivatives, debug, distributed, export, lax, nn, numpy, random, scipy,
                    sharding, tree_util)

jacobian = jacrev  # jax's other name for it


__all__ = [
    "Array", "ClosedGraph", "CompileError", "ConcretizationTypeError", "Graph", "ShapeDtypeStruct",
    "ShapedArray", "TracerBoolConversionError", "UnexpectedTracerError", "checkpoint",
    "block_until_ready", "checkpoint_name", "checkpoint_policies", "clear_caches", "compile",
    "config", "default_backend", "default_device", "device_count", "device_get", "device_put", "disable_jit",
    "enable_x64", "eval_shape", "host_count", "host_id", "host_ids", "jacobian",
    "local_device_count", "local_devices", "make_jaxpr", "make_mesh", "NamedSharding", "P", "Shard", "shard_map", "process_count", "process_index",
    "process_indices", "typeof", "debug_infs", "debug_nans", "default_matmul_precision",
    "explain_cache_misses", "log_compiles", "numpy_rank_promotion", "named_call", "named_scope", "Device",
    "linear_transpose", "load_executable", "ensure_compile_time_eval", "LoadedExecutable", "SavedExecutableError",
    "closure_convert", "custom_derivatives", "debug", "distributed", "pure_callback", "custom_gradient", "custom_jvp", "custom_vjp", "devices", "grad", "hessian", "jacfwd", "jacrev", "jit", "jvp", "lax",
    "linearize", "make_graph", "nn", "numpy", "OutOfMemoryError", "pmap", "random", "remat", "sharding", "transfer_guard",
    "transfer_guard_device_to_device", "transfer_guard_device_to_host",
    "transfer_guard_host_to_device", "tree_util", "value_and_grad", "vjp", "vmap",
]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
