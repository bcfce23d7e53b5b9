"""numlir.custom_derivatives: user-defined derivative rules (as jax.custom_derivatives)."""

from numlir._src.custom_derivatives import CustomVJPPrimal, SymbolicZero, custom_jvp, custom_vjp

__all__ = ["CustomVJPPrimal", "SymbolicZero", "custom_jvp", "custom_vjp"]
