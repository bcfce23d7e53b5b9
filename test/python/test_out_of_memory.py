"""Buffers larger than memory raise numlir.OutOfMemoryError; the process lives on.

Generated code allocates its temporaries through the runtime's allocator
table (docs/runtime.md): a failed allocation unwinds to the runtime, which
frees what the call allocated and returns NLRT_OUT_OF_MEMORY. Outputs are
allocated by NumPy. Either way the message names the size, the computation
and the user's lines. The sizes here (about 3.5 EiB) cannot be allocated on
any machine, whatever its overcommit policy.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from executable_images import image_of
from numlir import _runtime

HUGE = (10**9, 10**9)  # f32: 4e18 bytes, 3.47 EiB
HUGE_BYTES = "4000000000000000000 bytes (3.47 EiB)"
HERE = os.path.abspath(__file__)


def _next_line() -> int:
    return inspect.currentframe().f_back.f_lineno + 1


def _jit_materializing(fun, *args):
    """jit(fun), after checking that its executable does allocate the HUGE
    temporary: were a better fusion to compute it on the fly, these tests
    would run 10^18 additions instead of failing to allocate."""
    if b"f32[1000000000,1000000000]" not in _runtime.unwrap_image(image_of(fun, *args))[1]:
        pytest.fail("the compiler no longer materializes the huge temporary; choose another "
                    "computation that does")
    return numlir.jit(fun)


def test_jit_intermediate_larger_than_memory_names_size_and_lines():
    f = _jit_materializing(lambda x: jnp.broadcast_to(x, HUGE).sum(), jnp.ones((1,)))
    definition = _next_line() - 2
    with pytest.raises(numlir.OutOfMemoryError) as info:
        f(jnp.ones((1,)))
    call = _next_line() - 2
    message = str(info.value)
    assert message.startswith(f"jit__lambda_, called at {HERE}:{call}, ran out of memory: ")
    assert f"a temporary f32[1000000000,1000000000] buffer of {HUGE_BYTES}" in message
    assert f"for the operation at {HERE}:{definition}:" in message
    assert isinstance(info.value, MemoryError)


def test_process_and_executable_survive_out_of_memory():
    f = _jit_materializing(lambda x: jnp.broadcast_to(x, HUGE).sum(), jnp.ones(()))
    for _ in range(3):
        with pytest.raises(numlir.OutOfMemoryError):
            f(jnp.ones(()))
    g = numlir.jit(lambda x: (x * 2).sum())
    assert float(g(jnp.arange(4.0))) == 12.0


def test_eager_output_larger_than_memory_names_size_and_line():
    with pytest.raises(numlir.OutOfMemoryError) as info:
        jnp.broadcast_to(jnp.ones(()), HUGE)
    line = _next_line() - 2
    message = str(info.value)
    assert message.startswith(f"broadcast_in_dim, called at {HERE}:{line}, ran out of memory: ")
    assert f"output 0, a float32[1000000000,1000000000] array of {HUGE_BYTES}" in message


def test_jit_output_larger_than_memory_names_size_and_line():
    f = numlir.jit(lambda x: jnp.broadcast_to(x, HUGE) + 1)
    with pytest.raises(numlir.OutOfMemoryError) as info:
        f(jnp.ones((1,)))
    line = _next_line() - 2
    assert str(info.value).startswith(f"jit__lambda_, called at {HERE}:{line}, ")
    assert HUGE_BYTES in str(info.value)


def test_out_of_memory_inside_a_loop_frees_and_recovers():
    def body(i, acc):
        return acc + jnp.broadcast_to(acc, HUGE).sum()

    f = _jit_materializing(lambda x: numlir.lax.fori_loop(0, 3, body, x), jnp.ones(()))
    with pytest.raises(numlir.OutOfMemoryError, match=HUGE_BYTES.replace("(", r"\(").replace(")", r"\)")):
        f(jnp.ones(()))
    assert float(numlir.jit(lambda x: numlir.lax.fori_loop(0, 3, lambda i, a: a + 1, x))(
        jnp.zeros(()))) == 3.0


def test_out_of_memory_on_one_thread_leaves_others_running():
    """The unwinding state is per thread: a failure on one thread never
    jumps into another thread's call."""
    huge = _jit_materializing(lambda x: jnp.broadcast_to(x, HUGE).sum(), jnp.ones(()))
    small = numlir.jit(lambda x: jnp.broadcast_to(x, (64, 64)).sum())
    errors, sums = [], []

    def fail_repeatedly():
        for _ in range(20):
            try:
                huge(jnp.ones(()))
            except numlir.OutOfMemoryError as error:
                errors.append(error)

    def compute_repeatedly():
        for _ in range(20):
            sums.append(float(small(jnp.ones(()))))

    threads = [threading.Thread(target=fail_repeatedly), threading.Thread(target=compute_repeatedly)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 20 and sums == [4096.0] * 20


@pytest.mark.skipif(
    open("/proc/sys/vm/overcommit_memory").read().strip() == "1",
    reason="with vm.overcommit_memory=1 a 4 TB allocation succeeds and the kernel kills on touch")
def test_issue_reproducer_in_a_subprocess():
    """The report's program: 4 TB of f32, more than this machine has. It used
    to dereference malloc's NULL and die of SIGSEGV."""
    with open("/proc/meminfo") as f:
        fields = dict(line.split(":", 1) for line in f)
    total = sum(int(fields[k].split()[0]) * 1024 for k in ("MemTotal", "SwapTotal"))
    if total >= 4 * 10**12:
        pytest.skip("this machine has 4 TB of memory")
    program = (
        "import numlir, numlir.numpy as jnp\n"
        "f = numlir.jit(lambda x: jnp.broadcast_to(x, (10**6, 10**6)).sum())\n"
        "try:\n"
        "    f(jnp.ones(()))\n"
        "except numlir.OutOfMemoryError as error:\n"
        "    print(error)\n"
        "print(float(numlir.jit(lambda x: x + 1)(jnp.ones(()))))\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert "4000000000000 bytes (3.64 TiB)" in result.stdout
    assert "<string>:4" in result.stdout and "<string>:2:" in result.stdout
    assert result.stdout.endswith("2.0\n")


def test_out_of_memory_errors_are_memory_errors():
    assert issubclass(_runtime.OutOfMemoryError, MemoryError)
    assert issubclass(numlir.OutOfMemoryError, MemoryError)


def test_compiled_executables_allocate_only_through_the_runtime_table(tmp_path):
    """The generic allocation functions are defined inside the executable (as
    calls through `numlir_entry_allocator`), so it needs nothing new from the
    host: no `_mlir_*` symbol is left undefined."""
    exe_bytes = image_of(lambda x: jnp.tanh(x @ x.T).sum(), np.ones((8, 8), np.float32))
    driver, shared_object = _runtime.unwrap_image(exe_bytes)
    path = tmp_path / "module.so"
    path.write_bytes(shared_object)
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(path)], capture_output=True,
                               text=True, check=True).stdout
    defined = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True,
                             text=True, check=True).stdout
    assert driver == "cpu"
    assert "_mlir_" not in undefined
    assert " D numlir_entry_allocator" in defined
    assert " R numlir_entry_allocation_sites" in defined
