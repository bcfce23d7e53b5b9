"""numlir.scipy: SciPy's names with JAX's semantics (``jax.scipy``)."""

from numlir.scipy import linalg, special, stats  # noqa: F401
