"""Tracing, the Graph IR and its printer, and the hlo text emitted from it."""

import os
import re
import subprocess

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import core, dtypes, lowering

HERE = os.path.abspath(__file__)
HLO_OPT = os.path.join(os.path.dirname(HERE), "..", "..", "build", "bin", "hlo-opt")


def mlp(x, w, b):
    return jnp.tanh(x @ w + b).sum(axis=1)


X, W, B = np.ones((4, 8), np.float32), np.ones((8, 3), np.float32), np.zeros(3, np.float32)


def test_make_graph_prints_like_a_jaxpr():
    assert str(numlir.make_graph(mlp)(X, W, B)) == """\
{ lambda ; a:f32[4,8] b:f32[8,3] c:f32[3]. let
    d:f32[4,3] = dot_general[dimension_numbers=(((1,), (0,)), ((), ())) precision=None preferred_element_type=None] a b
    e:f32[4,3] = broadcast_in_dim[shape=(4, 3) broadcast_dimensions=(1,)] c
    f:f32[4,3] = add d e
    g:f32[4,3] = tanh f
    h:f32[4] = reduce_sum[axes=(1,)] g
  in (h,) }"""


def test_python_scalars_become_weak_literals():
    g = numlir.make_graph(lambda x: x * 2.0)(np.ones(3, np.float32))
    (eqn,) = g.eqns
    assert isinstance(eqn.inputs[1], core.Literal)
    assert "mul a 2.0:f32[]" in str(g)


def test_closed_over_arrays_become_constvars():
    c = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = numlir.make_graph(lambda x: x + c)(np.ones((2, 3), np.float32))
    assert len(g.graph.constvars) == 1 and g.consts[0] is c
    assert str(g).startswith("{ lambda a:f32[2,3]; b:f32[2,3]. let")


def test_pytree_outputs_and_inputs_are_flattened():
    g = numlir.make_graph(lambda d: (d["a"] + 1, [d["b"]]))({"a": np.ones(2, np.float32), "b": 1})
    assert [a.str_short() for a in g.in_avals] == ["f32[2]", "i32[]"]
    assert len(g.graph.outvars) == 2


def test_equations_record_the_users_source_line():
    g = numlir.make_graph(lambda x: jnp.exp(x))(np.ones(2, np.float32))
    info = g.eqns[0].source_info
    assert info.file == HERE
    assert info.line == test_equations_record_the_users_source_line.__code__.co_firstlineno + 1


def test_shaped_array_equality_hash_and_repr():
    a = core.ShapedArray((2, 3), np.float32)
    assert a == core.ShapedArray([2, 3], "float32") and hash(a) == hash(core.ShapedArray((2, 3), np.float32))
    assert a != a.update(weak_type=True)
    assert repr(a.update(weak_type=True)) == "ShapedArray(f32[2,3], weak_type=True)"
    assert core.ShapedArray((), dtypes.bfloat16).str_short() == "bf16[]"


def test_tracers_have_shape_dtype_and_ndim():
    seen = {}

    def f(x):
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size, len=len(x))
        return x

    numlir.make_graph(f)(np.ones((5, 2), np.int32))
    assert seen == dict(shape=(5, 2), dtype=np.int32, ndim=2, size=10, len=5)


def test_jit_inside_a_trace_is_inlined():
    inner = numlir.jit(lambda x: x + 1.0)
    g = numlir.make_graph(lambda x: inner(x) * 2.0)(np.ones(2, np.float32))
    assert [e.prim.name for e in g.eqns] == ["add", "mul"]


def test_leaked_tracer_is_reported():
    box = []
    numlir.make_graph(lambda x: box.append(x) or x)(np.ones(2, np.float32))
    with pytest.raises(core.UnexpectedTracerError):
        numlir.make_graph(lambda y: y + box[0])(np.ones(2, np.float32))


def test_eval_graph_replays_a_graph_into_another_trace():
    g = numlir.make_graph(mlp)(X, W, B)
    replayed = numlir.make_graph(lambda *a: core.eval_graph(g.graph, g.consts, *a))(X, W, B)
    assert str(replayed) == str(g)


def test_tracers_are_instances_of_array():
    seen = []
    numlir.make_graph(lambda x: seen.append(isinstance(x, numlir.Array)) or x)(X)
    assert seen == [True] and not isinstance(X, numlir.Array)


def test_each_interpreter_owns_its_rule_table():
    from numlir._src import ad, batching, partial_eval, transpose

    assert lax.sin_p in ad.jvp_rules and lax.add_p in transpose.transpose_rules
    assert lax.sin_p in batching.batching_rules and lax.scan_p in partial_eval.partial_eval_rules
    assert not any(hasattr(core, f"{t}_rules") for t in ("jvp", "transpose", "batching", "partial_eval"))


def test_every_lax_primitive_has_abstract_eval_and_lowering():
    prims = [v for v in vars(lax).values() if isinstance(v, core.Primitive)]
    assert len(prims) >= 40
    for p in prims:
        assert p.abstract_eval is not None and p.lowering is not None, p


# --- hlo text ------------------------------------------------------------------------------


def _lower(fn, *args):
    return numlir.jit(fn).lower(*args).as_text()


def test_lowered_text_of_the_walking_skeleton_example():
    text = _lower(mlp, X, W, B)
    line = mlp.__code__.co_firstlineno + 1
    assert text.startswith("module @jit_mlp {\n  func.func public @main(%arg0: tensor<4x8xf32>, "
                           "%arg1: tensor<8x3xf32>, %arg2: tensor<3xf32>) -> (tensor<4xf32>) {\n")
    loc = f'loc("{HERE}":{line}:'
    body = [ln.strip() for ln in text.splitlines() if ln.startswith("    %")]
    ops = [re.match(r"%\d+ = (hlo\.\w+)", ln).group(1) for ln in body]
    assert ops == ["hlo.dot_general", "hlo.broadcast_in_dim", "hlo.add", "hlo.tanh", "hlo.reduce"]
    assert all(loc in ln for ln in body)
    assert ("hlo.dot_general %arg0, %arg1, batch_dims = [] x [], contracting_dims = [1] x [0] : "
            "tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>") in text
    assert "hlo.reduce sum %3, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>" in text
    assert "    return %4 : tensor<4xf32>\n  }\n}\n" in text


def test_locations_point_at_the_column_of_the_expression():
    text = _lower(lambda x: x + jnp.exp(x), np.ones(2, np.float32))
    line = test_locations_point_at_the_column_of_the_expression.__code__.co_firstlineno + 1
    exp_line = next(ln for ln in text.splitlines() if "hlo.exp" in ln)
    assert f'loc("{HERE}":{line}:33)' in exp_line


@pytest.mark.parametrize("value,expected", [
    (np.float32(1.5), "dense<1.5>"),
    (np.full((2, 3), 0.1, np.float32), "dense<0.10000000149011612>"),
    (np.array([1.0, 2.0], np.float32), "dense<[1.0, 2.0]>"),
    (np.array([[1, -2], [3, 4]], np.int32), "dense<[[1, -2], [3, 4]]>"),
    (np.array([True, False]), "dense<[true, false]>"),
    (np.array(True), "dense<true>"),
    (np.array([1e-5, 2e20], np.float64), "dense<[1.0e-05, 2.0e+20]>"),
    (np.array([255, 0], np.uint8), "dense<[255, 0]>"),
    (np.zeros((0, 3), np.float32), "dense<>"),
    (np.array([np.inf, 1.0], np.float32), 'dense<"0x0000807F0000803F">'),
    (np.array(-np.inf, np.float32), 'dense<"0x000080FF">'),
    (np.arange(20, dtype=np.float32), 'dense<"0x00000000' + "0000803F"),
])
def test_dense_attribute_spelling(value, expected):
    assert lowering.dense_attr(value).startswith(expected)


@pytest.mark.parametrize("dtype", [np.float16, dtypes.bfloat16, np.float32, np.float64, np.int8,
                                   np.uint16, np.int64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_large_constants_roundtrip_exactly_through_the_hex_form(dtype):
    rng = np.random.default_rng(0)
    value = (rng.standard_normal(50) * 100).astype(dtype)
    attr = lowering.dense_attr(value)
    if dtype == np.bool_:  # i1 constants are always spelled with true/false
        value[::3] = False
        assert lowering.dense_attr(value).startswith("dense<[false, true")
        return
    raw = bytes.fromhex(re.fullmatch(r'dense<"0x([0-9A-F]+)">', attr).group(1))
    np.testing.assert_array_equal(np.frombuffer(raw, np.dtype(dtype).newbyteorder("<")), value)


def test_element_types():
    kinds = (np.bool_, np.int8, np.int64, np.uint32, np.float16, dtypes.bfloat16, np.float32,
             np.float64)
    names = [dtypes.mlir_element_type(d) for d in kinds]
    assert names == ["i1", "i8", "i64", "ui32", "f16", "bf16", "f32", "f64"]
    assert [dtypes.from_mlir_element_type(n) for n in names] == [np.dtype(d) for d in kinds]
    with pytest.raises(ValueError, match="'i7'"):
        dtypes.from_mlir_element_type("i7")
    assert lowering.tensor_type(core.ShapedArray((), np.float32)) == "tensor<f32>"
    assert lowering.tensor_type(core.ShapedArray((0, 3), np.int32)) == "tensor<0x3xi32>"


def _many_ops(x, y, i, p):
    a = jnp.where(p, x, -x) + jnp.maximum(x, 0.5) * jnp.sqrt(jnp.abs(y.reshape(3, 3)))
    b = (x.T @ y.reshape(3, 3)).sum(0) + jnp.mean(x, axis=0, keepdims=True)
    c = (i // 3 + i % 3 - jnp.arange(3)).astype(jnp.float32) ** 2
    d = lax.rsqrt(x + 2.0) + lax.logistic(x) - jnp.sin(x) * jnp.cos(x) + jnp.floor(x) - jnp.ceil(x)
    e = (x > 1).astype(jnp.int32) & 3 | (i ^ 1)
    f = jnp.log(jnp.exp(x)).max(axis=1) + jnp.min(x) + jnp.prod(x, axis=(0, 1))
    g = jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))) + jnp.eye(3, 5, k=1)
    return a, b, c, d, e, f, g, jnp.any(p), jnp.all(p, axis=0), x.astype(jnp.float16) / 3


def test_emitted_text_parses_in_the_hlo_dialect(tmp_path):
    text = _lower(_many_ops, np.ones((3, 3), np.float32), np.ones(9, np.float32),
                  np.arange(3, dtype=np.int32), np.ones((3, 3), bool))
    path = tmp_path / "many_ops.mlir"
    path.write_text(text)
    result = subprocess.run([HLO_OPT, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + "\n" + text


def test_constants_of_every_dtype_parse_in_the_hlo_dialect(tmp_path):
    consts = [np.arange(40).astype(d) for d in (np.float16, dtypes.bfloat16, np.float32, np.int8,
                                                np.uint8, np.int16, np.uint32)]
    consts += [np.arange(40) % 3 == 0, np.array([np.nan, 1.5], np.float32), np.array([1, 2], np.uint16),
               np.array(2.5, np.float16), np.full((2, 2), -0.0, np.float32), np.zeros((0, 2), np.float32)]
    text = _lower(lambda: tuple(consts))
    path = tmp_path / "consts.mlir"
    path.write_text(text)
    result = subprocess.run([HLO_OPT, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + "\n" + text
