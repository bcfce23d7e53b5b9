"""jax's debugging and promotion flags on numlir: debug_nans/debug_infs (eager, jit, grad),
log_compiles, explain_cache_misses, numpy_rank_promotion and default_matmul_precision."""

import logging
import re
import warnings

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

X = np.array([1.0, -1.0, 4.0], np.float32)


def _takes_log(np_):
    def f(x):
        y = x * 2.0
        z = np_.log(y)  # NaN here for negative x
        return np_.sum(z * 3.0)
    return f


def test_debug_nans_names_the_op_and_line_eagerly():
    with numlir.debug_nans():
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log at .*test_debugging_flags.py:\d+"):
            _takes_log(jnp)(X)
    assert float(_takes_log(jnp)(np.abs(X))) == pytest.approx(float(_takes_log(jjnp)(np.abs(X))))
    assert np.isnan(float(_takes_log(jnp)(X)))  # off again: NaN flows through


def test_debug_nans_under_jit_reruns_op_by_op_to_find_the_op():
    f = numlir.jit(_takes_log(jnp))
    with numlir.debug_nans():
        with pytest.raises(FloatingPointError, match=r"encountered in log at .*test_debugging_flags.py:\d+"):
            f(X)
        f(np.abs(X))  # no NaN: no error
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError):
            jax.jit(_takes_log(jjnp))(X)


def test_debug_nans_in_a_gradient():
    with numlir.debug_nans():
        with pytest.raises(FloatingPointError, match="nan"):
            numlir.grad(lambda x: jnp.sum(jnp.sqrt(x) * 0.0))(np.array([-1.0, 2.0], np.float32))


def test_debug_infs_and_the_config_names():
    numlir.config.update("jax_debug_infs", True)
    try:
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in div"):
            jnp.ones(2) / jnp.zeros(2)
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\)"):
            numlir.jit(lambda a: jnp.exp(a * 100.0))(X)
    finally:
        numlir.config.update("jax_debug_infs", False)
    assert numlir.config.read("jax_debug_nans") is False


def test_log_compiles_logs_each_new_signature(caplog):
    f = numlir.jit(lambda a: a * 2 + 1)
    with numlir.log_compiles(), caplog.at_level(logging.WARNING, logger="numlir"):
        f(np.ones(3, np.float32))
        f(np.ones(3, np.float32))
        f(np.ones((2, 2), np.float32))
    lines = [r.getMessage() for r in caplog.records if "Compiling jit(<lambda>)" in r.getMessage()]
    assert lines == ["Compiling jit(<lambda>) for f32[3]", "Compiling jit(<lambda>) for f32[2,2]"]


def test_log_compiles_reports_the_time_of_every_phase_and_backend_stage(caplog, monkeypatch):
    from numlir._src import compilation_cache
    from numlir._src.backends import get_backend

    monkeypatch.setattr(compilation_cache, "enabled", lambda: False)  # a compilation, not a load
    f = numlir.jit(lambda a: jnp.tanh(a) * 3)
    with numlir.log_compiles(), caplog.at_level(logging.WARNING, logger="numlir"):
        f(np.ones(5, np.float32))
    messages = [r.getMessage() for r in caplog.records]
    assert any(re.fullmatch(r"Finished tracing \+ transforming <lambda> for jit in \d+\.\d+ sec", m)
               for m in messages), messages
    assert any(re.fullmatch(r"Finished lowering jit\(<lambda>\) to hlo in \d+\.\d+ sec", m)
               for m in messages), messages
    [compiled] = [m for m in messages if m.startswith("Finished numlir compilation of jit__lambda_")]
    backend = get_backend()
    stages = [stage.name for stage in backend.stages(backend.parse_options())]
    reported = re.findall(r"([\w-]+) (\d+\.\d+)", compiled.split("(", 1)[1])
    assert [name for name, _ in reported] == stages + ["load"], compiled
    total = float(re.search(r"in (\d+\.\d+) sec", compiled).group(1))
    stage_sum = sum(float(seconds) for name, seconds in reported if name != "load")
    assert abs(total - stage_sum) <= 0.002 * len(stages)  # the total is the stages' sum
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="numlir"):
        numlir.jit(lambda a: a - 1)(np.ones(5, np.float32))
    assert not caplog.records  # nothing without the flag


def test_explain_cache_misses_context(caplog):
    f = numlir.jit(lambda a: a + 1)
    f(np.ones(2, np.float32))
    with numlir.explain_cache_misses(), caplog.at_level(logging.WARNING):
        f(np.ones(3, np.float32))
    assert any("f32[3]" in r.getMessage() or "shape" in r.getMessage() for r in caplog.records)
    assert numlir.config.read("jax_explain_cache_misses") is False


@pytest.mark.parametrize("fn", [lambda np_: np_.ones((2, 3)) + np_.ones(3),
                                lambda np_: np_.maximum(np_.ones((4, 1, 3)), np_.ones((2, 1)))])
def test_rank_promotion_raise_and_warn_like_jax(fn):
    with numlir.numpy_rank_promotion("raise"), jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            fn(jnp)
        with pytest.raises(ValueError):
            fn(jjnp)
        np.testing.assert_array_equal(np.asarray(jnp.ones((2, 3)) + 1.0), np.full((2, 3), 2.0))  # scalars are fine
    with numlir.numpy_rank_promotion("warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(jnp)
    assert any("rank_promotion='warn'" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="must be 'allow', 'warn' or 'raise'"):
        numlir.config.update("jax_numpy_rank_promotion", "sometimes")


def test_where_broadcasts_ranks_even_when_promotion_raises_as_in_jax():
    with numlir.numpy_rank_promotion("raise"), jax.numpy_rank_promotion("raise"):
        got = jnp.where(jnp.ones((2, 3)) > 0, jnp.ones(3), 0.0)
        want = jjnp.where(jjnp.ones((2, 3)) > 0, jjnp.ones(3), 0.0)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_default_matmul_precision_changes_no_result():
    a = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32)
    plain = np.asarray(numlir.jit(lambda x: x @ x)(a))
    with numlir.default_matmul_precision("bfloat16"):
        np.testing.assert_array_equal(np.asarray(numlir.jit(lambda x: x @ x + 0)(a)), plain)
