"""Errors raised through numlir's API carry the user's frames only (NUMLIR_TRACEBACK_FILTERING)."""

import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import config
from numlir._src.traceback_util import NOTE

HERE = os.path.abspath(__file__)
SRC = os.path.join(os.path.dirname(os.path.abspath(numlir.__file__)), "")
# The directory this process imports numlir from, for subprocesses.
REPO_PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(numlir.__file__)))
X = np.ones(3, np.float32)


@pytest.fixture
def filtering():
    before = config.flags.traceback_filtering

    def set_mode(mode):
        numlir.config.update("traceback_filtering", mode)

    yield set_mode
    numlir.config.update("traceback_filtering", before)


def _files(error: BaseException) -> list[str]:
    return [frame.f_code.co_filename for frame, _ in traceback.walk_tb(error.__traceback__)]


def _numlir_frames(error: BaseException) -> list[str]:
    return [f for f in _files(error) if os.path.abspath(f).startswith(SRC)]


def user_function(x):
    return jnp.reshape(x, (4,))  # the user's bad line


def _raise_shape_error_under_jit():
    with pytest.raises(TypeError) as info:
        numlir.jit(user_function)(X)
    return info.value


def test_shape_error_under_jit_has_no_numlir_frames_when_filtering(filtering):
    filtering("auto")
    error = _raise_shape_error_under_jit()
    assert _numlir_frames(error) == []
    names = [frame.f_code.co_name for frame, _ in traceback.walk_tb(error.__traceback__)]
    assert names[-1] == "user_function"  # the user's line is the last frame
    assert NOTE in error.__notes__
    assert str(error).endswith(f"at {HERE}:{user_function.__code__.co_firstlineno + 1}")


def test_shape_error_under_jit_keeps_numlir_frames_when_filtering_is_off(filtering):
    filtering("off")
    error = _raise_shape_error_under_jit()
    frames = _numlir_frames(error)
    assert any(os.sep + "_src" + os.sep in f for f in frames), frames
    assert NOTE not in getattr(error, "__notes__", [])
    assert str(error).endswith(f"at {HERE}:{user_function.__code__.co_firstlineno + 1}")


@pytest.mark.parametrize("call", [
    lambda: jnp.ones(3) + jnp.ones(4),  # an operator on arrays
    lambda: jnp.matmul(jnp.ones((2, 3)), jnp.ones((4, 5))),  # a numlir.numpy function
    lambda: jnp.ones((2, 3))[5],  # indexing
    lambda: jnp.ones(3).at[0].set(jnp.ones(2)),  # index updates
    lambda: numlir.lax.add(X, np.ones(3, np.int32)),  # numlir.lax
    lambda: numlir.nn.softmax(X, axis=3),  # numlir.nn
    lambda: numlir.random.normal(numlir.random.PRNGKey(0), (-1,)),  # numlir.random
    lambda: numlir.grad(lambda x: jnp.reshape(x, (5,)).sum())(X),  # a transformation
    lambda: numlir.vmap(lambda x: x @ jnp.ones(4))(np.ones((2, 3), np.float32)),
    lambda: numlir.jit(lambda x: x)(2**100),  # a bad argument
    lambda: numlir.jit(lambda x, y: x, static_argnums=5),  # a bad jit() call
    lambda: numlir.jit(user_function).lower(X),
    lambda: numlir.lax.cond(True, lambda: X, lambda: X[:2]),
])
def test_errors_from_every_kind_of_entry_point_are_filtered(filtering, call):
    filtering("auto")
    with pytest.raises(Exception) as info:
        call()
    assert _numlir_frames(info.value) == [], traceback.format_exception(info.value)
    assert f"{HERE}:" in str(info.value)


def test_errors_raised_by_user_code_inside_jit_keep_the_user_frames(filtering):
    filtering("auto")

    def helper(x):
        raise RuntimeError("the user's own error")

    def f(x):
        return helper(x) + 1

    with pytest.raises(RuntimeError) as info:
        numlir.jit(f)(X)
    names = [frame.f_code.co_name for frame, _ in traceback.walk_tb(info.value.__traceback__)]
    assert names[-2:] == ["f", "helper"]
    assert _numlir_frames(info.value) == []


def test_filtering_can_be_turned_off_from_the_environment():
    script = ("import numlir, numlir.numpy as jnp, traceback\n"
              "try:\n"
              "    jnp.ones(3) + jnp.ones(4)\n"
              "except TypeError as e:\n"
              "    print(sum('_src' in f.f_code.co_filename for f, _ in "
              "traceback.walk_tb(e.__traceback__)))\n"
              "print(numlir.config.flags.traceback_filtering)\n")
    env = dict(os.environ, PYTHONPATH=REPO_PYTHON)
    on = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                        check=True).stdout.split()
    env["NUMLIR_TRACEBACK_FILTERING"] = "off"
    off = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert on == ["0", "auto"]
    assert int(off[0]) > 0 and off[1] == "off"


def test_bad_filtering_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="traceback_filtering must be one of auto, off"):
        numlir.config.update("traceback_filtering", "sometimes")
    env = dict(os.environ, PYTHONPATH=REPO_PYTHON, NUMLIR_TRACEBACK_FILTERING="sometimes")
    result = subprocess.run([sys.executable, "-c", "import numlir"], env=env, capture_output=True,
                            text=True)
    assert result.returncode != 0
    assert "NUMLIR_TRACEBACK_FILTERING must be one of auto, off" in result.stderr


def test_jax_spelling_and_modes_are_accepted(filtering):
    numlir.config.update("jax_traceback_filtering", "remove_frames")
    assert config.flags.traceback_filtering == "auto"
    numlir.config.update("jax_traceback_filtering", "off")
    assert config.flags.traceback_filtering == "off"
