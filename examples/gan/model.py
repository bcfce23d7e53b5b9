"""The DCGAN of numlir's design brief: networks, losses and the one compiled update step.

Everything here is written against a "stack" of modules with Haiku/Optax/JAX names, so
the same code runs on numlir (numlir.layers, numlir.optim, numlir) and on JAX + Haiku +
Optax; test_gan_example.py checks that one update step agrees between the two.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

LATENT = 20
DISC_CHANNELS = (8, 16, 32, 64, 128)
DISC_STRIDES = (2, 1, 2, 1, 2)
REAL, FAKE = 1, 0  # the discriminator's two classes


def numlir_stack() -> SimpleNamespace:
    import numlir
    import numlir.layers
    import numlir.numpy
    import numlir.optim
    return SimpleNamespace(hk=numlir.layers, optax=numlir.optim, jnp=numlir.numpy, jax=numlir,
                           nn=numlir.nn, random=numlir.random, jit=numlir.jit,
                           pmap=numlir.pmap, local_devices=numlir.local_devices,
                           process_count=numlir.process_count)


def jax_stack() -> SimpleNamespace:
    import haiku
    import jax
    import jax.numpy
    import optax
    return SimpleNamespace(hk=haiku, optax=optax, jnp=jax.numpy, jax=jax, nn=jax.nn,
                           random=jax.random, jit=jax.jit, pmap=jax.pmap,
                           local_devices=jax.local_devices, process_count=jax.process_count)


class GANState(NamedTuple):
    gen_params: dict
    disc_params: dict
    gen_opt: tuple
    disc_opt: tuple


class GAN:
    """Generator, discriminator, their Adam optimizers and the update step, on one stack."""

    def __init__(self, stack: SimpleNamespace):
        self.s = stack
        hk, nn, jnp = stack.hk, stack.nn, stack.jnp

        def generator(z):
            h = hk.Linear(7 * 7 * 64)(z)
            h = nn.relu(jnp.reshape(h, (-1, 7, 7, 64)))
            h = nn.relu(hk.Conv2DTranspose(32, 5, stride=2, padding="SAME")(h))
            return jnp.tanh(hk.Conv2DTranspose(1, 5, stride=2, padding="SAME")(h))

        def discriminator(x):
            h = x
            for channels, stride in zip(DISC_CHANNELS, DISC_STRIDES):
                h = nn.leaky_relu(hk.Conv2D(channels, 5, stride=stride, padding="SAME")(h), 0.2)
            return hk.Linear(2)(hk.Flatten()(h))

        self.gen = hk.without_apply_rng(hk.transform(generator))
        self.disc = hk.without_apply_rng(hk.transform(discriminator))
        self.gen_opt = stack.optax.adam(1e-4, b1=0.5, b2=0.9)
        self.disc_opt = stack.optax.adam(1e-4, b1=0.5, b2=0.9)

    def init(self, key, batch_size: int = 1) -> GANState:
        s = self.s
        gen_key, disc_key = s.random.split(key)
        gen_params = self.gen.init(gen_key, s.jnp.zeros((batch_size, LATENT)))
        disc_params = self.disc.init(disc_key, s.jnp.zeros((batch_size, 28, 28, 1)))
        return GANState(gen_params, disc_params, self.gen_opt.init(gen_params),
                        self.disc_opt.init(disc_params))

    def _xent(self, logits, label: int):
        labels = self.s.jnp.full((logits.shape[0],), label, dtype="int32")
        return self.s.jnp.mean(
            self.s.optax.softmax_cross_entropy_with_integer_labels(logits, labels))

    def disc_loss(self, disc_params, gen_params, real, z):
        fake = self.s.jax.lax.stop_gradient(self.gen.apply(gen_params, z))
        return (self._xent(self.disc.apply(disc_params, real), REAL)
                + self._xent(self.disc.apply(disc_params, fake), FAKE))

    def gen_loss(self, gen_params, disc_params, z):
        # The generator maximizes log p(real | fake) (the non-saturating loss).
        return self._xent(self.disc.apply(disc_params, self.gen.apply(gen_params, z)), REAL)

    def update(self, state: GANState, real, disc_z, gen_z, axis_name=None):
        """One discriminator step, then one generator step against the updated discriminator.

        With ``axis_name`` (data parallelism under pmap) each device holds one slice of the
        batch, and the losses and gradients are averaged over the devices: equal slices make
        those the whole batch's, so every device takes the same step."""
        s = self.s
        mean = ((lambda tree: s.jax.lax.pmean(tree, axis_name)) if axis_name is not None
                else (lambda tree: tree))
        d_loss, d_grads = mean(s.jax.value_and_grad(self.disc_loss)(
            state.disc_params, state.gen_params, real, disc_z))
        d_updates, disc_opt = self.disc_opt.update(d_grads, state.disc_opt, state.disc_params)
        disc_params = s.optax.apply_updates(state.disc_params, d_updates)
        g_loss, g_grads = mean(s.jax.value_and_grad(self.gen_loss)(
            state.gen_params, disc_params, gen_z))
        g_updates, gen_opt = self.gen_opt.update(g_grads, state.gen_opt, state.gen_params)
        gen_params = s.optax.apply_updates(state.gen_params, g_updates)
        return GANState(gen_params, disc_params, gen_opt, disc_opt), (d_loss, g_loss)

    def compiled_update(self):
        return self.s.jit(self.update)

    def data_parallel_update(self, devices: int):
        """The update as one pmap over ``devices`` devices of every process: the state is
        broadcast, each process's part of the batch arrives split in ``devices`` equal slices
        (a leading axis), and every device returns the same new state."""
        chosen = [d for p in range(self.s.process_count())
                  for d in self.s.local_devices(p)[:devices]]
        return self.s.pmap(lambda state, real, disc_z, gen_z: self.update(
            state, real, disc_z, gen_z, axis_name="batch"), axis_name="batch",
            in_axes=(None, 0, 0, 0), out_axes=None, devices=chosen)
