"""Recurrent cores (LSTM, GRU) and unrolling them over a sequence (static and with scan)."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numlir.nn as nn
import numlir.numpy as jnp
from numlir import lax, tree_util
from numlir.layers import _frame, initializers
from numlir.layers._basic import Linear
from numlir.layers._module import Module
from numlir.layers._transform import get_parameter


class LSTMState(NamedTuple):
    hidden: Any
    cell: Any


def add_batch(tree, batch_size: int | None):
    """Each leaf broadcast to a leading batch dimension of ``batch_size``."""
    if batch_size is None:
        return tree
    return tree_util.tree_map(lambda x: jnp.broadcast_to(x, (batch_size,) + x.shape), tree)


class LSTM(Module):
    """Long short-term memory with a forget-gate bias of 1 (as Haiku and Sonnet)."""

    def __init__(self, hidden_size: int, name: str | None = None):
        super().__init__(name=name)
        self.hidden_size = hidden_size

    def __call__(self, inputs, prev_state: LSTMState):
        if len(inputs.shape) > 2 or not inputs.shape:
            raise ValueError("LSTM input must be rank-1 or rank-2.")
        x_and_h = jnp.concatenate([inputs, prev_state.hidden], axis=-1)
        gated = Linear(4 * self.hidden_size)(x_and_h)
        i, g, f, o = jnp.split(gated, 4, axis=-1)
        f = nn.sigmoid(f + 1)
        c = f * prev_state.cell + nn.sigmoid(i) * jnp.tanh(g)
        h = nn.sigmoid(o) * jnp.tanh(c)
        return h, LSTMState(h, c)

    def initial_state(self, batch_size: int | None) -> LSTMState:
        zeros = jnp.zeros([self.hidden_size])
        return add_batch(LSTMState(hidden=zeros, cell=zeros), batch_size)


class GRU(Module):
    """Gated recurrent unit (Cho et al., 2014), parameters ``w_i``, ``w_h`` and ``b``."""

    def __init__(self, hidden_size: int, w_i_init: Callable | None = None,
                 w_h_init: Callable | None = None, b_init: Callable | None = None,
                 name: str | None = None):
        super().__init__(name=name)
        self.hidden_size = hidden_size
        self.w_i_init = w_i_init or initializers.VarianceScaling()
        self.w_h_init = w_h_init or initializers.VarianceScaling()
        self.b_init = b_init or jnp.zeros

    def __call__(self, inputs, state):
        if inputs.ndim not in (1, 2):
            raise ValueError("GRU input must be rank-1 or rank-2.")
        n = self.hidden_size
        w_i = get_parameter("w_i", [inputs.shape[-1], 3 * n], inputs.dtype, init=self.w_i_init)
        w_h = get_parameter("w_h", [n, 3 * n], inputs.dtype, init=self.w_h_init)
        b = get_parameter("b", [3 * n], inputs.dtype, init=self.b_init)
        w_h_zr, w_h_a = w_h[:, :2 * n], w_h[:, 2 * n:]
        b_zr, b_a = b[:2 * n], b[2 * n:]
        gates_x = jnp.matmul(inputs, w_i)
        zr_x, a_x = gates_x[..., :2 * n], gates_x[..., 2 * n:]
        zr_h = jnp.matmul(state, w_h_zr)
        z, r = jnp.split(nn.sigmoid(zr_x + zr_h + jnp.broadcast_to(b_zr, zr_h.shape)), 2, axis=-1)
        a_h = jnp.matmul(r * state, w_h_a)
        a = jnp.tanh(a_x + a_h + jnp.broadcast_to(b_a, a_h.shape))
        next_state = (1 - z) * state + z * a
        return next_state, next_state

    def initial_state(self, batch_size: int | None):
        return add_batch(jnp.zeros([self.hidden_size]), batch_size)


def _swap_batch_time(tree):
    return tree_util.tree_map(lambda x: jnp.swapaxes(x, 0, 1), tree)


def static_unroll(core, input_sequence, initial_state, time_major: bool = True):
    """``core`` applied step by step in a Python loop; returns (outputs, final state)."""
    if not time_major:
        input_sequence = _swap_batch_time(input_sequence)
    leaves, structure = tree_util.tree_flatten(input_sequence)
    steps = leaves[0].shape[0]
    state, outputs = initial_state, []
    for t in range(steps):
        out, state = core(tree_util.tree_unflatten(structure, [x[t] for x in leaves]), state)
        outputs.append(out)
    stacked = tree_util.tree_map(lambda *xs: jnp.stack(xs), *outputs)
    return (stacked if time_major else _swap_batch_time(stacked)), state


def dynamic_unroll(core, input_sequence, initial_state, time_major: bool = True,
                   reverse: bool = False, return_all_states: bool = False, unroll: int = 1):
    """``core`` over the time axis with ``lax.scan``; returns (outputs, final state), or
    (outputs, all states) with ``return_all_states``. ``unroll`` steps run per loop
    iteration (scan's ``unroll``); the results do not depend on it."""
    if not time_major:
        input_sequence = _swap_batch_time(input_sequence)
    if _frame.current_frame("dynamic_unroll").initializing:
        # Parameters must exist before the scan body is traced (created inside it, they would
        # be values of the trace): one step outside the scan creates them.
        first = tree_util.tree_map(lambda x: x[-1 if reverse else 0], input_sequence)
        core(first, initial_state)

    def step(state, inputs):
        out, next_state = core(inputs, state)
        return next_state, ((out, next_state) if return_all_states else out)

    last_state, scanned = lax.scan(step, initial_state, input_sequence, reverse=reverse,
                                   unroll=unroll)
    outputs, states = scanned if return_all_states else (scanned, last_state)
    if not time_major:
        outputs = _swap_batch_time(outputs)
        if return_all_states:
            states = _swap_batch_time(states)
    return outputs, states
