"""numlir.random against jax.random: keys and bits bit-for-bit, sampler values to float tolerance.

jax 0.10.2 runs with ``jax_threefry_partitionable=True`` (its default), which is
the mode numlir implements; ``test_jax_oracle_is_in_partitionable_mode`` pins it.
"""

import jax
import jax.numpy as jnp_ref
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.lax
import numlir.numpy as jnp
import numlir.random as random

BF16 = np.dtype(ml_dtypes.bfloat16)
SEEDS = [0, 1, 42, -1, 2**31 - 1, 2**31, 2**32 + 5, 2**40 + 3, -2**40, 2**63 - 1, -2**63,
         np.int32(-7), np.uint32(2**32 - 1), np.int8(-3), np.uint8(200), np.int64(2**40 + 3),
         np.uint64(2**63 + 5)]



def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def _close(got, want, dtype=np.float32):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    tol = {np.dtype(np.float32): 2e-6, np.dtype(np.float16): 5e-3, BF16: 1e-2,
           np.dtype(np.float64): 1e-12}[np.dtype(dtype)]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


def test_jax_oracle_is_in_partitionable_mode():
    assert jax.config.jax_threefry_partitionable
    assert jax.config.jax_default_prng_impl == "threefry2x32"


# --- keys -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=repr)
def test_prng_key_bits_match_jax(seed):
    _same_bits(random.PRNGKey(seed), jax.random.PRNGKey(seed))


@pytest.mark.parametrize("seed", [-1, 2**32 + 5, 2**40 + 3, -2**40, 2**63 - 1, np.int8(-3),
                                  np.uint64(2**63 + 5)], ids=repr)
def test_prng_key_keeps_64_bit_seeds_with_x64(x64, seed):
    _same_bits(random.PRNGKey(seed), jax.random.PRNGKey(seed))


def test_prng_key_rejects_seeds_out_of_int64_range_like_jax():
    with pytest.raises(OverflowError):
        jax.random.PRNGKey(2**64)
    with pytest.raises(OverflowError):
        random.PRNGKey(2**64)


def test_prng_key_of_a_traced_seed_matches_the_eager_key():
    f = numlir.jit(random.PRNGKey)
    for seed in (np.int32(-5), np.int32(123)):
        _same_bits(f(seed), jax.random.PRNGKey(seed))


def test_prng_key_of_a_traced_64_bit_seed(x64):
    seed = np.int64(-(2**40) - 17)
    _same_bits(numlir.jit(random.PRNGKey)(seed), jax.random.PRNGKey(seed))


def test_prng_key_rejects_float_and_array_seeds():
    with pytest.raises(TypeError, match="integer"):
        random.PRNGKey(1.5)
    with pytest.raises(TypeError, match="scalar seed"):
        random.PRNGKey(np.arange(2))


def test_key_is_the_raw_key_and_key_data_round_trips():
    k = random.key(7)
    _same_bits(k, jax.random.key_data(jax.random.key(7)))
    _same_bits(random.key_data(k), k)
    _same_bits(random.wrap_key_data(random.key_data(k)), k)
    assert random.key_impl(k) == "threefry2x32"
    with pytest.raises(TypeError, match="PRNG key"):
        random.wrap_key_data(np.zeros(3, np.uint32))


@pytest.mark.parametrize("num", [2, 3, (2, 3), (1,)], ids=repr)
def test_split_matches_jax(num):
    _same_bits(random.split(random.PRNGKey(11), num), jax.random.split(jax.random.PRNGKey(11), num))


def test_split_of_a_split_key_and_iteration():
    k1, k2 = random.split(random.PRNGKey(0))
    j1, j2 = jax.random.split(jax.random.PRNGKey(0))
    _same_bits(random.split(k2, 4), jax.random.split(j2, 4))
    _same_bits(k1, j1)


@pytest.mark.parametrize("data", [0, 7, 2**31, np.int32(-1), np.uint32(2**32 - 1)], ids=repr)
def test_fold_in_matches_jax(data):
    _same_bits(random.fold_in(random.PRNGKey(3), data), jax.random.fold_in(jax.random.PRNGKey(3), data))


def test_key_ops_under_jit_match_eager():
    @numlir.jit
    def f(key, i):
        return random.split(random.fold_in(key, i), 3)

    key = random.PRNGKey(5)
    _same_bits(f(key, np.int32(9)), jax.random.split(jax.random.fold_in(jax.random.PRNGKey(5), 9), 3))


def test_functions_reject_non_keys_and_batched_keys():
    with pytest.raises(TypeError, match="PRNG key"):
        random.uniform(np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="PRNG key"):
        random.split(np.zeros(3, np.uint32))
    with pytest.raises(ValueError, match="single key"):
        random.normal(random.split(random.PRNGKey(0)))


# --- bits ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 0, 3), (1001,)], ids=str)
def test_bits_match_jax(shape, dtype):
    for seed in (0, 123):
        _same_bits(random.bits(random.PRNGKey(seed), shape, dtype),
                   jax.random.bits(jax.random.PRNGKey(seed), shape, dtype))


def test_bits_default_dtype_and_uint64_with_x64(x64):
    key, jkey = random.PRNGKey(9), jax.random.PRNGKey(9)
    _same_bits(random.bits(key, (7,)), jax.random.bits(jkey, (7,)))
    _same_bits(random.bits(key, (2, 3), np.uint64), jax.random.bits(jkey, (2, 3), np.uint64))


def test_bits_rejects_signed_dtypes():
    with pytest.raises(ValueError, match="unsigned"):
        random.bits(random.PRNGKey(0), (2,), np.int32)


# --- uniform -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (4,), (3, 5)], ids=str)
def test_uniform_in_unit_interval_is_bit_exact(shape, dtype):
    _same_bits(random.uniform(random.PRNGKey(1), shape, dtype),
               jax.random.uniform(jax.random.PRNGKey(1), shape, dtype))


def test_uniform_float64_with_x64(x64):
    _same_bits(random.uniform(random.PRNGKey(1), (6,), np.float64),
               jax.random.uniform(jax.random.PRNGKey(1), (6,), np.float64))
    assert random.uniform(random.PRNGKey(1), (2,)).dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
def test_uniform_with_bounds(dtype):
    key, jkey = random.PRNGKey(2), jax.random.PRNGKey(2)
    got = random.uniform(key, (200,), dtype, -2.0, 3.0)
    _close(got, jax.random.uniform(jkey, (200,), dtype, -2.0, 3.0), dtype)
    assert np.all(np.asarray(got) >= -2.0) and np.all(np.asarray(got) < 3.0)


def test_uniform_with_array_bounds_broadcasts():
    lo = np.array([[0.0], [10.0]], np.float32)
    hi = np.array([1.0, 2.0, 3.0], np.float32) + 20
    got = random.uniform(random.PRNGKey(4), (2, 3), minval=lo, maxval=hi)
    _close(got, jax.random.uniform(jax.random.PRNGKey(4), (2, 3), minval=lo, maxval=hi))


def test_uniform_rejects_int_dtype_and_bad_shape():
    with pytest.raises(ValueError, match="float dtype"):
        random.uniform(random.PRNGKey(0), (2,), np.int32)
    with pytest.raises(TypeError, match="shapes must be"):
        random.uniform(random.PRNGKey(0), 3)


# --- the other samplers ------------------------------------------------------------------------------

SAMPLERS = ["exponential", "gumbel", "laplace", "logistic"]


@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_matches_jax(name):
    for shape in ((), (500,)):
        got = getattr(random, name)(random.PRNGKey(8), shape)
        want = getattr(jax.random, name)(jax.random.PRNGKey(8), shape)
        _close(got, want)


@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_in_float16(name):
    got = getattr(random, name)(random.PRNGKey(8), (64,), np.float16)
    _close(got, getattr(jax.random, name)(jax.random.PRNGKey(8), (64,), np.float16), np.float16)


def test_gumbel_high_mode():
    _close(random.gumbel(random.PRNGKey(8), (300,), mode="high"),
           jax.random.gumbel(jax.random.PRNGKey(8), (300,), mode="high"))


@pytest.mark.parametrize("mode", ["low", "high"])
def test_bernoulli_matches_jax(mode):
    for p, shape in ((0.3, (100,)), (np.array([0.1, 0.5, 0.9], np.float32), None),
                     (np.array([0.2, 0.7], np.float32), (4, 2))):
        _same_bits(random.bernoulli(random.PRNGKey(6), p, shape, mode),
                   jax.random.bernoulli(jax.random.PRNGKey(6), p, shape, mode))


def test_bernoulli_rejects_integer_p():
    with pytest.raises(TypeError, match="floating"):
        random.bernoulli(random.PRNGKey(0), 1)


def test_rademacher_matches_jax():
    _same_bits(random.rademacher(random.PRNGKey(2), (50,)), jax.random.rademacher(jax.random.PRNGKey(2), (50,)))
    _same_bits(random.rademacher(random.PRNGKey(2), (5,), np.float32),
               jax.random.rademacher(jax.random.PRNGKey(2), (5,), np.float32))


@pytest.mark.parametrize("args", [
    ((10,), 0, 10, None), ((3, 4), -5, 100, np.int8), ((50,), 0, 2**31 - 1, None),
    ((7,), np.arange(7, dtype=np.int32), 10, np.uint8), ((6,), -3, -3, None), ((4,), 0, 300, np.uint8),
    ((5,), 10, 3, None), ((8,), -2**31, 2**31 - 1, None),
], ids=str)
def test_randint_matches_jax(args):
    shape, lo, hi, dtype = args
    _same_bits(random.randint(random.PRNGKey(13), shape, lo, hi, dtype),
               jax.random.randint(jax.random.PRNGKey(13), shape, lo, hi, dtype))


def test_randint_int64_with_x64(x64):
    _same_bits(random.randint(random.PRNGKey(13), (9,), -2**40, 2**40, np.int64),
               jax.random.randint(jax.random.PRNGKey(13), (9,), -2**40, 2**40, np.int64))


@pytest.mark.parametrize("axis,shape", [(-1, None), (0, None), (1, (4, 3)), (-1, (2, 3))], ids=str)
def test_categorical_matches_jax(axis, shape):
    logits = np.random.RandomState(0).randn(3, 5).astype(np.float32)
    _same_bits(random.categorical(random.PRNGKey(4), logits, axis, shape),
               jax.random.categorical(jax.random.PRNGKey(4), logits, axis, shape))


def test_categorical_frequencies_follow_probabilities():
    p = np.array([0.1, 0.6, 0.3], np.float32)
    draws = np.asarray(random.categorical(random.PRNGKey(0), np.log(p), shape=(20000,)))
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / draws.size, p, atol=0.02)


def test_samplers_under_jit_match_eager():
    def f(random, key):
        k1, k2, k3 = (random.fold_in(key, i) for i in range(3))
        return random.uniform(k1, (3,)), random.randint(k2, (4,), 0, 9), random.gumbel(k3, (2,))

    want = jax.jit(lambda k: f(jax.random, k))(jax.random.PRNGKey(3))
    got = numlir.jit(lambda k: f(random, k))(random.PRNGKey(3))
    _same_bits(got[0], want[0])
    _same_bits(got[1], want[1])
    _close(got[2], want[2])


def test_unpacking_split_keys_under_jit():
    def f(random, key):
        k1, k2 = random.split(key)
        return random.bits(k1, (2,)), random.bits(k2, (2,))

    got = numlir.jit(lambda k: f(random, k))(random.PRNGKey(3))
    want = jax.jit(lambda k: f(jax.random, k))(jax.random.PRNGKey(3))
    _same_bits(got[0], want[0])
    _same_bits(got[1], want[1])


def test_same_key_same_values_different_keys_different_values():
    k1, k2 = random.split(random.PRNGKey(0))
    a = np.asarray(random.uniform(k1, (8,)))
    np.testing.assert_array_equal(a, np.asarray(random.uniform(k1, (8,))))
    assert not np.array_equal(a, np.asarray(random.uniform(k2, (8,))))


# --- samplers that need ops from other modules (erf_inv, sort, ...) ----------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_normal_matches_jax(dtype):
    for shape in ((), (2, 300)):
        _close(random.normal(random.PRNGKey(5), shape, dtype),
               jax.random.normal(jax.random.PRNGKey(5), shape, dtype), dtype)


def test_normal_moments():
    x = np.asarray(random.normal(random.PRNGKey(0), (20000,)))
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1) < 0.03


@pytest.mark.parametrize("lower,upper,shape", [(-2.0, 2.0, (300,)), (0.5, 3.0, (10,)),
                                               (np.array([-1.0, 0.0], np.float32), 1.0, None)], ids=str)
def test_truncated_normal_matches_jax(lower, upper, shape):
    got = random.truncated_normal(random.PRNGKey(5), lower, upper, shape)
    _close(got, jax.random.truncated_normal(jax.random.PRNGKey(5), lower, upper, shape))
    assert np.all(np.asarray(got) > lower) and np.all(np.asarray(got) < upper)


@pytest.mark.parametrize("x", [10, np.arange(6, dtype=np.float32) * 1.5], ids=["int", "array"])
def test_permutation_matches_jax(x):
    _same_bits(random.permutation(random.PRNGKey(1), x), jax.random.permutation(jax.random.PRNGKey(1), x))


def test_permutation_of_2d_array_along_axes():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    for axis, independent in ((0, False), (1, False), (1, True)):
        _same_bits(random.permutation(random.PRNGKey(2), x, axis, independent),
                   jax.random.permutation(jax.random.PRNGKey(2), x, axis, independent))


def test_permutation_of_large_array_uses_two_rounds():
    _same_bits(random.permutation(random.PRNGKey(2), 2000), jax.random.permutation(jax.random.PRNGKey(2), 2000))


def test_choice_matches_jax():
    key, jkey = random.PRNGKey(3), jax.random.PRNGKey(3)
    a = np.arange(10, dtype=np.float32) * 2
    _same_bits(random.choice(key, 10, (4,), replace=False), jax.random.choice(jkey, 10, (4,), replace=False))
    _same_bits(random.choice(key, a, (2, 3)), jax.random.choice(jkey, a, (2, 3)))
    p = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    _same_bits(random.choice(key, 4, (5,), p=p), jax.random.choice(jkey, 4, (5,), p=p))


def test_choice_with_replacement_from_a_range_needs_only_randint():
    _same_bits(random.choice(random.PRNGKey(3), 10, (2, 4)), jax.random.choice(jax.random.PRNGKey(3), 10, (2, 4)))


def test_choice_rejects_oversampling_without_replacement():
    with pytest.raises(ValueError, match="larger sample"):
        random.choice(random.PRNGKey(0), 3, (5,), replace=False)
