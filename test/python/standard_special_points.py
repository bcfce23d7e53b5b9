"""Where numlir's complex functions follow the array API standard (C99 Annex G) instead of
jax (XLA's expansions): the inputs of each function at which the two may differ. Tests that
compare numlir with jax over edge grids leave these points out; test_array_api_special_cases
pins numlir's values there. Mirrors python/numlir/_src/numpy/complex_special_values.py."""

import numpy as np


def _zero(x):
    return x == 0


def departs_from_jax(name: str, z) -> np.ndarray:
    """Mask of the elements of complex ``z`` where ``name`` takes the standard's value."""
    a, b = np.asarray(z).real, np.asarray(z).imag
    inf_a, inf_b, nan_a, nan_b = np.isinf(a), np.isinf(b), np.isnan(a), np.isnan(b)
    rules = {
        "exp": inf_a & (inf_b | nan_b),
        "expm1": (inf_a & (inf_b | nan_b)) | (_zero(a) & _zero(b)),
        "log": (inf_a & nan_b) | (nan_a & inf_b),
        "sqrt": inf_b | (inf_a & nan_b),
        "tanh": _zero(a) & (inf_b | nan_b),
        "arccos": _zero(a) & nan_b,
        "arccosh": _zero(a) & nan_b,
        "arcsinh": nan_a & np.isfinite(b),
        "arctanh": nan_b | (nan_a & ~inf_b),
        "sign": (_zero(a) & _zero(b)) | nan_a | nan_b,
    }
    for same_as_log in ("log1p", "log2", "log10"):
        rules[same_as_log] = rules["log"]
    return rules.get(name, np.zeros(a.shape, bool))

