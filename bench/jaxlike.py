"""The workloads for numlir and jax.jit: one body each, with the library passed in.

numlir.numpy/lax/nn mirror jax's API, so ``lib`` below is a namespace holding
either ``numlir`` or ``jax`` pieces (see ``library``). Each builder returns the
compiled function; the worker calls it on the inputs from specs.py.
"""

from __future__ import annotations

from types import SimpleNamespace

from specs import DISC_PARAMS, DISC_STRIDES, GEN_PARAMS, MLP_PARAMS

DN = ("NHWC", "HWIO", "NHWC")


def library(name: str) -> SimpleNamespace:
    if name == "jax":
        import jax

        return SimpleNamespace(np=jax.numpy, lax=jax.lax, nn=jax.nn, jit=jax.jit,
                               value_and_grad=jax.value_and_grad, put=jax.device_put)
    import numlir

    return SimpleNamespace(np=numlir.numpy, lax=numlir.lax, nn=numlir.nn, jit=numlir.jit,
                           value_and_grad=numlir.value_and_grad, put=numlir.numpy.asarray)


def adam(lib, params, grads, m, v, t, lr, b1, b2, eps=1e-8):
    """One Adam step on lists of arrays; ``t`` is the step count before this step."""
    jnp = lib.np
    t = t + 1
    m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
    v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
    scale = lr * jnp.sqrt(1 - jnp.power(b2, t)) / (1 - jnp.power(b1, t))
    params = [p - scale * mi / (jnp.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v)]
    return params, m, v, t


def w1(lib, dims):
    jnp = lib.np
    return lib.jit(lambda x: jnp.tanh(x * 1.5 + 0.1) * 0.5 + x)


def w2(lib, dims):
    return lib.jit(lambda x: lib.nn.softmax(x, axis=1))


def w3(lib, dims):
    return lib.jit(lambda x: lib.np.sum(x * x))


def w4(lib, dims):
    return lib.jit(lambda a, b: a @ b)


def w5(lib, dims):
    jnp, nn = lib.np, lib.nn
    k = MLP_PARAMS

    def loss_fn(params, x, y):
        h = x
        for i in range(0, k - 2, 2):
            h = nn.relu(h @ params[i] + params[i + 1])
        logits = h @ params[k - 2] + params[k - 1]
        return -jnp.mean(jnp.sum(y * nn.log_softmax(logits, axis=1), axis=1))

    def step(*args):
        params, m, v = list(args[:k]), list(args[k:2 * k]), list(args[2 * k:3 * k])
        t, x, y = args[3 * k:]
        loss, grads = lib.value_and_grad(loss_fn)(params, x, y)
        params, m, v, t = adam(lib, params, grads, m, v, t, 1e-3, 0.9, 0.999)
        return (*params, *m, *v, t, loss)

    return lib.jit(step)


def w6(lib, dims):
    return lib.jit(lambda x, w: lib.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                             dimension_numbers=DN))


def w8_fft(lib, dims):
    return lib.jit(lambda x: lib.np.fft.fft(x))


def w8_filter(lib, dims):
    fft, shape = lib.np.fft, (dims["hw"], dims["hw"])
    return lib.jit(lambda x, h: fft.irfft2(fft.rfft2(x) * h, s=shape))


def w9_solve(lib, dims):
    return lib.jit(lambda a, b: lib.np.linalg.solve(a, b))


def w9_cholesky(lib, dims):
    jnp, n = lib.np, dims["n"]

    def factor(a):
        gram = a @ jnp.conj(jnp.swapaxes(a, -1, -2)) + n * jnp.eye(n, dtype=a.dtype)
        return jnp.linalg.cholesky(gram)

    return lib.jit(factor)


def dcgan(lib):
    """Generator, discriminator and the two-class cross-entropy of W7."""
    jnp, lax, nn = lib.np, lib.lax, lib.nn

    def generator(g, z):
        h = nn.relu((z @ g[0] + g[1]).reshape(z.shape[0], 7, 7, 64))
        h = nn.relu(lax.conv_transpose(h, g[2], (2, 2), "SAME", dimension_numbers=DN) + g[3])
        return jnp.tanh(lax.conv_transpose(h, g[4], (2, 2), "SAME", dimension_numbers=DN) + g[5])

    def discriminator(d, x):
        h = x
        for i, stride in enumerate(DISC_STRIDES):
            h = lax.conv_general_dilated(h, d[2 * i], (stride, stride), "SAME",
                                         dimension_numbers=DN) + d[2 * i + 1]
            h = nn.leaky_relu(h, 0.2)
        return h.reshape(h.shape[0], -1) @ d[-2] + d[-1]

    def xent(logits, label: int):
        return -jnp.mean(nn.log_softmax(logits, axis=1)[:, label])

    return generator, discriminator, xent


def w7(lib, dims):
    generator, discriminator, xent = dcgan(lib)
    lax = lib.lax
    ng, nd = GEN_PARAMS, DISC_PARAMS

    def d_loss(d, g, real, z):
        fake = lax.stop_gradient(generator(g, z))
        return xent(discriminator(d, real), 1) + xent(discriminator(d, fake), 0)

    def g_loss(g, d, z):
        return xent(discriminator(d, generator(g, z)), 1)

    def step(*args):
        g, d = list(args[:ng]), list(args[ng:ng + nd])
        rest = args[ng + nd:]
        gm, gv = list(rest[:ng]), list(rest[ng:2 * ng])
        dm, dv = list(rest[2 * ng:2 * ng + nd]), list(rest[2 * ng + nd:2 * ng + 2 * nd])
        t, real, z = rest[2 * ng + 2 * nd:]
        dl, dgrad = lib.value_and_grad(d_loss)(d, g, real, z)
        d, dm, dv, t1 = adam(lib, d, dgrad, dm, dv, t, 1e-4, 0.5, 0.9)
        gl, ggrad = lib.value_and_grad(g_loss)(g, d, z)
        g, gm, gv, _ = adam(lib, g, ggrad, gm, gv, t, 1e-4, 0.5, 0.9)
        return (*g, *d, *gm, *gv, *dm, *dv, t1, dl, gl)

    return lib.jit(step)


def gan_step(framework: str, inputs):
    """examples/gan's compiled update on this framework's own stack (numlir.layers +
    numlir.optim, or Haiku + Optax), from the same state leaves."""
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "gan"))
    import model

    gan = model.GAN(model.numlir_stack() if framework == "numlir" else model.jax_stack())
    s = gan.s
    structure = s.jax.tree_util.tree_structure(gan.init(s.random.PRNGKey(0), 1))
    state_leaves = inputs[:-3]
    update = gan.compiled_update()

    def step(*args):
        state = s.jax.tree_util.tree_unflatten(structure, list(args[:len(state_leaves)]))
        new_state, losses = update(state, *args[len(state_leaves):])
        params = s.jax.tree_util.tree_leaves((new_state.gen_params, new_state.disc_params))
        return (*params, *losses)  # flat: the worker saves and compares leaves

    lib = library(framework)
    return step, [lib.put(x) for x in inputs]


def dispatch(lib, dims):
    return lib.jit(lambda a, b, c: a * b + c)


BUILDERS = {"W1": w1, "W2": w2, "W3": w3, "W4a": w4, "W4b": w4, "W5": w5, "W6": w6, "W7": w7,
            "W8a": w8_fft, "W8b": w8_fft, "W8c": w8_filter, "W9a": w9_solve,
            "W9b": w9_cholesky, "D": dispatch}


def build(framework: str, workload, inputs):
    """(jitted callable, device arguments) for one workload: numlir and jax run them all."""
    if workload.name == "G":
        return gan_step(framework, inputs)
    lib = library(framework)
    fn = BUILDERS[workload.name](lib, workload.dims)
    return fn, [lib.put(x) for x in inputs]
