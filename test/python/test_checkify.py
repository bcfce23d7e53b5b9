"""numlir.experimental.checkify against jax.experimental.checkify: the same programs fail or
pass the same checks (NaNs, division by zero, out-of-bounds indexing, user checks), eagerly and
under jit, through cond/while_loop/scan/fori_loop, vmap and grad; messages are jax's followed
by the user's line."""

import re
import types

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from jax.experimental import checkify as jck
from jax_comparison import assert_same

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir.experimental import checkify

NL = types.SimpleNamespace(np=jnp, lax=lax, ck=checkify, jit=numlir.jit, vmap=numlir.vmap,
                           grad=numlir.grad)
JX = types.SimpleNamespace(np=jjnp, lax=jax.lax, ck=jck, jit=jax.jit, vmap=jax.vmap,
                           grad=jax.grad)

with open(__file__) as _source:
    _LINES = _source.read().splitlines()


def line_of(tag: str) -> int:
    """The line of this file that ends with the comment ``# tag``."""
    return next(i + 1 for i, text in enumerate(_LINES) if text.rstrip().endswith(f"# {tag}"))


def at_line(tag: str) -> str:
    return f" at {__file__}:{line_of(tag)}"


def errors_of(m, name: str):
    return {"user": m.ck.user_checks, "nan": m.ck.nan_checks, "div": m.ck.div_checks,
            "index": m.ck.index_checks, "float": m.ck.float_checks,
            "automatic": m.ck.automatic_checks, "all": m.ck.all_checks,
            "automatic-nan": m.ck.automatic_checks - m.ck.nan_checks}[name]


def same_message(got: str | None, want: str | None, tag: str | None) -> None:
    """``got`` is jax's ``want`` (without its closing period) and ends with the line of the
    line tagged ``tag``; batched errors compare line by line."""
    assert (got is None) == (want is None), (got, want)
    if want is None:
        return
    got_lines, want_lines = got.split("\n"), want.split("\n")
    assert len(got_lines) == len(want_lines), (got, want)
    for g, w in zip(got_lines, want_lines):
        assert g.startswith(w.rstrip(". ")), (g, w)
        if tag is not None:
            assert g.endswith(at_line(tag)), (g, at_line(tag))
        else:
            assert re.search(r" at .+:\d+$", g), g


# --- Programs, written once for both libraries (m is NL or JX) -----------------------------------


def log_of(m):
    return lambda x: m.np.log(x) * 2.0  # log_of


def abs_of(m):
    return lambda x: m.np.abs(x)


def sin_of(m):
    return lambda x: m.np.sin(x)  # sin_of


def divide(m):
    return lambda x, y: x / y  # divide


def floor_divide(m):
    return lambda x, y: x // y  # floor_divide


def remainder(m):
    return lambda x, y: x % y


def index_scalar(m):
    return lambda x, i: x[i]  # index_scalar


def index_array(m):
    return lambda x, i: x[m.np.stack([i, i - 1])]  # index_array


def index_2d(m):
    return lambda x, i, j: x[i, j] + 1.0  # index_2d


def set_at(m):
    return lambda x, i: x.at[i].set(7.0)  # set_at


def add_at_array(m):
    return lambda x, i: x.at[m.np.stack([i, 0])].add(1.0)  # add_at_array


def take(m):
    return lambda x, i: m.np.take(x, m.np.stack([0, i]))  # take


def dynamic_slice(m):
    return lambda x, i: m.lax.dynamic_slice(x, (i,), (2,))  # dynamic_slice


def dynamic_update_slice(m):
    return lambda x, i: m.lax.dynamic_update_slice(x, m.np.ones(2, x.dtype), (i,))  # dus


def user_check(m):
    def f(x):
        m.ck.check(m.np.all(x > 0), "{} must be positive (sum {total})", x,  # user_check
                   total=m.np.sum(x))
        return x * 2.0
    return f


def two_errors(m):
    def f(x, i):
        y = m.np.log(x)  # two_errors
        return y[i]
    return f


F32 = np.float32
CASES = [
    # (program, errors, arguments, tag of the failing line)
    (log_of, "nan", (np.array([1.0, -1.0], F32),), "log_of"),
    (log_of, "nan", (np.array([1.0, 2.0], F32),), None),
    (log_of, "user", (np.array([1.0, -1.0], F32),), None),  # nan checks are off by default
    (log_of, "div", (np.array([1.0, -1.0], F32),), None),
    (sin_of, "nan", (np.array([np.nan], F32),), "sin_of"),  # a NaN input counts, as in jax
    (abs_of, "nan", (np.array([np.nan], F32),), None),  # abs is not a NaN-making primitive
    (divide, "div", (np.array([1.0, 2.0], F32), np.array([1.0, 0.0], F32)), "divide"),
    (divide, "div", (np.array([1.0, 2.0], F32), np.array([1.0, 3.0], F32)), None),
    (divide, "nan", (np.array([0.0], F32), np.array([0.0], F32)), "divide"),
    (divide, "nan", (np.array([1.0], F32), np.array([0.0], F32)), None),  # inf is no NaN
    (floor_divide, "div", (np.array([7, 8], np.int32), np.array([2, 0], np.int32)), "floor_divide"),
    (floor_divide, "div", (np.array([7, 8], np.int32), np.array([2, 3], np.int32)), None),
    (remainder, "div", (np.array([7], np.int32), np.array([0], np.int32)), None),  # as jax
    (index_scalar, "index", (np.arange(3, dtype=F32), np.int32(5)), "index_scalar"),
    (index_scalar, "index", (np.arange(3, dtype=F32), np.int32(-1)), None),
    (index_scalar, "index", (np.arange(3, dtype=F32), np.int32(-4)), "index_scalar"),
    (index_scalar, "index", (np.arange(3, dtype=F32), np.int32(2)), None),
    (index_array, "index", (np.arange(3, dtype=F32), np.int32(4)), "index_array"),
    (index_array, "index", (np.arange(3, dtype=F32), np.int32(2)), None),
    (index_2d, "index", (np.ones((2, 3), F32), np.int32(1), np.int32(3)), "index_2d"),
    (index_2d, "index", (np.ones((2, 3), F32), np.int32(2), np.int32(0)), "index_2d"),
    (set_at, "index", (np.arange(3, dtype=F32), np.int32(5)), "set_at"),
    (set_at, "index", (np.arange(3, dtype=F32), np.int32(1)), None),
    (add_at_array, "index", (np.arange(3, dtype=F32), np.int32(3)), "add_at_array"),
    (take, "index", (np.arange(3, dtype=F32), np.int32(5)), "take"),
    (take, "index", (np.arange(3, dtype=F32), np.int32(2)), None),
    (dynamic_slice, "index", (np.arange(3, dtype=F32), np.int32(2)), "dynamic_slice"),
    (dynamic_slice, "index", (np.arange(3, dtype=F32), np.int32(1)), None),
    (dynamic_update_slice, "index", (np.arange(3, dtype=F32), np.int32(2)), "dus"),
    (dynamic_update_slice, "index", (np.arange(3, dtype=F32), np.int32(-1)), "dus"),
    (user_check, "user", (np.array([1.0, -2.0], F32),), "user_check"),
    (user_check, "user", (np.array([1.0, 2.0], F32),), None),
    (user_check, "nan", (np.array([1.0, -2.0], F32),), None),  # user checks not enabled
    (two_errors, "all", (np.array([1.0, -1.0], F32), np.int32(5)), "two_errors"),  # first wins
    (two_errors, "automatic-nan", (np.array([1.0, -1.0], F32), np.int32(5)), "index_scalar"),
]


def _lift(m, args):
    return [m.np.asarray(a) for a in args]


_jax_results: dict = {}


def jax_result(program, errors: str, args) -> tuple:
    """jax's (error message, outputs as NumPy arrays) for ``program``, computed once per case."""
    key = (program, errors, tuple((a.tobytes(), a.dtype.str) for a in map(np.asarray, args)))
    if key not in _jax_results:
        err, out = jck.checkify(program(JX), errors=errors_of(JX, errors))(*_lift(JX, args))
        _jax_results[key] = err.get(), jax.tree_util.tree_map(np.asarray, out)
    return _jax_results[key]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_checks_match_jax(case, jit):
    program, errors, args, tag = CASES[case]
    if program is two_errors and errors == "automatic-nan":
        tag = None  # the indexing of y[i] is inside jnp's getitem: any user line will do
    want_message, want = jax_result(program, errors, args)
    f = checkify.checkify(program(NL), errors=errors_of(NL, errors))
    got_err, got = (numlir.jit(f) if jit else f)(*_lift(NL, args))
    same_message(got_err.get(), want_message, tag)
    if program not in (floor_divide, remainder) or np.all(args[1]):
        assert_same(got, want)  # (integer division by zero has no defined value)


# --- Values and the Error API ----------------------------------------------------------------------


def test_checkified_function_returns_the_plain_outputs():
    def f(x, y):
        return {"a": jnp.sin(x) @ y, "b": (x[0], jnp.cumsum(y))}

    x, y = np.arange(6, dtype=F32).reshape(2, 3), np.ones(3, F32)
    err, out = checkify.checkify(f, errors=checkify.all_checks)(jnp.asarray(x), jnp.asarray(y))
    assert err.get() is None
    err.throw()  # nothing to raise
    assert_same(out, f(jnp.asarray(x), jnp.asarray(y)))
    jerr, jout = numlir.jit(checkify.checkify(f, errors=checkify.all_checks))(x, y)
    assert jerr.get() is None and str(jerr) == "Error(None)"
    assert_same(jout, out)


def test_throw_and_check_error_raise_jax_runtime_error():
    err, _ = checkify.checkify(lambda x: jnp.log(x), errors=checkify.nan_checks)(jnp.asarray(-1.0))
    with pytest.raises(checkify.JaxRuntimeError, match="nan generated by primitive: log at "):
        err.throw()
    with pytest.raises(checkify.JaxRuntimeError, match="log"):
        checkify.check_error(err)
    assert issubclass(checkify.JaxRuntimeError, ValueError)
    with pytest.raises(TypeError, match="check_error takes an Error"):
        checkify.check_error("no")


def test_check_outside_checkify_raises_on_concrete_values():
    x = jnp.asarray(-3.0)
    with pytest.raises(checkify.JaxRuntimeError,
                       match=re.escape("-3.0 needs to be positive! (`check` failed)")):
        checkify.check(x > 0, "{x} needs to be positive!", x=x)  # eager_check
    checkify.check(x < 0, "fine")
    with pytest.raises(TypeError, match="scalar pred"):
        checkify.check(jnp.ones(2) > 0, "vector")
    with pytest.raises(TypeError, match="PyTrees of arrays"):
        checkify.check(x > 0, "{}", 1.0)


def test_a_check_staged_by_jit_without_checkify_is_refused():
    def f(x):
        checkify.check(x > 0, "neg")
        return lax.cond(x > 1.0, lambda: x, lambda: -x)

    with pytest.raises(ValueError, match="not functionalized"):
        numlir.jit(f)(1.0)
    err, _ = numlir.jit(checkify.checkify(f))(-1.0)
    assert err.get().startswith("neg (`check` failed) at ")
    assert "check" in str(numlir.make_jaxpr(f)(1.0))  # recorded, for inspection


def test_jitted_checkified_function_runs_again_from_the_cache():
    f = numlir.jit(checkify.checkify(index_scalar(NL), errors=checkify.index_checks))
    x = jnp.arange(3.0)
    assert f(x, 1)[0].get() is None
    assert "index 7 is out of bounds" in f(x, 7)[0].get()
    assert f(x, 2)[0].get() is None


def test_check_error_is_functionalized_by_an_outer_checkify():
    def f(x):
        checkify.check(x > 0, "must be positive!")  # inner_check
        return x

    def with_inner_jit(x):
        err, out = numlir.jit(checkify.checkify(f))(x)
        checkify.check_error(err)
        return out

    assert with_inner_jit(1.0) == 1.0
    with pytest.raises(checkify.JaxRuntimeError, match="must be positive!"):
        with_inner_jit(-1.0)
    err, _ = checkify.checkify(with_inner_jit)(jnp.asarray(-1.0))
    assert err.get() == "must be positive! (`check` failed)" + at_line("inner_check")
    assert checkify.checkify(with_inner_jit)(jnp.asarray(2.0))[0].get() is None


# --- Composition ---------------------------------------------------------------------------------


def cond_program(m):
    def f(x):
        return m.lax.cond(x > 0, lambda x: m.np.log(x - 2.0),  # cond_program
                          lambda x: m.np.sin(x), x)
    return f


def while_program(m):
    def f(x):
        def body(c):
            i, y = c
            m.ck.check(i < 3, "i too big: {}", i)  # while_program
            return i + 1, y * 2.0

        return m.lax.while_loop(lambda c: c[0] < 5, body, (0, x))
    return f


def while_cond_program(m):
    def f(x, i):
        return m.lax.while_loop(lambda c: c[0][c[1]] < 10.0,  # while_cond
                                lambda c: (c[0] + 1.0, c[1] + 1), (x, i))
    return f


def scan_program(m):
    def f(xs):
        def body(c, x):
            return c + m.np.sqrt(x), m.np.log(x)  # scan_program
        return m.lax.scan(body, 0.0, xs)
    return f


def fori_program(m):
    def f(x, i):
        return m.lax.fori_loop(0, 3, lambda j, acc: acc + x[i + j], 0.0)  # fori_program
    return f


COMPOSED = [
    (cond_program, "all", (np.float32(3.0),), None),
    (cond_program, "all", (np.float32(1.0),), "cond_program"),
    (cond_program, "all", (np.float32(-1.0),), None),
    (while_program, "user", (np.float32(1.0),), "while_program"),
    (while_cond_program, "index", (np.zeros(3, F32), np.int32(0)), None),
    (while_cond_program, "index", (np.zeros(3, F32), np.int32(1)), "while_cond"),
    (scan_program, "nan", (np.array([1.0, 2.0, -1.0, 3.0], F32),), "scan_program"),
    (scan_program, "nan", (np.array([1.0, 2.0, 1.0, 3.0], F32),), None),
    (fori_program, "index", (np.arange(4, dtype=F32), np.int32(2)), "fori_program"),
    (fori_program, "index", (np.arange(4, dtype=F32), np.int32(1)), None),
]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", range(len(COMPOSED)))
def test_checks_inside_control_flow_match_jax(case, jit):
    program, errors, args, tag = COMPOSED[case]
    want_message, want = jax_result(program, errors, args)
    f = checkify.checkify(program(NL), errors=errors_of(NL, errors))
    got_err, got = (numlir.jit(f) if jit else f)(*_lift(NL, args))
    same_message(got_err.get(), want_message, tag)
    assert_same(got, want)


@pytest.mark.parametrize("program,args,tag", [
    (user_check, (np.array([[1.0, 2.0], [-1.0, 2.0], [3.0, -3.0]], F32),), "user_check"),
    (fori_program, (np.arange(4, dtype=F32), np.array([0, 2, 1, 3], np.int32)), "fori_program"),
    (log_of, (np.array([[1.0], [2.0]], F32),), None),
], ids=["user", "fori", "none"])
def test_vmap_of_checkify_reports_each_failing_batch_element(program, args, tag):
    in_axes = (0,) if len(args) == 1 else (None, 0)
    want_err, want = jax.vmap(jck.checkify(program(JX), errors=jck.all_checks), in_axes)(
        *_lift(JX, args))
    got_err, got = numlir.vmap(checkify.checkify(program(NL), errors=checkify.all_checks),
                               in_axes)(*_lift(NL, args))
    same_message(got_err.get(), want_err.get(), tag)
    assert_same(got, want)
    jit_err, _ = numlir.jit(numlir.vmap(checkify.checkify(program(NL), errors=checkify.all_checks),
                                        in_axes))(*_lift(NL, args))
    assert jit_err.get() == got_err.get()


def test_checkify_of_vmap_reports_a_failing_element():
    x = np.array([[1.0, 2.0], [-1.0, 2.0], [3.0, -3.0]], F32)
    got_err, got = checkify.checkify(numlir.vmap(user_check(NL)))(jnp.asarray(x))
    want_err, want = jck.checkify(jax.vmap(user_check(JX)))(jjnp.asarray(x))
    assert want_err.get() is not None
    # jax reports one of the failing elements (the last); numlir reports the first.
    assert got_err.get() == ("[-1.  2.] must be positive (sum 1.0) (`check` failed)"
                             + at_line("user_check"))
    assert_same(got, want)
    ok_err, _ = checkify.checkify(numlir.vmap(user_check(NL)))(jnp.abs(jnp.asarray(x)))
    assert ok_err.get() is None


def test_checkify_of_jit_and_of_grad_match_jax():
    x_bad, x_ok = np.array([1.0, 0.0], F32), np.array([1.0, 2.0], F32)

    def loss(m):
        return lambda x: m.np.sum(m.np.log(x))  # loss

    for x in (x_bad, x_ok):
        want_err, want = jck.checkify(jax.grad(loss(JX)), errors=jck.all_checks)(jjnp.asarray(x))
        got_err, got = checkify.checkify(numlir.grad(loss(NL)), errors=checkify.all_checks)(
            jnp.asarray(x))
        same_message(got_err.get(), want_err.get(), None)
        assert_same(got, want)
        want_err, want = jck.checkify(jax.jit(loss(JX)), errors=jck.all_checks)(jjnp.asarray(x))
        got_err, got = checkify.checkify(numlir.jit(loss(NL)), errors=checkify.all_checks)(
            jnp.asarray(x))
        same_message(got_err.get(), want_err.get(), "loss")
        assert_same(got, want)


def test_grad_through_a_checkified_function():
    def f(m):
        def g(x):
            m.ck.check(m.np.all(x > 0), "x must be positive")
            return m.np.sum(m.np.log(x) * x)
        return g

    x = np.array([1.0, 2.0], F32)
    want = jax.grad(lambda x: jck.checkify(f(JX), errors=jck.all_checks)(x)[1])(jjnp.asarray(x))
    got = numlir.grad(lambda x: checkify.checkify(f(NL), errors=checkify.all_checks)(x)[1])(
        jnp.asarray(x))
    assert_same(got, want)
    got_jit = numlir.jit(numlir.grad(
        lambda x: checkify.checkify(f(NL), errors=checkify.all_checks)(x)[1]))(jnp.asarray(x))
    assert_same(got_jit, want)
    # grad of a function holding a check runs the check on the primal values
    assert_same(numlir.grad(f(NL))(jnp.asarray(x)), jax.grad(f(JX))(jjnp.asarray(x)))
    with pytest.raises(checkify.JaxRuntimeError, match="x must be positive"):
        numlir.grad(f(NL))(jnp.asarray(-x))
    err, _ = checkify.checkify(numlir.grad(f(NL)))(jnp.asarray(-x))
    assert err.get().startswith("x must be positive (`check` failed) at ")


def test_error_sets_combine_like_jax():
    assert checkify.all_checks == checkify.automatic_checks | checkify.user_checks
    assert checkify.float_checks == checkify.nan_checks | checkify.div_checks
    assert checkify.automatic_checks - checkify.float_checks == checkify.index_checks
    with pytest.raises(TypeError, match="error categories"):
        checkify.checkify(jnp.sin, errors={"nan"})


def test_debug_check_runs_only_under_checkify():
    def f(m):
        def g(x):
            m.ck.debug_check(x != 0, "cannot be zero!")  # debug_check
            return x + 1
        return g

    assert_same(f(NL)(jnp.asarray(0)), f(JX)(jjnp.asarray(0)))
    assert_same(numlir.jit(f(NL))(jnp.asarray(0)), np.int32(1))
    err, out = numlir.jit(checkify.checkify(f(NL)))(jnp.asarray(0))
    want_err, want = jax.jit(jck.checkify(f(JX)))(jjnp.asarray(0))
    same_message(err.get(), want_err.get(), "debug_check")
    assert_same(out, want)
    assert checkify.checkify(f(NL))(jnp.asarray(2))[0].get() is None


def test_checks_inside_checkpoint_and_custom_derivatives_keep_their_rules():
    @numlir.custom_jvp
    def root(x):
        return jnp.sqrt(x)  # custom_jvp_body

    root.defjvp(lambda p, t: (root(p[0]), t[0] * 7.0))

    @numlir.custom_vjp
    def log(x):
        return jnp.log(x)  # custom_vjp_body

    log.defvjp(lambda x: (jnp.log(x), x), lambda x, g: (g / x,))

    def remat_log(x):
        return numlir.checkpoint(lambda y: jnp.log(y) * 2.0)(x)  # checkpoint_body

    for fun, tag, grad_at_4 in [(root, "custom_jvp_body", 7.0), (log, "custom_vjp_body", 0.25),
                                (remat_log, "checkpoint_body", 0.5)]:
        checked = checkify.checkify(fun, errors=checkify.nan_checks)
        err, _ = checked(jnp.asarray(-1.0))
        assert err.get() == f"nan generated by primitive: {fun is root and 'sqrt' or 'log'}" + (
            at_line(tag))
        assert numlir.jit(checked)(jnp.asarray(-1.0))[0].get() == err.get()
        assert checked(jnp.asarray(4.0))[0].get() is None
        grad = numlir.grad(lambda x, checked=checked: checked(x)[1])(jnp.asarray(4.0))
        np.testing.assert_allclose(grad, grad_at_4, rtol=1e-6)


def test_out_of_bounds_payload_keeps_64_bit_indices():
    with numlir.enable_x64(True):
        f = checkify.checkify(index_scalar(NL), errors=checkify.index_checks)
        err, _ = numlir.jit(f)(jnp.arange(3.0), jnp.asarray(np.int64(2**40)))
    assert err.get() == ("out-of-bounds indexing for array of shape (3,): index 1099511627776 is "
                         "out of bounds for axis 0 with size 3" + at_line("index_scalar"))


@pytest.mark.parametrize("name", ["mlp_grad", "sort", "max_pool", "cholesky", "switch", "map"])
def test_all_checks_leave_clean_programs_alone(name):
    program = {
        "mlp_grad": lambda x: numlir.grad(lambda w: jnp.sum(numlir.nn.relu(x @ w) ** 2))(x),
        "sort": lambda x: jnp.sort(x, axis=0) + jnp.argsort(x, axis=1),
        "max_pool": lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID"),
        "cholesky": lambda x: jnp.linalg.cholesky(x @ x.T + 4 * jnp.eye(4)),
        "switch": lambda x: lax.switch(jnp.argmax(x[0]) % 3, [jnp.sin, jnp.cos, jnp.tanh], x),
        "map": lambda x: lax.map(lambda r: r * jnp.log(jnp.abs(r) + 1.0), x),
    }[name]
    x = jnp.asarray(np.random.RandomState(0).randn(4, 4).astype(F32))
    err, out = numlir.jit(checkify.checkify(program, errors=checkify.all_checks))(x)
    assert err.get() is None
    assert_same(out, program(x))
