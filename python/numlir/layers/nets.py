"""Networks built from layers: MLP."""

from __future__ import annotations

from typing import Callable, Iterable

import numlir.nn as nn
from numlir.layers._basic import Linear, dropout
from numlir.layers._frame import PRNGSequence
from numlir.layers._module import Module


class MLP(Module):
    """A stack of Linear layers (``linear_0``, ``linear_1``, ...) with an activation between
    them (and after the last one when ``activate_final``)."""

    def __init__(self, output_sizes: Iterable[int], w_init: Callable | None = None,
                 b_init: Callable | None = None, with_bias: bool = True,
                 activation: Callable = nn.relu, activate_final: bool = False,
                 name: str | None = None):
        if not with_bias and b_init is not None:
            raise ValueError("When with_bias=False b_init must not be set.")
        super().__init__(name=name)
        self.with_bias = with_bias
        self.w_init = w_init
        self.b_init = b_init
        self.activation = activation
        self.activate_final = activate_final
        self.layers = tuple(Linear(output_size=size, w_init=w_init, b_init=b_init,
                                   with_bias=with_bias, name=f"linear_{i}")
                            for i, size in enumerate(output_sizes))
        self.output_size = self.layers[-1].output_size if self.layers else None

    def __call__(self, inputs, dropout_rate: float | None = None, rng=None):
        """With ``dropout_rate`` (and an ``rng`` key, needed then and only then), dropout is
        applied before each activation, as Haiku does."""
        if dropout_rate is not None and rng is None:
            raise ValueError("When using dropout an rng key must be passed.")
        if dropout_rate is None and rng is not None:
            raise ValueError("RNG should only be passed when using dropout.")
        rngs = PRNGSequence(rng) if rng is not None else None
        out = inputs
        for i, layer in enumerate(self.layers):
            out = layer(out)
            if i < len(self.layers) - 1 or self.activate_final:
                if dropout_rate is not None:
                    out = dropout(next(rngs), dropout_rate, out)
                out = self.activation(out)
        return out
