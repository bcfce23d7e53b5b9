"""The optimizers, each a chain of transformations, with Optax's names and defaults.

``learning_rate`` is a number or a schedule (a function of the step count).
"""

from __future__ import annotations

from numlir.optim import _transforms as tx
from numlir.optim._base import GradientTransformation, chain, identity


def sgd(learning_rate, momentum=None, nesterov: bool = False,
        accumulator_dtype=None) -> GradientTransformation:
    """Stochastic gradient descent, with optional (Nesterov) momentum."""
    return chain(tx.trace(decay=momentum, nesterov=nesterov, accumulator_dtype=accumulator_dtype)
                 if momentum is not None else identity(),
                 tx.scale_by_learning_rate(learning_rate))


def adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None, *,
         nesterov: bool = False) -> GradientTransformation:
    """Adam (Kingma & Ba, 2014)."""
    return chain(tx.scale_by_adam(b1, b2, eps, eps_root, mu_dtype, nesterov=nesterov),
                 tx.scale_by_learning_rate(learning_rate))


def adamw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None,
          weight_decay=1e-4, mask=None, *, nesterov: bool = False) -> GradientTransformation:
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019)."""
    return chain(tx.scale_by_adam(b1, b2, eps, eps_root, mu_dtype, nesterov=nesterov),
                 tx.add_decayed_weights(weight_decay, mask),
                 tx.scale_by_learning_rate(learning_rate))


def rmsprop(learning_rate, decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
            centered: bool = False, momentum=None, nesterov: bool = False,
            bias_correction: bool = False) -> GradientTransformation:
    """RMSProp (Tieleman & Hinton, 2012); ``centered`` divides by the root of the
    gradients' moving variance instead of their moving mean square (Graves, 2013)."""
    rescale = tx.scale_by_stddev if centered else tx.scale_by_rms
    return chain(rescale(decay, eps, initial_scale, eps_in_sqrt, bias_correction),
                 tx.scale_by_learning_rate(learning_rate),
                 tx.trace(decay=momentum, nesterov=nesterov) if momentum is not None else identity())


def adagrad(learning_rate, initial_accumulator_value=0.1, eps=1e-7) -> GradientTransformation:
    """Adagrad (Duchi et al., 2011)."""
    return chain(tx.scale_by_rss(initial_accumulator_value, eps),
                 tx.scale_by_learning_rate(learning_rate))


def lamb(learning_rate, b1=0.9, b2=0.999, eps=1e-6, eps_root=0.0, weight_decay=0.0,
         mask=None) -> GradientTransformation:
    """LAMB (You et al., 2019): Adam with decay, rescaled per parameter by a trust ratio."""
    return chain(tx.scale_by_adam(b1, b2, eps, eps_root),
                 tx.add_decayed_weights(weight_decay, mask),
                 tx.scale_by_trust_ratio(),
                 tx.scale_by_learning_rate(learning_rate))
