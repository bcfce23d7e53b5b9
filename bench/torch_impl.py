"""The workloads in PyTorch: eager mode, and torch.compile for the single-op ones.

Torch computes in NCHW with OIHW kernels, so W6/W7 get their inputs in that
layout (converted once, outside the timing) and convert the first outputs back
to the common NHWC/HWIO layout for the correctness check. A jax-style SAME
transposed convolution is ``conv_transpose2d`` with the kernel flipped and
padding 1, less the last row and column (see ``_deconv``).
"""

from __future__ import annotations

import os

import numpy as np
import torch
import torch.nn.functional as F

from specs import DISC_PARAMS, DISC_STRIDES, GEN_PARAMS, MLP_PARAMS, same_out

torch.set_num_threads(os.cpu_count() or 1)

# torch.compile runs where it can fuse a forward computation (W1-W3) or pick a
# convolution kernel (W6). A matmul is one library call either way, and the
# training steps would need autograd.grad inside the compiled graph.
COMPILED = ("W1", "W2", "W3", "W6")


def _adam(params, grads, m, v, t, lr, b1, b2, eps=1e-8):
    t = t + 1
    m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
    v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
    scale = lr * torch.sqrt(1 - torch.pow(b2, t)) / (1 - torch.pow(b1, t))
    params = [p - scale * mi / (torch.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v)]
    return params, m, v, t


def _grad_of(loss_fn, params, *rest):
    live = [p.detach().requires_grad_(True) for p in params]
    loss = loss_fn(live, *rest)
    return loss.detach(), torch.autograd.grad(loss, live)


def mlp_step(*args):
    k = MLP_PARAMS
    params, m, v = list(args[:k]), list(args[k:2 * k]), list(args[2 * k:3 * k])
    t, x, y = args[3 * k:]

    def loss_fn(p, x, y):
        h = x
        for i in range(0, k - 2, 2):
            h = torch.relu(h @ p[i] + p[i + 1])
        logits = h @ p[k - 2] + p[k - 1]
        return -torch.mean(torch.sum(y * torch.log_softmax(logits, dim=1), dim=1))

    loss, grads = _grad_of(loss_fn, params, x, y)
    with torch.no_grad():
        params, m, v, t = _adam(params, grads, m, v, t, 1e-3, 0.9, 0.999)
    return (*params, *m, *v, t, loss)


def _deconv(x, w, b):
    out = F.conv_transpose2d(x, w, stride=2, padding=1)
    return out[:, :, :-1, :-1] + b.view(1, -1, 1, 1)


def _disc_pads():
    # jax's SAME: total padding (out-1)*stride + k - in, the odd pixel on the high side.
    pads, hw = [], 28
    for stride in DISC_STRIDES:
        total = max((same_out(hw, stride) - 1) * stride + 5 - hw, 0)
        pads.append((total // 2, total - total // 2))
        hw = same_out(hw, stride)
    return pads


DISC_PADS = _disc_pads()


def generator(g, z):
    h = torch.relu((z @ g[0] + g[1]).view(z.shape[0], 64, 7, 7))
    h = torch.relu(_deconv(h, g[2], g[3]))
    return torch.tanh(_deconv(h, g[4], g[5]))


def discriminator(d, x):
    h = x
    for i, (stride, (lo, hi)) in enumerate(zip(DISC_STRIDES, DISC_PADS)):
        if lo == hi:
            h = F.conv2d(h, d[2 * i], d[2 * i + 1], stride=stride, padding=lo)
        else:
            h = F.conv2d(F.pad(h, (lo, hi, lo, hi)), d[2 * i], d[2 * i + 1], stride=stride)
        h = F.leaky_relu(h, 0.2)
    return h.flatten(1) @ d[-2] + d[-1]


def _xent(logits, label: int):
    return -torch.mean(torch.log_softmax(logits, dim=1)[:, label])


def dcgan_step(*args):
    ng, nd = GEN_PARAMS, DISC_PARAMS
    g, d = list(args[:ng]), list(args[ng:ng + nd])
    rest = args[ng + nd:]
    gm, gv = list(rest[:ng]), list(rest[ng:2 * ng])
    dm, dv = list(rest[2 * ng:2 * ng + nd]), list(rest[2 * ng + nd:2 * ng + 2 * nd])
    t, real, z = rest[2 * ng + 2 * nd:]
    with torch.no_grad():
        fake = generator(g, z)
    dl, dgrad = _grad_of(lambda d, real, fake: _xent(discriminator(d, real), 1)
                         + _xent(discriminator(d, fake), 0), d, real, fake)
    with torch.no_grad():
        d, dm, dv, t1 = _adam(d, dgrad, dm, dv, t, 1e-4, 0.5, 0.9)
    gl, ggrad = _grad_of(lambda g, z: _xent(discriminator(d, generator(g, z)), 1), g, z)
    with torch.no_grad():
        g, gm, gv, _ = _adam(g, ggrad, gm, gv, t, 1e-4, 0.5, 0.9)
    return (*g, *d, *gm, *gv, *dm, *dv, t1, dl, gl)


# ---- layouts: (to torch, back to the common layout) per W7 parameter ---------

def _nhwc():
    return (lambda a: a.permute(0, 3, 1, 2).contiguous(), lambda a: a.permute(0, 2, 3, 1))


def _hwio_conv():
    return (lambda a: a.permute(3, 2, 0, 1).contiguous(), lambda a: a.permute(2, 3, 1, 0))


def _hwio_deconv():
    return (lambda a: a.permute(2, 3, 0, 1).flip(2, 3).contiguous(),
            lambda a: a.flip(2, 3).permute(2, 3, 0, 1))


def _columns_hwc(h, w, c):
    # A dense layer whose last dimension indexes (h, w, c) in jax and (c, h, w) here.
    def fwd(a):
        return a.reshape(*a.shape[:-1], h, w, c).movedim(-1, -3).reshape(a.shape).contiguous()

    def back(a):
        return a.reshape(*a.shape[:-1], c, h, w).movedim(-3, -1).reshape(a.shape)

    return fwd, back


def _rows_hwc(h, w, c):
    fwd, back = _columns_hwc(h, w, c)
    return (lambda a: fwd(a.T).T.contiguous(), lambda a: back(a.T).T)


_SAME = (lambda a: a, lambda a: a)


def _dcgan_layouts():
    gen = [_columns_hwc(7, 7, 64), _columns_hwc(7, 7, 64), _hwio_deconv(), _SAME,
           _hwio_deconv(), _SAME]
    disc = []
    for _ in DISC_STRIDES:
        disc += [_hwio_conv(), _SAME]
    disc += [_rows_hwc(4, 4, 128), _SAME]
    params = gen + disc
    return params + gen + gen + disc + disc + [_SAME, _nhwc(), _SAME], \
        params + gen + gen + disc + disc + [_SAME, _SAME, _SAME]


def _layouts(name: str, n_in: int, n_out: int):
    if name == "W6":
        return [_nhwc(), _hwio_conv()], [_nhwc()]
    if name == "W7":
        return _dcgan_layouts()
    return [_SAME] * n_in, [_SAME] * n_out


def _hermitian_cholesky(a):
    n = a.shape[-1]
    return torch.linalg.cholesky(a @ a.mH + n * torch.eye(n, dtype=a.dtype))


def _filter(x, h):
    return torch.fft.irfft2(torch.fft.rfft2(x) * h, s=x.shape[-2:])


FUNCTIONS = {
    "W1": lambda x: torch.tanh(x * 1.5 + 0.1) * 0.5 + x,
    "W2": lambda x: torch.softmax(x, dim=1),
    "W3": lambda x: torch.sum(x * x),
    "W4a": lambda a, b: a @ b,
    "W4b": lambda a, b: a @ b,
    "W5": mlp_step,
    "W6": lambda x, w: F.conv2d(x, w, padding=w.shape[-1] // 2),
    "W7": dcgan_step,
    "W8a": torch.fft.fft,
    "W8b": torch.fft.fft,
    "W8c": _filter,
    "W9a": torch.linalg.solve,
    "W9b": _hermitian_cholesky,
}


def build(framework: str, workload, inputs):
    """(callable, torch arguments, outputs -> numpy in the common layout), or None."""
    fn = FUNCTIONS.get(workload.name)
    if fn is None or (framework == "torch.compile" and workload.name not in COMPILED):
        return None
    if framework == "torch.compile":
        fn = torch.compile(fn)
    ins, outs = _layouts(workload.name, len(inputs), 64)
    args = [to(torch.from_numpy(np.array(x, order="C"))) for (to, _), x in zip(ins, inputs)]

    def to_numpy(result):
        leaves = result if isinstance(result, tuple) else (result,)
        return [back(r.detach()).numpy() for (_, back), r in zip(outs, leaves)]

    return fn, args, to_numpy
