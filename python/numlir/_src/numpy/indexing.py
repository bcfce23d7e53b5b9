"""NumPy indexing for numlir arrays: ``x[idx]`` and ``x.at[idx].set/add/...``.

An index is first parsed into one entry per (reshaped) operand dimension:
``None`` becomes a new size-1 dimension indexed by ``:``, Ellipsis expands to
``:``s and concrete boolean masks become their integer ``nonzero`` arrays.
Reading applies the static slices (``lax.slice``/``rev``), scalar indices
(``slice``/``dynamic_slice``) and then any integer arrays with one ``gather``;
updating turns the whole index into one ``scatter``.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any, Callable

import numpy as np

from numlir._src import core, dtypes, traceback_util
from numlir._src.array import Array, as_array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax import slicing
from numlir._src.numpy import ufuncs
from numlir._src.numpy.creation import _contains_tracer, asarray
from numlir._src.numpy.util import broadcast_shapes, result_dtype

# Entry kinds: ("slice", start, length, step) with start/step as in the *original* axis,
# ("int", i) static, ("dyn", scalar array) run-time scalar, ("arr", integer array).


def _index_error(msg: str) -> IndexError:
    return IndexError(core._with_location(msg))


def _static_int(v, what: str):
    if isinstance(v, core.Tracer):
        raise _index_error(
            f"Array slice indices must have static start/stop/step to be used with NumPy "
            f"indexing syntax; got a traced {what} ({v.aval.str_short()}). Use "
            f"numlir.lax.dynamic_slice for slices of traced start and static size.")
    if v is None or isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return None if v is None else int(v)
    if isinstance(v, Array) and not v.shape and dtypes.is_int(v.dtype):
        return int(v)
    if isinstance(v, core.Tracer):
        raise _index_error(
            f"Array slice indices must have static start/stop/step to be used with NumPy "
            f"indexing syntax; got a traced {what} ({v.aval.str_short()}). Use "
            f"numlir.lax.dynamic_slice for slices of traced start and static size.")
    raise _index_error(f"slice indices must be integers or None, got {v!r}")


def _as_index_array(v):
    """An index value as ("arr"/"dyn"/"int"/"bool") data."""
    if isinstance(v, (list, tuple)):

        if _contains_tracer(v):
            from numlir._src.numpy.joining import array_from_nested  # joining.py builds on this module

            v = array_from_nested(v)
        else:
            v = np.asarray(v)
            if v.dtype == np.float64 and v.size == 0:
                v = v.astype(np.int32)
    aval = core.get_aval(v)
    if dtypes.is_bool(aval.dtype):
        if isinstance(v, core.Tracer):
            raise _index_error(
                f"Array boolean indices must be concrete; got a traced boolean mask "
                f"({aval.str_short()}). Its number of True values, and so the result shape, is "
                f"not known while tracing. Use numlir.numpy.where(mask, x, fill) instead, or "
                f"compute the indices outside jit.")
        return "bool", core.concrete_to_numpy(v)
    if not dtypes.is_int(aval.dtype):
        raise _index_error(f"Indexer must have integer or boolean type, got indexer with type "
                           f"{aval.dtype.name} (shape {aval.shape})")
    if not aval.shape:
        if isinstance(v, (np.ndarray, np.generic)):
            return "int", int(v)
        return "dyn", v
    return "arr", v


def _parse(x, idx):
    """(x reshaped for newaxes, entries, has_arrays): one entry per dimension of the result."""
    shape = core.get_aval(x).shape
    if isinstance(idx, list):  # jax (unlike NumPy) rejects these as ambiguous
        raise TypeError(core._with_location(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            "`arr[array(seq)]` or `arr[tuple(seq)]` instead of `arr[seq]`"))
    if not isinstance(idx, tuple):
        idx = (idx,)
    items = []
    for v in idx:
        if v is None or v is Ellipsis:
            items.append(("new",) if v is None else ("ellipsis",))
        elif isinstance(v, builtins.slice):
            items.append(("slice", v))
        elif isinstance(v, bool):
            items.append(("bool0", v))
        elif isinstance(v, (int, np.integer)):
            items.append(("int", int(v)))
        elif isinstance(v, (core.Tracer, Array, np.ndarray, np.generic, list, tuple)):
            kind, val = _as_index_array(v)
            if kind == "bool" and val.ndim == 0:
                items.append(("bool0", bool(val)))
            elif kind == "bool":
                items.append(("mask", val))
            else:
                items.append((kind, val))
        else:
            raise _index_error(
                f"Indexer must be an integer, slice, None, Ellipsis, or an integer or boolean "
                f"array; got {type(v).__name__}: {v!r:.60}")
    if sum(it[0] == "ellipsis" for it in items) > 1:
        raise _index_error("an index can only have a single ellipsis ('...')")
    used = sum(it[1].ndim if it[0] == "mask" else 1 for it in items
               if it[0] not in ("new", "ellipsis", "bool0"))
    if used > len(shape):
        raise _index_error(f"Too many indices: array is {len(shape)}-dimensional, but {used} "
                           f"were indexed")
    fill = [("slice", builtins.slice(None))] * (len(shape) - used)
    if any(it[0] == "ellipsis" for it in items):
        i = next(i for i, it in enumerate(items) if it[0] == "ellipsis")
        items = items[:i] + fill + items[i + 1:]
    else:
        items = items + fill
    new_shape, entries, dim = [], [], 0
    for it in items:
        kind = it[0]
        if kind in ("new", "bool0"):
            new_shape.append(1)
            empty = kind == "bool0" and not it[1]
            entries.append(("slice", builtins.slice(0, 0) if empty else builtins.slice(None)))
            continue
        if kind == "mask":
            mask = it[1]
            if mask.shape != shape[dim:dim + mask.ndim]:
                raise _index_error(f"boolean index of shape {mask.shape} does not match the "
                                   f"indexed array dimensions {shape[dim:dim + mask.ndim]}")
            for nz in np.nonzero(mask):
                entries.append(("arr", nz.astype(dtypes.default_int_dtype())))
                new_shape.append(shape[dim])
                dim += 1
            continue
        entries.append(it)
        new_shape.append(shape[dim])
        dim += 1
    if tuple(new_shape) != shape:
        x = shape_ops.reshape(x, new_shape)
    return x, entries, tuple(new_shape)


def _slice_geometry(s: builtins.slice, n: int):
    start, stop, step = (_static_int(s.start, "start"), _static_int(s.stop, "stop"),
                         _static_int(s.step, "step"))
    if step == 0:
        raise _index_error("slice step cannot be zero")
    start, stop, step = builtins.slice(start, stop, step).indices(n)
    length = builtins.max(0, math.ceil((stop - start) / step))
    return start, length, step


def _check_static_int(i: int, n: int, axis: int) -> int:
    if not -n <= i < n:
        raise _index_error(f"index {i} is out of bounds for axis {axis} with size {n}")
    return i + n if i < 0 else i


def _index_dtype(shape):
    """The type gather and scatter indices into ``shape`` convert to, as jax's: int32 unless a
    dimension is beyond it, whatever the indices' own type, so an int64 index beyond int32
    wraps around into it (arange(10)[2**63 - 1] is arange(10)[-1], clamped to 0)."""
    return slicing.index_dtype_for_shape(shape)


def _wrap_negative(arr, n: int, dtype):
    """Negative signed indices count from the end (in their own type, before they convert
    to ``dtype``), as jax's; unsigned ones do not."""
    aval = core.get_aval(arr)
    if not isinstance(arr, core.Tracer):
        v = core.concrete_to_numpy(arr)
        if dtypes.is_signed_int(aval.dtype):
            v = v.astype(np.int64)
            v = np.where(v < 0, v + n, v)
        return as_array(v.astype(dtype))
    if dtypes.is_signed_int(aval.dtype):
        arr = ew.select(ew.lt(arr, ew.convert_element_type(0, aval.dtype)),
                        ew.add(arr, ew.convert_element_type(n, aval.dtype)), arr)
    return ew.convert_element_type(arr, dtype)


def _stack_last(arrays, shape):
    """The arrays broadcast to ``shape`` and stacked along a new last axis (index vectors)."""
    if not builtins.any(isinstance(a, core.Tracer) for a in arrays):
        host = [np.broadcast_to(core.concrete_to_numpy(a), shape) for a in arrays]
        return as_array(np.stack(host, axis=-1))
    # Joined along a new leading axis and transposed: concatenating along an inner axis with a
    # constant operand currently fails to link under hlo-to-cpu (memrefCopy).
    rows = [shape_ops.broadcast_in_dim(a, (1,) + tuple(shape),
                                       tuple(range(1 + len(shape) - core.get_aval(a).ndim,
                                                   1 + len(shape))))
            for a in arrays]
    stacked = slicing.concatenate(rows, 0)
    return shape_ops.transpose(stacked, tuple(range(1, len(shape) + 1)) + (0,))


def _adjacent(positions) -> bool:
    return builtins.all(b == a + 1 for a, b in zip(positions, positions[1:]))


# --- reading ----------------------------------------------------------------------------------


def getitem(x, idx, *, mode=None, fill_value=None):
    """``x[idx]`` with NumPy semantics; out-of-bounds integer-array indices clamp (``mode=None``),
    or give ``fill_value`` (``mode="fill"``)."""
    x = as_array(x)
    x, entries, shape = _parse(x, idx)
    has_arrays = builtins.any(e[0] == "arr" for e in entries)
    if has_arrays:  # scalar indices join the advanced (broadcast) indices, as in NumPy
        entries = [("arr", e[1]) if e[0] in ("int", "dyn") else e for e in entries]
    nd = len(shape)
    starts, limits, strides = [0] * nd, list(shape), [1] * nd
    reversed_dims, dropped, dyn = [], [], {}
    for d, e in enumerate(entries):
        n = shape[d]
        if e[0] == "slice":
            start, length, step = _slice_geometry(e[1], n)
            if step < 0:
                reversed_dims.append(d)
                start, step = n - 1 - start, -step
            if length == 0:
                start = 0
            starts[d], limits[d], strides[d] = start, start + builtins.max(length - 1, 0) * step + (
                1 if length else 0), step
        elif e[0] == "int":
            i = _check_static_int(e[1], n, d)
            starts[d], limits[d] = i, i + 1
            dropped.append(d)
        elif e[0] == "dyn":
            dyn[d] = e[1]
            dropped.append(d)
    out = slicing.rev(x, reversed_dims)
    out = slicing.slice(out, starts, limits, strides)
    if dyn:
        oshape = core.get_aval(out).shape
        out = slicing.dynamic_slice(out, [dyn.get(d, 0) for d in range(nd)],
                                    [1 if d in dyn else s for d, s in enumerate(oshape)])
    if dropped:
        oshape = core.get_aval(out).shape
        out = shape_ops.reshape(out, [s for d, s in enumerate(oshape) if d not in dropped])
    if not has_arrays:
        return out
    return _gather_arrays(out, entries, mode, fill_value)


def _gather_arrays(y, entries, mode, fill_value):
    shape = core.get_aval(y).shape
    adv = [d for d, e in enumerate(entries) if e[0] == "arr"]
    arrays = [as_array(entries[d][1]) for d in adv]
    batch = broadcast_shapes("indexing", *[core.get_aval(a).shape for a in arrays])
    rest = [d for d in range(len(shape)) if d not in adv]
    first = adv[0] if _adjacent(adv) else 0
    n_before = sum(d < first for d in rest) if _adjacent(adv) else 0
    out_rank = len(batch) + len(rest)
    offset_dims = tuple(range(n_before)) + tuple(range(n_before + len(batch), out_rank))
    out_shape = [shape[d] for d in rest]
    out_shape[n_before:n_before] = batch
    if builtins.any(shape[d] == 0 for d in adv):
        if math.prod(batch) != 0:
            raise _index_error(f"index is out of bounds for an axis of size 0 (array shape {shape})")
        return shape_ops.full(out_shape, ew.convert_element_type(0, y.dtype, y.weak_type))
    dtype = _index_dtype(shape)
    indices = _stack_last([_wrap_negative(a, shape[d], dtype) for a, d in zip(arrays, adv)], batch)
    dnums = slicing.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(adv),
                                           start_index_map=tuple(adv))
    sizes = [1 if d in adv else s for d, s in enumerate(shape)]
    mode = slicing.GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode
    return slicing.gather(y, indices, dnums, sizes, mode=mode, fill_value=fill_value)


# --- updating -----------------------------------------------------------------------------------


def _warn_unsafe_update_cast(values, xaval) -> None:
    """jax's FutureWarning where ``values`` cannot be cast to ``x``'s dtype safely."""
    vaval = core.get_aval(values)
    if vaval.dtype != xaval.dtype and dtypes.result_type(
            (vaval.dtype, vaval.weak_type), (xaval.dtype, False))[0] != xaval.dtype:
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={vaval.dtype} to dtype={xaval.dtype} with "
            "jax_numpy_dtype_promotion=standard. In future JAX releases this will result in "
            "an error.", FutureWarning, stacklevel=4)


def _scatter_update(x, idx, values, kind: str, mode=None):
    """``x`` with ``x[idx]`` combined with ``values`` by ``kind`` (set/add/mul/min/max).

    As jax: ``x`` and ``values`` combine in their promoted dtype, and the result is
    converted back to ``x``'s (so ``int_x.at[i].multiply(0.5)`` halves, then truncates, and
    a float32 ``x`` times a float64 1e300 is finite where 1e300 is not a float32)."""
    x = as_array(x)
    xaval = core.get_aval(x)
    values = asarray(values)  # lists too, as jax; Python scalars stay weak
    _warn_unsafe_update_cast(values, xaval)
    dtype, weak = result_dtype(x, values)
    if kind in ("min", "max") and dtypes.is_complex(dtype) and not dtypes.is_complex(xaval.dtype):
        # Complex numbers order by their real part first, and converting back keeps only it.
        dtype = dtypes.complex_part_dtype(dtype)
    y, entries, shape = _parse(x, idx)
    y = ew.convert_element_type(y, dtype, weak)
    values = ew.convert_element_type(values, dtype, weak)
    out = _scatter_in_common_dtype(x, y, entries, shape, values, kind, mode)
    return ew.convert_element_type(out, xaval.dtype, xaval.weak_type)


def _scatter_in_common_dtype(x, y, entries, shape, values, kind: str, mode):
    xaval = core.get_aval(x)
    entries = [("arr", e[1]) if e[0] in ("int", "dyn") else e for e in entries]
    adv = [d for d, e in enumerate(entries) if e[0] == "arr"]
    arrays = [as_array(entries[d][1]) for d in adv]
    batch = broadcast_shapes("indexing", *[core.get_aval(a).shape for a in arrays]) if adv else ()
    geometry = {d: _slice_geometry(e[1], shape[d]) for d, e in enumerate(entries)
                if e[0] == "slice"}
    full = [d for d, (start, length, step) in geometry.items()
            if start == 0 and step == 1 and length == shape[d]]
    partial = [d for d in geometry if d not in full]
    # The shape of x[idx] in NumPy's order, as labels: ("b", i) batch axes, ("s", d) slices.
    slice_labels = [("s", d) for d in geometry]
    batch_labels = [("b", i) for i in range(len(batch))]
    if adv and _adjacent(adv):
        k = sum(d < adv[0] for d in geometry)
        labels = slice_labels[:k] + batch_labels + slice_labels[k:]
    else:
        labels = batch_labels + slice_labels
    size = {("b", i): b for i, b in enumerate(batch)}
    size.update({("s", d): geometry[d][1] for d in geometry})
    indexed_shape = tuple(size[lab] for lab in labels)
    vshape = core.get_aval(values).shape
    if len(vshape) > len(indexed_shape) or broadcast_shapes(
            "scatter", vshape, indexed_shape) != indexed_shape:
        raise core.shape_error(f"shape mismatch: values of shape {vshape} cannot be broadcast to "
                               f"the indexed shape {indexed_shape}")
    values = shape_ops.broadcast_to_rank(values, indexed_shape)
    grid = batch + tuple(geometry[d][1] for d in partial)
    if not adv and not partial:  # every dimension is indexed by ":"
        out = values if kind == "set" else _COMBINE[kind](y, values)
        return shape_ops.reshape(out, xaval.shape)
    if math.prod(grid) == 0:
        return x
    dtype = _index_dtype(shape)
    comps = [shape_ops.broadcast_in_dim(_wrap_negative(a, shape[d], dtype), grid,
                                        tuple(range(len(batch) - core.get_aval(a).ndim,
                                                    len(batch))))
             for a, d in zip(arrays, adv)]
    for j, d in enumerate(partial):
        start, length, step = geometry[d]
        line = as_array((start + step * np.arange(length)).astype(dtype))
        comps.append(shape_ops.broadcast_in_dim(line, grid, (len(batch) + j,)))
    indices = _stack_last(comps, grid)
    target = batch_labels + [("s", d) for d in partial] + [("s", d) for d in full]
    updates = shape_ops.transpose(values, [labels.index(t) for t in target])
    dims = tuple(adv) + tuple(partial)
    dnums = slicing.ScatterDimensionNumbers(
        update_window_dims=tuple(range(len(grid), len(grid) + len(full))),
        inserted_window_dims=tuple(sorted(dims)), scatter_dims_to_operand_dims=dims)
    out = slicing._scatter(kind, y, indices, updates, dnums, mode)
    return shape_ops.reshape(out, xaval.shape)


_COMBINE: dict[str, Callable] = {"add": ew.add, "mul": ew.mul, "min": ew.min, "max": ew.max}


class _IndexUpdateRef:
    """``x.at[idx]``: functional versions of ``x[idx] = y``, ``x[idx] += y``, ..."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    @traceback_util.api_boundary
    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode=None,
            fill_value=None):
        """``x[idx]`` (``mode="fill"`` gives ``fill_value`` for out-of-bounds indices)."""
        return getitem(self.array, self.index, mode=mode, fill_value=fill_value)

    @traceback_util.api_boundary
    def set(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None):
        """``x`` with ``x[idx] = values`` (out-of-bounds updates are dropped unless
        ``mode="clip"``)."""
        return _scatter_update(self.array, self.index, values, "set", mode)

    @traceback_util.api_boundary
    def add(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None):
        """``x`` with ``x[idx] += values`` (repeated indices accumulate)."""
        return _scatter_update(self.array, self.index, values, "add", mode)

    @traceback_util.api_boundary
    def multiply(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                 mode=None):
        """``x`` with ``x[idx] *= values``."""
        return _scatter_update(self.array, self.index, values, "mul", mode)

    mul = multiply

    @traceback_util.api_boundary
    def divide(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
               mode=None):
        """``x`` with ``x[idx] /= values``."""

        ones = _scatter_update(_ones_like(self.array), self.index, values, "mul", mode)
        return ufuncs.divide(self.array, ones)

    @traceback_util.api_boundary
    def power(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
              mode=None):
        """``x`` with ``x[idx] **= values``."""

        ones = _scatter_update(_ones_like(self.array), self.index, values, "mul", mode)
        return ufuncs.power(self.array, ones)

    @traceback_util.api_boundary
    def min(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None):
        """``x`` with ``x[idx] = minimum(x[idx], values)``."""
        return _scatter_update(self.array, self.index, values, "min", mode)

    @traceback_util.api_boundary
    def max(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None):
        """``x`` with ``x[idx] = maximum(x[idx], values)``."""
        return _scatter_update(self.array, self.index, values, "max", mode)

    @traceback_util.api_boundary
    def apply(self, func: Callable, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode=None):
        """``x`` with ``x[idx] = func(x[idx])`` (``func`` is applied once per element)."""
        clip = "clip" if mode == "clip" else None
        return _scatter_update(self.array, self.index, func(getitem(self.array, self.index,
                                                                    mode=clip)), "set", mode)


def _ones_like(x):
    aval = core.get_aval(x)
    return shape_ops.full(aval.shape, ew.convert_element_type(1, aval.dtype, aval.weak_type))


class _IndexUpdateHelper:
    """The ``x.at`` property: ``x.at[idx].set(y)`` etc. (see ``_IndexUpdateRef``).

    Example::

        >>> jnp.zeros(3).at[1].set(5.0)
        Array([0., 5., 0.], dtype=float32)
    """

    __slots__ = ("array",)

    def __init__(self, array: Any):
        self.array = array

    def __getitem__(self, index) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"
