"""REINFORCE on cart-pole, with the dynamics written in numlir and the losses from numlir.rl.

A batch of episodes is rolled out with lax.scan (vmapped over episodes) inside one jitted
training step: the policy samples pushes left or right, the classic cart-pole equations
(Barto, Sutton & Anderson, 1983) move the cart, and an episode ends when the pole leans
more than 12 degrees or the cart leaves the track. Returns come from
``numlir.rl.discounted_returns``, the loss from ``numlir.rl.policy_gradient_loss``::

    .venv/bin/python examples/cartpole_policy_gradient.py
"""

from __future__ import annotations

import math

import numlir
import numlir.layers as hk
import numlir.numpy as jnp
import numlir.optim as optax
import numlir.rl as rlax
from numlir import lax

GRAVITY, CART_MASS, POLE_MASS, POLE_HALF_LENGTH = 9.8, 1.0, 0.1, 0.5
FORCE, DT = 10.0, 0.02
X_LIMIT, THETA_LIMIT = 2.4, 12 * 2 * math.pi / 360
HORIZON = 200


def physics_step(state, action):
    """One Euler step of the cart-pole; state is (x, x_dot, theta, theta_dot)."""
    x, x_dot, theta, theta_dot = state[0], state[1], state[2], state[3]
    force = jnp.where(action == 1, FORCE, -FORCE)
    cos, sin = jnp.cos(theta), jnp.sin(theta)
    total_mass = CART_MASS + POLE_MASS
    temp = (force + POLE_MASS * POLE_HALF_LENGTH * theta_dot ** 2 * sin) / total_mass
    theta_acc = (GRAVITY * sin - cos * temp) / (
        POLE_HALF_LENGTH * (4.0 / 3.0 - POLE_MASS * cos ** 2 / total_mass))
    x_acc = temp - POLE_MASS * POLE_HALF_LENGTH * theta_acc * cos / total_mass
    return jnp.stack([x + DT * x_dot, x_dot + DT * x_acc, theta + DT * theta_dot,
                      theta_dot + DT * theta_acc])


def fallen(state):
    return (jnp.abs(state[0]) > X_LIMIT) | (jnp.abs(state[2]) > THETA_LIMIT)


def policy(observation):
    return hk.nets.MLP([32, 2])(observation)


MODEL = hk.without_apply_rng(hk.transform(policy))


def rollout(params, key):
    """One episode of HORIZON steps: observations, actions and alive flags per step."""
    start_key, key = numlir.random.split(key)
    state = numlir.random.uniform(start_key, (4,), minval=-0.05, maxval=0.05)

    def step(carry, step_key):
        state, alive = carry
        action = numlir.random.categorical(step_key, MODEL.apply(params, state))
        next_state = physics_step(state, action)
        still_alive = alive * (1.0 - fallen(next_state).astype(jnp.float32))
        return (next_state, still_alive), (state, action, alive)

    _, (observations, actions, alive) = lax.scan(
        step, (state, jnp.ones(())), numlir.random.split(key, HORIZON))
    return observations, actions, alive


def train(iterations: int = 40, episodes: int = 32, seed: int = 0):
    """The policy's mean episode length before each iteration."""
    params = MODEL.init(numlir.random.PRNGKey(seed), jnp.zeros(4))
    opt = optax.adam(1e-2)
    opt_state = opt.init(params)

    def loss(params, observations, actions, alive):
        rewards = alive
        returns = numlir.vmap(lambda r, d: rlax.discounted_returns(r, d, 0.0))(
            rewards, 0.99 * alive)
        advantages = returns - jnp.mean(returns, axis=0)  # a per-step baseline
        logits = numlir.vmap(lambda o: MODEL.apply(params, o))(observations)
        per_episode = numlir.vmap(rlax.policy_gradient_loss)(logits, actions, advantages, alive)
        return jnp.mean(per_episode)

    @numlir.jit
    def iteration(params, opt_state, key):
        keys = numlir.random.split(key, episodes)
        observations, actions, alive = numlir.vmap(lambda k: rollout(params, k))(keys)
        grads = numlir.grad(loss)(params, observations, actions, alive)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, jnp.mean(jnp.sum(alive, axis=1))

    key = numlir.random.PRNGKey(seed + 1)
    lengths = []
    for _ in range(iterations):
        key, sub = numlir.random.split(key)
        params, opt_state, length = iteration(params, opt_state, sub)
        lengths.append(float(length))
    return lengths


def main() -> None:
    lengths = train()
    print(f"mean episode length: {lengths[0]:.1f} steps at first, {lengths[-1]:.1f} after "
          f"{len(lengths)} iterations (at most {HORIZON})")


if __name__ == "__main__":
    main()
