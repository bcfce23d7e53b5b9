"""The mixin behind the operators and methods of numlir.Array and of tracers.

Core defines the class; numlir.numpy fills it in when it loads
(numpy/array_methods.py), since ``x + y`` means ``numlir.numpy.add(x, y)`` and core
sits below numpy.
"""

from __future__ import annotations


class ArrayMethods:
    """Mixin: NumPy-style operators and methods (installed by numlir.numpy)."""

    __slots__ = ()
    # Arrays compare elementwise (``__eq__`` is installed), so they are unhashable.
    __hash__ = None
