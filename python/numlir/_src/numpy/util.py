"""Promotion and broadcasting helpers shared by the numlir.numpy implementation."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from numlir._src import config, core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops


def check_arraylike(name: str, *args: Any) -> None:
    for i, x in enumerate(args):
        if isinstance(x, (list, tuple)):
            raise core.shape_error(
                f"{name} requires ndarray or scalar arguments, got {type(x).__name__} at position "
                f"{i}. Wrap it with numlir.numpy.asarray first."
            )
        core.get_aval(x)  # raises TypeError for anything else


def avals(*args):
    return [core.get_aval(x) for x in args]


def result_dtype(*args) -> tuple[np.dtype, bool]:
    return dtypes.result_type(*[(a.dtype, a.weak_type) for a in avals(*args)])


def _convert(x, dtype, weak):
    aval = core.get_aval(x)
    if aval.dtype == dtype and aval.weak_type == weak and not dtypes.is_python_scalar(x):
        return x  # keeps closed-over NumPy arrays as they are, so they become one constvar each
    return ew.convert_element_type(x, dtype, weak)


def promote_dtypes(*args):
    """Convert all arguments to their common (JAX-promoted) dtype."""
    if len(args) < 2:
        return list(args)
    dtype, weak = result_dtype(*args)
    return [_convert(x, dtype, weak) for x in args]


def promote_dtypes_inexact(*args):
    """Promote, then make the result floating (ints/bools by width, as in jax)."""
    dtype, weak = result_dtype(*args)
    dtype = dtypes.to_inexact_dtype(dtype)
    return [_convert(x, dtype, weak) for x in args]


def broadcast_shapes(name: str, *shapes) -> tuple[int, ...]:
    """NumPy broadcasting of shapes; a TypeError naming ``name`` and the shapes otherwise."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        sizes = {s[i - ndim + len(s)] for s in shapes if i - ndim + len(s) >= 0}
        non_one = sizes - {1}
        if len(non_one) > 1:
            raise core.shape_error(
                f"{name} got incompatible shapes for broadcasting: "
                + " and ".join(str(tuple(s)) for s in shapes)
            )
        out.append(non_one.pop() if non_one else 1)
    return tuple(out)


def _check_rank_promotion(name: str, shapes) -> None:
    mode = config.flags.numpy_rank_promotion
    ranks = {len(s) for s in shapes if len(s)}
    if mode == "allow" or len(ranks) < 2:
        return
    msg = (f"Operands could not be broadcast together for {name} with shapes "
           f"{' '.join(str(tuple(s)) for s in shapes)} and with the config option "
           f"jax_numpy_rank_promotion='{mode}'. For more information, see JAX's sharp bits on rank "
           "promotion; set it to 'allow' to permit implicit rank promotion.")
    if mode == "raise":
        raise ValueError(core.with_location(msg))
    warnings.warn(core.with_location(msg), stacklevel=4)


def promote_shapes(name: str, *args, check_rank: bool = True):
    """Broadcast non-scalar arguments to the common shape (rank-0 ones lax broadcasts itself).

    ``check_rank`` applies jax_numpy_rank_promotion (jax's where and friends do not)."""
    shapes = [a.shape for a in avals(*args)]
    if check_rank:
        _check_rank_promotion(name, shapes)
    shape = broadcast_shapes(name, *shapes)
    return [x if s == shape or s == () else shape_ops.broadcast_to_rank(x, shape)
            for x, s in zip(args, shapes)]


def promote_args(name: str, *args):
    check_arraylike(name, *args)
    return promote_shapes(name, *promote_dtypes(*args))


def promote_arrays_inexact(name: str, *args):
    """promote_args_inexact's results as numlir arrays, so that Python operators on them
    run as numlir ops (on NumPy inputs they would run NumPy's)."""
    return [as_array(a) for a in promote_args_inexact(name, *args)]


def promote_args_inexact(name: str, *args):
    check_arraylike(name, *args)
    return promote_shapes(name, *promote_dtypes_inexact(*args))


def dtype_of(x) -> np.dtype:
    return core.get_aval(x).dtype


# --- numlir.numpy's type promotion functions ---------------------------------------


def result_type(*args) -> np.dtype:
    """The dtype numlir.numpy's type promotion gives for these arrays/dtypes/scalars."""
    pairs = []
    for x in args:
        if isinstance(x, (np.dtype, type, str)) and not dtypes.is_python_scalar(x):
            pairs.append((np.dtype(x), False))
        else:
            aval = core.get_aval(x)
            pairs.append((aval.dtype, aval.weak_type))
    return dtypes.result_type(*pairs)[0]


def promote_types(a, b) -> np.dtype:
    return dtypes.promote_types(a, b)


