"""Operators and methods shared by numlir.Array and tracers (they call numlir.numpy)."""

from __future__ import annotations

from numlir._src import traceback_util


def _jnp():
    from numlir import numpy as jnp

    return jnp


def _binop(name: str, reflected: bool = False):
    def op(self, other):
        if not _is_operand(other):
            return NotImplemented
        fn = getattr(_jnp(), name)
        return fn(other, self) if reflected else fn(self, other)

    op.__name__ = f"__{'r' if reflected else ''}{name}__"
    return op


def _is_operand(x) -> bool:
    import numpy as np

    from numlir._src import core

    return isinstance(x, (int, float, bool, complex, np.ndarray, np.generic, core.Tracer, ArrayMethods))


class ArrayMethods:
    """Mixin: NumPy-style operators and methods, dispatched to numlir.numpy."""

    __slots__ = ()

    __add__ = _binop("add")
    __radd__ = _binop("add", True)
    __sub__ = _binop("subtract")
    __rsub__ = _binop("subtract", True)
    __mul__ = _binop("multiply")
    __rmul__ = _binop("multiply", True)
    __truediv__ = _binop("true_divide")
    __rtruediv__ = _binop("true_divide", True)
    __floordiv__ = _binop("floor_divide")
    __rfloordiv__ = _binop("floor_divide", True)
    __mod__ = _binop("remainder")
    __rmod__ = _binop("remainder", True)
    __pow__ = _binop("power")
    __rpow__ = _binop("power", True)
    __matmul__ = _binop("matmul")
    __rmatmul__ = _binop("matmul", True)
    __and__ = _binop("bitwise_and")
    __rand__ = _binop("bitwise_and", True)
    __or__ = _binop("bitwise_or")
    __ror__ = _binop("bitwise_or", True)
    __xor__ = _binop("bitwise_xor")
    __rxor__ = _binop("bitwise_xor", True)
    __lt__ = _binop("less")
    __le__ = _binop("less_equal")
    __gt__ = _binop("greater")
    __ge__ = _binop("greater_equal")
    __eq__ = _binop("equal")
    __ne__ = _binop("not_equal")

    def __neg__(self):
        return _jnp().negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _jnp().abs(self)

    def __invert__(self):
        return _jnp().invert(self)

    @property
    def T(self):
        return _jnp().transpose(self)

    def astype(self, dtype):
        return _jnp().astype(self, dtype)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _jnp().reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        return _jnp().transpose(self, axes or None)

    def ravel(self):
        return _jnp().ravel(self)

    def flatten(self):
        return _jnp().ravel(self)

    def squeeze(self, axis=None):
        return _jnp().squeeze(self, axis)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return _jnp().sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return _jnp().prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return _jnp().mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _jnp().max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return _jnp().min(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return _jnp().all(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return _jnp().any(self, axis=axis, keepdims=keepdims)

    def dot(self, other):
        return _jnp().dot(self, other)

    def __getitem__(self, idx):
        from numlir._src.numpy.indexing import getitem

        return getitem(self, idx)

    @property
    def at(self):
        """Functional index updates: ``x.at[idx].set(y)``, ``.add``, ``.multiply``, ``.get``..."""
        from numlir._src.numpy.indexing import _IndexUpdateHelper

        return _IndexUpdateHelper(self)


# Operators and methods are API entry points too: `x + y` with bad shapes should show the
# user's line, not these frames.
for _name, _method in list(vars(ArrayMethods).items()):
    if callable(_method) and _name not in ("__init_subclass__", "__subclasshook__"):
        setattr(ArrayMethods, _name, traceback_util.api_boundary(_method))
del _name, _method
