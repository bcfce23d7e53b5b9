"""The workloads in plain NumPy (eager, OpenBLAS for matmul).

NumPy has no convolution and no autodiff: W6 and W7 have no NumPy version, and
W5's backward pass is written out by hand, which is cheap for an MLP.
"""

from __future__ import annotations

import numpy as np

from specs import MLP_PARAMS


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _adam(params, grads, m, v, t, lr, b1, b2, eps=1e-8):
    t = t + np.float32(1)
    m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
    v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
    scale = lr * np.sqrt(1 - np.power(b2, t)) / (1 - np.power(b1, t))
    params = [p - scale * mi / (np.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v)]
    return params, m, v, t


def mlp_step(*args):
    k = MLP_PARAMS
    params, m, v = list(args[:k]), list(args[k:2 * k]), list(args[2 * k:3 * k])
    t, x, y = args[3 * k:]
    acts, pre = [x], []
    for i in range(0, k, 2):
        z = acts[-1] @ params[i] + params[i + 1]
        pre.append(z)
        acts.append(np.maximum(z, 0) if i < k - 2 else z)
    logits = acts[-1]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    batch = np.float32(x.shape[0])
    loss = -np.sum(y * logp) / batch
    delta = (np.exp(logp) * y.sum(axis=1, keepdims=True) - y) / batch
    grads = [None] * k
    for i in range(k - 2, -1, -2):
        grads[i], grads[i + 1] = acts[i // 2].T @ delta, delta.sum(axis=0)
        if i:
            delta = (delta @ params[i].T) * (pre[i // 2 - 1] > 0)
    params, m, v, t = _adam(params, grads, m, v, t, 1e-3, 0.9, 0.999)
    return (*params, *m, *v, t, loss.astype(np.float32))


def _hermitian_cholesky(a):
    n = a.shape[-1]
    return np.linalg.cholesky(a @ a.conj().swapaxes(-1, -2) + n * np.eye(n, dtype=a.dtype))


def _filter(x, h):
    return np.fft.irfft2(np.fft.rfft2(x) * h, s=x.shape[-2:])


FUNCTIONS = {
    "W1": lambda x: np.tanh(x * 1.5 + 0.1) * 0.5 + x,
    "W2": _softmax,
    "W3": lambda x: np.sum(x * x),
    "W4a": lambda a, b: a @ b,
    "W4b": lambda a, b: a @ b,
    "W5": mlp_step,
    "W8a": np.fft.fft,
    "W8b": np.fft.fft,
    "W8c": _filter,
    "W9a": np.linalg.solve,
    "W9b": _hermitian_cholesky,
}


def build(framework: str, workload, inputs):
    fn = FUNCTIONS.get(workload.name)
    return None if fn is None else (fn, inputs)
