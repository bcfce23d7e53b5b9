"""numlir.custom_derivatives: user-defined derivative rules (as jax.custom_derivatives)."""

from numlir._src.custom_derivatives import CustomVJPPrimal, SymbolicZero, custom_jvp, custom_vjp
from numlir._src.custom_gradient import closure_convert, custom_gradient

__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_gradient", "custom_jvp", "custom_vjp"]
