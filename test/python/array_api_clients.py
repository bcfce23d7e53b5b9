"""Array API clients on numlir arrays, run by test_array_api_clients.py in a process of its
own: SciPy reads SCIPY_ARRAY_API when it is first imported, and scikit-learn's dispatch
needs it, so neither may leak into the other tests' process.

Each check returns (result, NumPy's result); run as a script, this prints a JSON object:
name -> {"type": result's type, "max_error": largest |result - NumPy's|, "error": ...}."""

import json
import os
import sys

import numpy as np

os.environ["SCIPY_ARRAY_API"] = "1"

import numlir.numpy as jnp  # noqa: E402

_rng = np.random.default_rng(0)
X = _rng.normal(size=(40, 5)).astype(np.float32)
Y_CLASS = (X[:, 0] + 0.3 * _rng.normal(size=40) > 0).astype(np.int32)
Y_REG = (X @ np.arange(1, 6, dtype=np.float32) + 0.1 * _rng.normal(size=40)).astype(np.float32)


def _pca(xp):
    from sklearn.decomposition import PCA
    out = PCA(n_components=2, svd_solver="full").fit_transform(xp.asarray(X))
    return out


def _abs_columns(a):
    """PCA's components have a sign of their own choosing: compare |scores|."""
    return np.abs(np.asarray(a))


def _sklearn(fn, post=lambda a: a):
    import sklearn

    def check():
        with sklearn.config_context(array_api_dispatch=True):
            got = fn(jnp)
        with sklearn.config_context(array_api_dispatch=False):
            want = fn(np)
        return got, post(np.asarray(got)), post(np.asarray(want))
    return check


def _metric(name, *args):
    def fn(xp):
        from sklearn import metrics
        return getattr(metrics, name)(*(xp.asarray(a) for a in args))
    return fn


def _scipy(fn):
    def check():
        return fn(jnp), np.asarray(fn(jnp)), np.asarray(fn(np))
    return check


def _scipy_fft(xp):
    import scipy.fft
    return scipy.fft.fft(xp.asarray(X), axis=0)


def _scipy_softmax(xp):
    import scipy.special
    return scipy.special.softmax(xp.asarray(X), axis=1)


def _scipy_moment(xp):
    import scipy.stats
    return scipy.stats.moment(xp.asarray(X), order=2, axis=0)


def _scipy_logsumexp(xp):
    import scipy.special
    return scipy.special.logsumexp(xp.asarray(X), axis=1)


def _extra(name, *args, **kwargs):
    def fn(xp):
        import array_api_extra as xpx
        return getattr(xpx, name)(*(xp.asarray(a) for a in args), **kwargs)
    return _scipy(fn)


CHECKS = {
    "sklearn.PCA(svd_solver='full')": _sklearn(_pca, _abs_columns),
    "sklearn.metrics.mean_squared_error": _sklearn(_metric("mean_squared_error", Y_REG,
                                                           Y_REG * 0.9)),
    "sklearn.metrics.accuracy_score": _sklearn(_metric("accuracy_score", Y_CLASS,
                                                       Y_CLASS[::-1])),
    "sklearn.metrics.zero_one_loss": _sklearn(_metric("zero_one_loss", Y_CLASS, Y_CLASS[::-1])),
    "sklearn.metrics.confusion_matrix": _sklearn(_metric("confusion_matrix", Y_CLASS,
                                                         Y_CLASS[::-1])),
    "scipy.fft.fft": _scipy(_scipy_fft),
    "scipy.special.softmax": _scipy(_scipy_softmax),
    "scipy.stats.moment": _scipy(_scipy_moment),
    "array_api_extra.cov": _extra("cov", X.T),
    "array_api_extra.kron": _extra("kron", X[:3, :2], X[:2, :3]),
    "array_api_extra.sinc": _extra("sinc", X),
    "array_api_extra.expand_dims": _extra("expand_dims", X, axis=(0, 2)),
    "array_api_extra.setdiff1d": _extra("setdiff1d", Y_CLASS, np.array([0], np.int32)),
    "array_api_extra.isclose": _extra("isclose", X, X + 1e-9),
    "array_api_extra.nunique": _extra("nunique", Y_CLASS),
    "array_api_extra.one_hot": _extra("one_hot", np.array([0, 2, 1], np.int32), 3),
}

# Clients that write into arrays in place (x[i] = v, or array-api-extra's at() on any array
# type but JAX's): numlir arrays are immutable, and array-api-compat assumes every array type
# it does not know is writeable, so these raise numlir's TypeError; with
# numlir_array_item_assignment on, they give NumPy's results.
NEEDS_SETITEM = {
    "sklearn.LinearDiscriminantAnalysis": _sklearn(
        lambda xp: __import__("sklearn.discriminant_analysis", fromlist=["x"])
        .LinearDiscriminantAnalysis().fit(xp.asarray(X), xp.asarray(Y_CLASS)).predict(
            xp.asarray(X))),
    "sklearn.Ridge(solver='svd')": _sklearn(
        lambda xp: __import__("sklearn.linear_model", fromlist=["x"]).Ridge(solver="svd")
        .fit(xp.asarray(X), xp.asarray(Y_REG)).predict(xp.asarray(X))),
    "sklearn.metrics.r2_score": _sklearn(_metric("r2_score", Y_REG, Y_REG * 0.9)),
    "scipy.special.logsumexp": _scipy(_scipy_logsumexp),
    "array_api_extra.at": _scipy(lambda xp: __import__("array_api_extra").at(
        xp.asarray(X))[0, 0].set(5.0)),
}


def _run(checks):
    out = {}
    for name, check in checks.items():
        try:
            got, g, w = check()
            err = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)), initial=0))
            out[name] = {"type": f"{type(got).__module__}.{type(got).__name__}",
                         "dtype": str(getattr(got, "dtype", "")), "want_dtype": str(w.dtype),
                         "shape": list(g.shape), "want_shape": list(w.shape), "max_error": err,
                         "scale": float(np.max(np.abs(w.astype(np.float64)), initial=0))}
        except Exception as e:  # noqa: BLE001 - reported to the test, which asserts on it
            out[name] = {"error": f"{type(e).__name__}: {e}"}
    return out


if __name__ == "__main__":
    import array_api_compat
    import numlir
    result = {"checks": _run(CHECKS), "needs_setitem": _run(NEEDS_SETITEM),
              "namespace": array_api_compat.array_namespace(jnp.ones(2)).__name__}
    numlir.config.update("numlir_array_item_assignment", True)
    result["assigning"] = _run(NEEDS_SETITEM)
    json.dump(result, sys.stdout)
