"""jnp.ufunc and jnp.frompyfunc: a scalar function made a NumPy-style universal
function, with reduce, accumulate, reduceat, outer and at, as jax.numpy's.

Calls vectorize the function (numlir.numpy.vectorize), so it may be written for
scalars. The reductions of a binary ufunc are left folds in NumPy's order
(scans along the axis), so the function need not be associative; they start from
``initial``, else the ufunc's ``identity``, else the first element. ``at`` applies
the function once per index, in order, so repeated indices compound as in
NumPy's unbuffered ``ufunc.at``.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from numlir._src import core
from numlir._src.lax import scan as lax_scan
from numlir._src.numpy import creation, joining, linalg_ops, reshaping, ufuncs
from numlir._src.numpy.util import check_arraylike, dtype_of
from numlir.numpy.vectorization import vectorize


class ufunc:  # noqa: N801 - NumPy's and jax.numpy's name
    """A universal function of ``nin`` inputs and ``nout`` outputs built from ``func``."""

    def __init__(
        self,
        func: Callable[..., Any],
        /,
        nin: int,
        nout: int,
        *,
        name: str | None = None,
        nargs: int | None = None,
        identity: Any = None,
    ):
        self._func = func
        self._vectorized = vectorize(func)
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs = self.nin if nargs is None else operator.index(nargs)
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __hash__(self) -> int:
        return hash((self._func, self.nin, self.nout, self.__name__, self.identity))

    def __eq__(self, other) -> bool:
        return isinstance(other, ufunc) and (
            self._func,
            self.nin,
            self.nout,
            self.__name__,
            self.identity,
        ) == (other._func, other.nin, other.nout, other.__name__, other.identity)

    def __call__(self, *args, out=None, where=None):
        if out is not None:
            raise NotImplementedError(
                f"{self.__name__}: out argument is not supported (arrays are immutable)"
            )
        if where is not None:
            raise NotImplementedError(f"{self.__name__}: where argument is not supported")
        if len(args) != self.nin:
            raise TypeError(
                f"{self.__name__}() takes {self.nin} positional argument(s) but {len(args)} were given"
            )
        return self._vectorized(*args)

    def _check_binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise ValueError(
                f"{method} only supported for binary ufuncs with a single output; "
                f"{self.__name__} has nin={self.nin}, nout={self.nout}"
            )

    def _combine(self, x, y):
        return self._vectorized(x, y).astype(dtype_of(x))

    def reduce(
        self,
        a,
        axis: int | tuple[int, ...] | None = 0,
        dtype=None,
        out=None,
        keepdims: bool = False,
        initial=None,
        where=None,
    ):
        """``a`` reduced over ``axis`` (all axes when None) by folding with the ufunc."""
        self._check_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.reduce: out argument is not supported")
        check_arraylike(f"{self.__name__}.reduce", a)
        a = creation.asarray(a) if dtype is None else creation.asarray(a).astype(dtype)
        axes = (
            tuple(range(a.ndim))
            if axis is None
            else tuple(
                operator.index(d) % max(a.ndim, 1)
                for d in (axis if isinstance(axis, (tuple, list)) else (axis,))
            )
        )
        init = initial if initial is not None else self.identity
        if where is not None:
            if init is None:
                raise ValueError(f"{self.__name__}.reduce: where requires initial or an identity")
            a = ufuncs.where(where, a, creation.asarray(init).astype(dtype_of(a)))
        kept = tuple(a.shape[d] for d in range(a.ndim) if d not in axes)
        moved = reshaping.reshape(
            linalg_ops.moveaxis(a, axes, tuple(range(len(axes)))), (-1,) + kept
        )
        if init is None:  # fold from the first element
            if moved.shape[0] == 0:
                raise ValueError(
                    f"zero-size array to reduction operation {self.__name__} which has no identity"
                )
            carry, xs = moved[0], moved[1:]
        else:
            carry, xs = (
                reshaping.broadcast_to(creation.asarray(init).astype(dtype_of(a)), kept),
                moved,
            )

        def step(acc, x):
            return self._combine(acc, x), None

        result, _ = lax_scan.scan(step, carry, xs)
        if keepdims:
            result = reshaping.expand_dims(result, axes)
        return result

    def accumulate(self, a, axis: int = 0, dtype=None, out=None):
        """The running folds of ``a`` along ``axis``: element i combines elements 0..i."""
        self._check_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.accumulate: out argument is not supported")
        check_arraylike(f"{self.__name__}.accumulate", a)
        a = creation.asarray(a) if dtype is None else creation.asarray(a).astype(dtype)
        axis = operator.index(axis) % max(a.ndim, 1)
        moved = linalg_ops.moveaxis(a, axis, 0)
        if moved.shape[0] == 0:
            return a

        def step(carry, x):
            carry = self._combine(carry, x)
            return carry, carry

        _, rest = lax_scan.scan(step, moved[0], moved[1:])
        return linalg_ops.moveaxis(joining.concatenate([moved[:1], rest]), 0, axis)

    def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
        """NumPy's reduceat: for each (concrete) start ``indices[i]``, the fold of
        ``a[indices[i]:indices[i + 1]]`` along ``axis``, or ``a[indices[i]]`` where the
        next index is not larger."""
        self._check_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.reduceat: out argument is not supported")
        if isinstance(indices, core.Tracer):
            raise TypeError(f"{self.__name__}.reduceat: indices must be concrete (not traced)")
        a = creation.asarray(a) if dtype is None else creation.asarray(a).astype(dtype)
        axis = operator.index(axis) % max(a.ndim, 1)
        starts = np.asarray(indices).astype(np.int64).ravel()
        n = a.shape[axis]
        if np.any((starts < 0) | (starts >= n)):
            raise IndexError(
                f"{self.__name__}.reduceat: index out of bounds for axis {axis} with size {n}"
            )
        moved = linalg_ops.moveaxis(a, axis, 0)
        pieces = []
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else n
            segment = moved[start:end] if end > start else moved[start : start + 1]
            pieces.append(self.reduce(segment, axis=0) if segment.shape[0] > 1 else segment[0])
        return linalg_ops.moveaxis(joining.stack(pieces), 0, axis)

    def outer(self, A, B, /):
        """The ufunc of every pair of elements: shape ``A.shape + B.shape``."""
        if self.nin != 2:
            raise ValueError(
                f"outer only supported for binary ufuncs; {self.__name__} has nin={self.nin}"
            )
        check_arraylike(f"{self.__name__}.outer", A, B)
        A, B = creation.asarray(A), creation.asarray(B)
        return self(reshaping.reshape(A, A.shape + (1,) * B.ndim), B)

    def at(self, a, indices, b=None, /, *, inplace: bool = True):
        """``a`` with the ufunc applied at ``indices`` (any NumPy index), once per index in
        order, with ``b`` as the second operand of a binary ufunc; ``inplace=False`` is required."""
        if inplace:
            raise NotImplementedError(
                "jax.numpy.ufunc.at cannot modify arrays in-place, because JAX arrays "
                "are immutable. Pass inplace=False to instead return an updated array."
            )
        if (b is None) != (self.nin == 1):
            raise ValueError(
                f"{self.__name__}.at: {'b must be None' if self.nin == 1 else 'b is required'} "
                f"for a ufunc with nin={self.nin}"
            )
        check_arraylike(f"{self.__name__}.at", a)
        a = creation.asarray(a)
        positions = creation.arange(a.size).reshape(a.shape)[indices]
        flat_positions = reshaping.ravel(positions)
        values = (
            None
            if b is None
            else reshaping.ravel(
                reshaping.broadcast_to(creation.asarray(b).astype(dtype_of(a)), positions.shape)
            )
        )

        def step(flat, item):
            p, v = item
            old = flat[p]
            new = self._vectorized(old) if v is None else self._vectorized(old, v)
            return flat.at[p].set(creation.asarray(new).astype(dtype_of(flat))), None

        flat, _ = lax_scan.scan(step, reshaping.ravel(a), (flat_positions, values))
        return reshaping.reshape(flat, a.shape)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """``func`` as a ufunc of ``nin`` inputs and ``nout`` outputs."""
    return ufunc(func, nin, nout, identity=identity)
