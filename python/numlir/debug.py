"""``numlir.debug``: printing and callbacks from inside compiled code, as ``jax.debug``.

Example::

    >>> @numlir.jit
    ... def f(x):
    ...     numlir.debug.print("x = {}", x)
    ...     return x * 2
    >>> _ = f(jnp.arange(3))
    x = [0 1 2]
"""

from numlir._src.callback import debug_callback as callback
from numlir._src.callback import debug_print as print

__all__ = ["callback", "print"]
