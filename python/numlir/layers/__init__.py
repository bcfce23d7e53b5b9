"""numlir.layers: neural-network modules, like Haiku, compiled by numlir.

``import numlir.layers as hk`` runs Haiku-style code::

    def forward(x):
        return hk.nets.MLP([512, 10])(x)

    model = hk.transform(forward)
    params = model.init(rng, x)          # {'mlp/~/linear_0': {'w': ..., 'b': ...}, ...}
    logits = model.apply(params, rng, x)

Parameters are plain nested dicts of arrays, named as Haiku names them.
"""

from numlir.layers import initializers, nets
from numlir.layers._batch_norm import BatchNorm, ExponentialMovingAverage
from numlir.layers._basic import Embed, Flatten, Linear, Sequential, dropout
from numlir.layers._conv import (Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, ConvND,
                                 ConvNDTranspose)
from numlir.layers._frame import PRNGSequence
from numlir.layers._module import Module
from numlir.layers._normalization import LayerNorm
from numlir.layers._recurrent import (GRU, LSTM, LSTMState, add_batch, dynamic_unroll,
                                      static_unroll)
from numlir.layers._pooling import AvgPool, MaxPool, avg_pool, max_pool
from numlir.layers._transform import (Transformed, TransformedWithState, get_parameter, get_state,
                                      next_rng_key, set_state, transform, transform_with_state,
                                      without_apply_rng)

__all__ = [name for name in dir() if not name.startswith("_")]
