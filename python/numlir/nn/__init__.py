"""numlir.nn: activation functions and friends (JAX's jax.nn names)."""

import numlir.numpy as jnp
from numlir._src import core, shapes
from numlir._src import dtypes as _dtypes
from numlir._src.lax.elementwise import logistic as _logistic
from numlir._src.lax import shape_ops as _shape_ops
from numlir._src.lax import special as _special
from numlir._src.numpy.util import promote_args_inexact
from numlir.nn import initializers  # noqa: F401 - numlir.nn.initializers


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``."""
    (x,) = promote_args_inexact("sigmoid", x)
    return _logistic(x)


def silu(x):
    """SiLU/swish ``x * sigmoid(x)``."""
    return x * sigmoid(x)


swish = silu
tanh = jnp.tanh


def gelu(x, approximate: bool = True):
    """GELU: the tanh approximation, or ``x * (1 + erf(x / sqrt(2))) / 2`` when not ``approximate``."""
    (x,) = promote_args_inexact("gelu", x)
    if not approximate:
        return 0.5 * x * (1 + _special.erf(x * 0.7071067811865476))
    c = 0.7978845608028654  # sqrt(2 / pi)
    return 0.5 * x * (1 + jnp.tanh(c * (x + 0.044715 * x * x * x)))


def one_hot(x, num_classes: int, dtype=None):
    """One-hot encode integer array ``x`` along a new last axis (default dtype: the default float)."""
    aval = core.get_aval(x)
    num_classes = shapes.canonicalize_dim(num_classes, "one_hot", "num_classes")
    classes = _shape_ops.broadcasted_iota(aval.dtype, aval.shape + (num_classes,), aval.ndim)
    return jnp.equal(jnp.expand_dims(x, -1), classes).astype(
        _dtypes.default_float_dtype() if dtype is None else dtype)


from numlir._src.nn.functions import (celu, elu, hard_tanh, leaky_relu, log_sigmoid,  # noqa: E402
                                      log_softmax, logsumexp, relu, relu6, selu, softmax,
                                      softplus, standardize)
from numlir._src.nn.activations import (glu, hard_sigmoid, hard_silu, hard_swish, identity,  # noqa: E402
                                        log1mexp, logmeanexp, mish, soft_sign, sparse_plus,
                                        sparse_sigmoid, squareplus)
from numlir._src.nn.attention import dot_product_attention  # noqa: E402
from numlir._src.nn.scaled_matmul import scaled_matmul  # noqa: E402
from numlir._src.nn.scaled_dot_general import (get_scaled_dot_general_config,  # noqa: E402
                                               scaled_dot_general)

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
