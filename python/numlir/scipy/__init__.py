"""numlir.scipy: SciPy's names with JAX's semantics (``jax.scipy``)."""

from numlir.scipy import special, stats  # noqa: F401
