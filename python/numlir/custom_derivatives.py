"""numlir.custom_derivatives: user-defined derivative rules (as jax.custom_derivatives)."""

from numlir._src.custom_derivatives import SymbolicZero, custom_jvp, custom_vjp

__all__ = ["SymbolicZero", "custom_jvp", "custom_vjp"]
