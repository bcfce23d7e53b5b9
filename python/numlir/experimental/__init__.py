"""Experimental APIs (as ``jax.experimental``): ``numlir.experimental.checkify``."""

from numlir.experimental import checkify

__all__ = ["checkify"]
