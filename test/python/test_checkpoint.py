"""numlir.checkpoint (remat): values, gradients vs jax.checkpoint, what is saved vs recomputed."""

import functools

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from jax.ad_checkpoint import checkpoint_name as jax_checkpoint_name

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import core, reverse_mode

P = numlir.checkpoint_policies
JP = jax.checkpoint_policies
RNG = np.random.default_rng(0)
W = (RNG.standard_normal((4, 4)) * 0.5).astype(np.float32)
X = RNG.standard_normal(4).astype(np.float32)


def assert_close(a, b, tol=1e-5):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


def chain(np_, w, x, layers=3):
    """sin(w @ ...) repeated: a dot and an elementwise op per layer."""
    for _ in range(layers):
        x = np_.sin(w @ x)
    return np_.sum(x)


def small(np_):
    return lambda x: np_.sin(np_.sin(x) * 2.0) * np_.cos(x)


def hlo_counts(f, *args, ops=("sin", "cos", "dot_general")):
    """How often each op appears in the hlo text of jit(value_and_grad(f))."""
    argnums = tuple(range(len(args)))
    text = numlir.jit(numlir.value_and_grad(f, argnums=argnums)).lower(*args).as_text()
    return {op: text.count(f"hlo.{op} ") for op in ops}


def residual_avals(f, *args):
    """The abstract values reverse mode keeps from the forward pass for the backward pass."""
    _, _, lin = reverse_mode._linearize_flat(f, [np.asarray(a) for a in args])
    return sorted(core.get_aval(c).str_short() for c in lin.graph.consts)


# --- Without differentiation -----------------------------------------------------------


def test_forward_eager_jit_pytrees_and_kwargs():
    def f(d, scale=1.0):
        return {"y": jnp.sin(d["a"]) * scale, "z": (d["b"] @ d["a"], 3.0)}

    d = {"a": X, "b": W}
    expected = f(d, scale=2.0)
    assert_close(numlir.checkpoint(f)(d, scale=2.0), expected)
    assert_close(numlir.jit(numlir.checkpoint(f))(d, scale=2.0), expected)
    assert numlir.remat is numlir.checkpoint


def test_forward_lowers_inline():
    text = numlir.jit(numlir.checkpoint(lambda x: jnp.sin(jnp.cos(x)))).lower(X).as_text()
    assert text.count("hlo.sin ") == 1 and text.count("hlo.cos ") == 1


def test_one_checkpoint_equation_holding_the_live_body():
    closed = numlir.make_graph(numlir.checkpoint(lambda x: (jnp.cos(x), jnp.sin(x))[1]))(X)
    (eqn,) = closed.eqns
    assert eqn.prim.name == "checkpoint" and not eqn.params["differentiated"]
    assert [e.prim.name for e in eqn.params["graph"].eqns] == ["sin"]  # the unused cos is gone


def test_non_array_output_is_an_error():
    with pytest.raises(TypeError, match="checkpoint"):
        numlir.checkpoint(lambda x: (x, "label"))(X)


# --- Reverse mode against jax.checkpoint ------------------------------------------------

POLICIES = [
    (None, None),
    (P.nothing_saveable, JP.nothing_saveable),
    (P.dots_saveable, JP.dots_saveable),
    (P.checkpoint_dots, JP.checkpoint_dots),
    (P.dots_with_no_batch_dims_saveable, JP.dots_with_no_batch_dims_saveable),
    (P.everything_saveable, JP.everything_saveable),
]


@pytest.mark.parametrize("policy,jax_policy", POLICIES)
def test_value_and_grad_matches_jax(policy, jax_policy):
    f = numlir.checkpoint(functools.partial(chain, jnp), policy=policy)
    jf = jax.checkpoint(functools.partial(chain, jjnp), policy=jax_policy)
    expected = jax.value_and_grad(jf, argnums=(0, 1))(W, X)
    assert_close(numlir.value_and_grad(f, argnums=(0, 1))(W, X), expected)
    assert_close(numlir.jit(numlir.value_and_grad(f, argnums=(0, 1)))(W, X), expected)


def test_grad_matches_finite_differences_float64(x64):
    w, x = W.astype(np.float64), X.astype(np.float64)
    f = numlir.checkpoint(functools.partial(chain, jnp))
    gw, gx = numlir.grad(f, argnums=(0, 1))(w, x)
    eps = 1e-6
    rng = np.random.default_rng(1)
    for _ in range(3):
        dw, dx = rng.standard_normal(w.shape), rng.standard_normal(x.shape)
        plus, minus = chain(np, w + eps * dw, x + eps * dx), chain(np, w - eps * dw, x - eps * dx)
        num = (plus - minus) / (2 * eps)
        ana = np.sum(np.asarray(gw) * dw) + np.sum(np.asarray(gx) * dx)
        np.testing.assert_allclose(ana, num, rtol=1e-7, atol=1e-9)


# --- What is saved and what is recomputed ---------------------------------------------


def test_op_counts_per_policy():
    base = functools.partial(chain, jnp)
    plain = hlo_counts(base, W, X)
    nothing = hlo_counts(numlir.checkpoint(base, policy=P.nothing_saveable), W, X)
    default = hlo_counts(numlir.checkpoint(base), W, X)
    dots = hlo_counts(numlir.checkpoint(base, policy=P.dots_saveable), W, X)
    everything = hlo_counts(numlir.checkpoint(base, policy=P.everything_saveable), W, X)
    # Nothing saved: the backward pass recomputes the sines and the dots it needs.
    assert nothing["sin"] > plain["sin"] and nothing["dot_general"] > plain["dot_general"]
    assert default == nothing
    # Dots saved: no dot is recomputed, the sines are.
    assert dots["dot_general"] == plain["dot_general"] and dots["sin"] > plain["sin"]
    # Everything saved: the same program as without checkpoint.
    assert everything == plain
    # 3 layers: 3 forward sines, the backward recomputes the 2 that feed later layers.
    recomputed_dots = nothing["dot_general"] - plain["dot_general"]
    assert (plain["sin"], nothing["sin"], recomputed_dots) == (3, 5, 3)


def test_dots_with_no_batch_dims_recomputes_batched_dots():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3)).astype(np.float32)
    v = RNG.standard_normal((2, 3, 3)).astype(np.float32)

    def f(w, v, x):
        h = jnp.sin(x @ w)  # no batch dimensions
        return jnp.sum(jnp.sin(h @ v) * h)  # batched over the leading axis

    plain = hlo_counts(f, w, v, x)["dot_general"]
    dots = hlo_counts(numlir.checkpoint(f, policy=P.dots_saveable), w, v, x)["dot_general"]
    no_batch = hlo_counts(numlir.checkpoint(f, policy=P.dots_with_no_batch_dims_saveable),
                          w, v, x)["dot_general"]
    assert dots == plain and no_batch == plain + 1


def test_residuals_are_what_the_policy_saves():
    def f(w, x):
        return jnp.sum(jnp.sin(jnp.sin(w @ x) * 2.0) * jnp.cos(x))

    inputs = sorted(["f32[4,4]", "f32[4]"])
    assert residual_avals(numlir.checkpoint(f), W, X) == inputs
    assert residual_avals(numlir.checkpoint(f, policy=P.dots_saveable), W, X) == sorted(
        inputs + ["f32[4,1]"])  # the matrix-vector product, as (4, 1)
    assert (residual_avals(numlir.checkpoint(f, policy=P.everything_saveable), W, X)
            == residual_avals(f, W, X))


def _named(np_, name):
    def f(x):
        a = name(np_.sin(x), "a")
        b = name(np_.sin(a * 3.0), "b")
        return np_.sum(np_.sin(b) * a)
    return f


@pytest.mark.parametrize("names", [("a",), ("b",), ("a", "b")])
def test_name_policies_match_jax(names):
    for make in ("save_only_these_names", "save_anything_except_these_names",
                 "save_any_names_but_these"):
        f = numlir.checkpoint(_named(jnp, numlir.checkpoint_name),
                              policy=getattr(P, make)(*names))
        jf = jax.checkpoint(_named(jjnp, jax_checkpoint_name), policy=getattr(JP, make)(*names))
        assert_close(numlir.grad(f)(X), jax.grad(jf)(X))


def test_save_only_these_names_saves_the_named_value():
    f = _named(jnp, numlir.checkpoint_name)
    assert residual_avals(numlir.checkpoint(f), X) == ["f32[4]"]  # just x
    saved = residual_avals(numlir.checkpoint(f, policy=P.save_only_these_names("a")), X)
    assert saved == ["f32[4]", "f32[4]"]  # x and a
    both = P.save_from_both_policies(P.save_only_these_names("a"), P.save_only_these_names("b"))
    assert residual_avals(numlir.checkpoint(f, policy=both), X) == ["f32[4]"] * 3


# --- Composition --------------------------------------------------------------------


def test_higher_order_and_jit():
    f, jf = numlir.checkpoint(small(jnp)), jax.checkpoint(small(jjnp))
    x = np.float32(0.7)
    assert_close(numlir.jit(numlir.grad(f))(x), jax.grad(jf)(x))
    assert_close(numlir.grad(numlir.grad(f))(x), jax.grad(jax.grad(jf))(x))
    assert_close(numlir.jit(numlir.grad(numlir.grad(f)))(x), jax.grad(jax.grad(jf))(x))
    assert_close(numlir.hessian(f)(x), jax.hessian(jf)(x))


def test_jvp_and_linearize():
    f, jf = numlir.checkpoint(small(jnp)), jax.checkpoint(small(jjnp))
    t = np.ones_like(X) * 1.5
    assert_close(numlir.jvp(f, (X,), (t,)), jax.jvp(jf, (X,), (t,)))
    y, f_jvp = numlir.linearize(f, X)
    jy, jf_jvp = jax.linearize(jf, X)
    assert_close((y, f_jvp(t)), (jy, jf_jvp(t)))


def test_vmap():
    xs = np.linspace(-1, 1, 5).astype(np.float32)
    f, jf = numlir.checkpoint(small(jnp)), jax.checkpoint(small(jjnp))
    assert_close(numlir.vmap(f)(xs), jax.vmap(jf)(xs))
    assert_close(numlir.vmap(numlir.grad(f))(xs), jax.vmap(jax.grad(jf))(xs))
    assert_close(numlir.grad(lambda v: jnp.sum(numlir.vmap(f)(v)))(xs),
                 jax.grad(lambda v: jjnp.sum(jax.vmap(jf)(v)))(xs))
    assert_close(numlir.jacrev(f)(X), jax.jacrev(jf)(X))


def test_nested_checkpoints():
    def make(np_, ckpt, outer_policy):
        inner = ckpt(lambda x: np_.sin(np_.sin(x)))
        return ckpt(lambda x: np_.sum(np_.cos(inner(x) * x)), policy=outer_policy)

    for policy, jax_policy in [(None, None), (P.everything_saveable, JP.everything_saveable)]:
        f, jf = make(jnp, numlir.checkpoint, policy), make(jjnp, jax.checkpoint, jax_policy)
        assert_close(numlir.grad(f)(X), jax.grad(jf)(X))
        assert_close(numlir.jit(numlir.grad(f))(X), jax.grad(jf)(X))
    x = np.float32(0.3)
    f, jf = make(jnp, numlir.checkpoint, None), make(jjnp, jax.checkpoint, None)
    assert_close(numlir.grad(numlir.grad(f))(x), jax.grad(jax.grad(jf))(x))


def test_inside_cond():
    f, jf = numlir.checkpoint(small(jnp)), jax.checkpoint(small(jjnp))

    def g(x):
        return jnp.sum(lax.cond(jnp.sum(x) > 0, f, lambda y: y * 2.0, x))

    def jg(x):
        return jjnp.sum(jax.lax.cond(jjnp.sum(x) > 0, jf, lambda y: y * 2.0, x))

    for x in (X, -np.abs(X)):
        assert_close(numlir.grad(g)(x), jax.grad(jg)(x))
        assert_close(numlir.jit(numlir.grad(g))(x), jax.grad(jg)(x))


def test_inside_scan():
    def body(np_, ckpt):
        return ckpt(lambda c, x: (np_.sin(np_.sin(c * x)) + c, np_.cos(c) * x))

    def f(np_, scan, ckpt):
        def g(c, xs):
            carry, ys = scan(body(np_, ckpt), c, xs)
            return np_.sum(ys) + carry
        return g

    c, xs = np.float32(0.5), np.linspace(0.1, 1.0, 6).astype(np.float32)
    g = f(jnp, lax.scan, numlir.checkpoint)
    jg = f(jjnp, jax.lax.scan, jax.checkpoint)
    expected = jax.grad(jg, argnums=(0, 1))(c, xs)
    assert_close(numlir.grad(g, argnums=(0, 1))(c, xs), expected)
    assert_close(numlir.jit(numlir.grad(g, argnums=(0, 1)))(c, xs), expected)
    # The loop's backward pass recomputes what the checkpointed body did not save.
    plain = f(jnp, lax.scan, lambda fn: fn)
    assert hlo_counts(g, c, xs)["sin"] > hlo_counts(plain, c, xs)["sin"]


def test_closure_over_differentiated_value():
    def f(np_, ckpt):
        return lambda w: ckpt(lambda x: np_.sum(np_.sin(w * x) * w))(X)

    assert_close(numlir.grad(f(jnp, numlir.checkpoint))(np.float32(0.4)),
                 jax.grad(f(jjnp, jax.checkpoint))(np.float32(0.4)))


def test_static_argnums():
    def f(np_, x, n, scale):
        for _ in range(n):  # Python control flow on the static argument
            x = np_.sin(x) * scale
        return np_.sum(x)

    g = numlir.checkpoint(functools.partial(f, jnp), static_argnums=(1,))
    jg = jax.checkpoint(functools.partial(f, jjnp), static_argnums=(1,))
    assert_close(numlir.grad(g, argnums=(0, 2))(X, 3, 1.5),
                 jax.grad(jg, argnums=(0, 2))(X, 3, 1.5))
    neg = numlir.checkpoint(functools.partial(f, jnp), static_argnums=-2, prevent_cse=False)
    assert_close(numlir.jit(numlir.grad(neg), static_argnums=1)(X, 2, 1.5),
                 jax.grad(jg)(X, 2, 1.5))
    with pytest.raises(ValueError, match="static_argnums"):
        numlir.checkpoint(functools.partial(f, jnp), static_argnums=5)(X, 1, 1.0)


def test_decorator_with_policy():
    @functools.partial(numlir.checkpoint, policy=P.dots_saveable)
    def layer(w, x):
        return jnp.sin(w @ x)

    @functools.partial(jax.checkpoint, policy=JP.dots_saveable)
    def jlayer(w, x):
        return jjnp.sin(w @ x)

    assert_close(numlir.grad(lambda w: jnp.sum(layer(w, layer(w, X))))(W),
                 jax.grad(lambda w: jjnp.sum(jlayer(w, jlayer(w, X))))(W))


# --- prevent_cse ------------------------------------------------------------------------


def sin_chain(np_, x, layers=4):
    for _ in range(layers):
        x = np_.sin(x)
    return np_.sum(x)


def value_and_grad_text(f, *args) -> str:
    argnums = tuple(range(len(args)))
    return numlir.jit(numlir.value_and_grad(f, argnums=argnums)).lower(*args).as_text()


def linalg_op_count(f, *args, op="math.sin") -> int:
    """How often ``op`` appears in jit(value_and_grad(f)) after the cpu backend's lowering
    to linalg (hlo-optimize, then hlo-cpu-to-linalg: CSE and fusion have run)."""
    from hlo_testing import cpu_stage_text

    return cpu_stage_text(value_and_grad_text(f, *args), 2).count(op)


def test_prevent_cse_puts_the_recomputation_behind_a_barrier():
    base = functools.partial(sin_chain, jnp)
    assert "hlo.optimization_barrier" in value_and_grad_text(numlir.checkpoint(base), X)
    assert "hlo.optimization_barrier" not in value_and_grad_text(
        numlir.checkpoint(base, prevent_cse=False), X)
    # Nothing is recomputed when everything is saved, so there is nothing to protect.
    assert "hlo.optimization_barrier" not in value_and_grad_text(
        numlir.checkpoint(base, policy=P.everything_saveable), X)


def test_prevent_cse_keeps_the_recomputed_sines_in_compiled_code():
    base = functools.partial(sin_chain, jnp)
    # 32 elements: a sum of at most 16 becomes a tree that repeats its fused
    # producer's text once per element (cpu-tree-short-reductions).
    x = RNG.standard_normal(32).astype(np.float32)
    kept = linalg_op_count(numlir.checkpoint(base, prevent_cse=True), x)
    merged = linalg_op_count(numlir.checkpoint(base, prevent_cse=False), x)
    plain = linalg_op_count(base, x)
    # 4 forward sines; the backward pass recomputes the 3 that feed later layers, and
    # without the barrier CSE merges them back into the forward ones.
    assert kept > merged
    assert (plain, merged, kept) == (4, 4, 7)


@pytest.mark.parametrize("prevent_cse", [True, False])
def test_prevent_cse_gradients_match_jax(prevent_cse):
    f = numlir.checkpoint(functools.partial(sin_chain, jnp), prevent_cse=prevent_cse)
    jf = jax.checkpoint(functools.partial(sin_chain, jjnp), prevent_cse=prevent_cse)
    expected = jax.value_and_grad(jf)(X)
    assert_close(numlir.jit(numlir.value_and_grad(f))(X), expected)
    assert_close(numlir.value_and_grad(f)(X), expected)
    g = numlir.checkpoint(functools.partial(chain, jnp), policy=P.dots_saveable,
                          prevent_cse=prevent_cse)
    jg = jax.checkpoint(functools.partial(chain, jjnp), policy=JP.dots_saveable,
                        prevent_cse=prevent_cse)
    assert_close(numlir.jit(numlir.value_and_grad(g, argnums=(0, 1)))(W, X),
                 jax.value_and_grad(jg, argnums=(0, 1))(W, X))
