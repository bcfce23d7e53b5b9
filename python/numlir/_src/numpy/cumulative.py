"""numlir.numpy's cumulative reductions: cumsum, cumprod (and the array-API names).

They are numpy-style wrappers (``axis=None`` flattens, ``dtype`` converts
first, bools accumulate in the default integer type, as jax.numpy) over
lax.cumsum / lax.cumprod, which lower to one sequential ``hlo.cumulative``
scan.
"""

from __future__ import annotations

from numlir._src import core, dtypes
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax import cumulative as lax_cumulative
from numlir._src.numpy.util import check_arraylike


def _numpy_cumulative(name: str, lax_fn):
    def fn(a, axis: int | None = None, dtype=None, out=None):
        check_arraylike(name, a)
        if out is not None:
            raise NotImplementedError(
                f"The 'out' argument to numlir.numpy.{name} is not supported.")
        aval = core.get_aval(a)
        if axis is None:
            a = shape_ops.reshape(a, (aval.size,))
            axis = 0
        elif aval.ndim == 0:
            raise core.value_error(f"{name}: axis {axis} is out of bounds for array of dimension 0")
        if dtype is None and dtypes.is_bool(aval.dtype):
            dtype = dtypes.default_int_dtype()
        if dtype is not None:
            a = ew.convert_element_type(a, dtypes.canonicalize_dtype(dtype), aval.weak_type)
        return lax_fn(a, axis=axis)

    fn.__name__ = name
    fn.__doc__ = (f"Running {name[3:]} of ``a`` along ``axis`` (None: of the flattened array), as "
                  f"numpy.{name}; bools accumulate in the default integer type.\n\n"
                  f"    >>> jnp.{name}(jnp.array([1, 2, 3]))")
    return fn


cumsum = _numpy_cumulative("cumsum", lax_cumulative.cumsum)
cumprod = _numpy_cumulative("cumprod", lax_cumulative.cumprod)
