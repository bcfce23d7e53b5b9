"""numlir.optim: composable gradient transformations, like Optax, compiled by numlir.

Names, signatures and semantics follow Optax, so ``import numlir.optim as optax`` runs
Optax-style training loops::

    opt = optax.adam(1e-3)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    params = optax.apply_updates(params, updates)

Everything is pure and works inside ``numlir.jit``.
"""

from numlir.optim import losses, schedules
from numlir.optim._alias import adagrad, adam, adamw, lamb, rmsprop, sgd
from numlir.optim._base import (EmptyState, GradientTransformation,
                                GradientTransformationExtraArgs, apply_updates, chain, identity,
                                init_empty_state, set_to_zero, stateless, with_extra_args_support)
from numlir.optim._combine import MaskedNode, MaskedState, MultiTransformState, masked, multi_transform
from numlir.optim._losses import (huber_loss, l2_loss, sigmoid_binary_cross_entropy,
                                  softmax_cross_entropy, softmax_cross_entropy_with_integer_labels)
from numlir.optim._schedules import (constant_schedule, cosine_decay_schedule, exponential_decay,
                                     join_schedules, linear_schedule, warmup_cosine_decay_schedule,
                                     warmup_exponential_decay_schedule)
from numlir.optim._transforms import (ScaleByAdamState, ScaleByRmsState, ScaleByRmsWithCountState,
                                      ScaleByRssState, ScaleByRStdDevState,
                                      ScaleByRStdDevWithCountState, ScaleByScheduleState,
                                      TraceState, add_decayed_weights, clip, clip_by_global_norm,
                                      scale, scale_by_adam, scale_by_learning_rate, scale_by_rms,
                                      scale_by_rss, scale_by_schedule, scale_by_stddev,
                                      scale_by_trust_ratio, trace)
from numlir.optim._tree import global_norm

__all__ = [name for name in dir() if not name.startswith("_")]
