"""numlir.scipy: SciPy's names with JAX's semantics (``jax.scipy``)."""

from numlir.scipy import special  # noqa: F401
