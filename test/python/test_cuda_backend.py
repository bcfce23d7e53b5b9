"""The cuda backend without a GPU: what it compiles (PTX that ptxas assembles for sm_90
and sm_80, with the resources ptxas reports, and the launch program), what a machine
without the NVIDIA driver says, and the whole path through the runtime's cuda driver on a
fake libcuda (runtime/test/fake_libcuda.c), which checks each launch against the kernel's
``.entry`` parameters. The kernels' numerics are checked by test_cuda_emulated.py; what
needs a real GPU, docs/cuda-backend.md lists (tools/gpu/run.sh runs it)."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import _runtime, lax
from numlir._src.backends import cuda_payload, cuda_tools

REPO = Path(__file__).resolve().parents[2]

needs_libdevice = pytest.mark.skipif(
    cuda_tools.libdevice_path() is None,
    reason="libdevice.10.bc is not installed (make setup installs nvidia-nvvm)")
needs_ptxas = pytest.mark.skipif(
    cuda_tools.ptxas_path() is None,
    reason="ptxas is not installed (make setup installs nvidia-cuda-nvcc)")

X = np.linspace(-3, 3, 64 * 256, dtype=np.float32).reshape(64, 256)

#: Representative fusions: elementwise, softmax (two row reductions), a full reduction,
#: a contraction with its bias and activation, a convolution, a scan (a while loop on one
#: thread, allocating with the device's malloc) and a scatter.
PROGRAMS = {
    "elementwise": (lambda x, y: jnp.tanh(x * 1.5 + 0.1) * 0.5 + y, (X, X)),
    "softmax": (lambda x: numlir.nn.softmax(x, axis=-1), (X,)),
    "sum": (lambda x: jnp.sum(x * x), (X,)),
    "dot": (lambda a, b, c: jnp.maximum(a @ b + c, 0),
            (X[:32, :64], X[:64, :16].copy(), X[0, :16].copy())),
    "conv": (lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        (X.reshape(4, 8, 8, 64)[..., :3].copy(), X.reshape(-1)[:108].reshape(3, 3, 3, 4).copy())),
    "scan": (lambda x: lax.scan(lambda c, xi: (jnp.tanh(c * 0.5 + xi), c.sum()), x[0], x),
             (X[:5],)),
    "scatter": (lambda x, i, u: x.at[i].add(u),
                (X[0, :16].copy(), np.array([1, 3, 3], np.int32), X[1, :3].copy())),
}


def payload_for(fun, args, **options):
    """The cuda image of ``jit(fun)`` on ``args``, compiled here with ``options``, and its
    payload."""
    from numlir._src.backends import get_backend

    backend = get_backend("cuda")
    text = numlir.jit(fun, backend="gpu").lower(*args).as_text()
    image, _ = backend._run_stages(text, backend.parse_options(**options), "test")
    return image, cuda_payload.unpack(_runtime.unwrap_image(image)[1])


@needs_libdevice
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_kernel_of_a_representative_fusion_assembles_for_sm90_and_sm80(name):
    fun, args = PROGRAMS[name]
    for chip in ("sm_90", "sm_80"):
        _, payload = payload_for(fun, args, chip=chip)
        ptx = payload.module.decode()
        assert f".target {chip}" in ptx
        assert "__nv_" not in ptx, "libdevice left a math function unresolved"
        entries = re.findall(r"\.visible \.entry (\w+)\(", ptx)
        assert sorted(entries) == sorted(k.name for k in payload.kernels)
        if cuda_tools.ptxas_path() is None:
            continue
        _, resources = cuda_tools.assemble(ptx, chip)
        assert sorted(r.name for r in resources) == sorted(entries)
        for r in resources:
            assert r.spill_stores == 0 and r.spill_loads == 0, r
            assert 0 < r.registers <= 64, r


@needs_libdevice
def test_the_entry_parameters_are_one_pointer_per_launch_argument():
    _, payload = payload_for(*PROGRAMS["softmax"])
    ptx = payload.module.decode()
    for kernel in payload.kernels:
        params = re.search(rf"\.entry {kernel.name}\(([^)]*)\)", ptx).group(1)
        assert params.count(".param .u64") == kernel.num_params
        launches = [s for s in payload.steps if isinstance(s, cuda_payload.Launch)
                    and payload.kernels[s.kernel].name == kernel.name]
        assert launches and all(len(s.args) == kernel.num_params for s in launches)


@needs_libdevice
def test_softmax_is_one_kernel_with_a_block_per_row_and_shuffles():
    _, payload = payload_for(*PROGRAMS["softmax"])
    launches = [s for s in payload.steps if isinstance(s, cuda_payload.Launch)]
    assert len(launches) == 1
    assert launches[0].grid == (64, 1, 1) and launches[0].block == (256, 1, 1)
    ptx = payload.module.decode()
    assert "shfl.sync.bfly" in ptx and "bar.sync" in ptx and ".shared" in ptx


@needs_libdevice
@pytest.mark.parametrize("shapes,grid", [(((32, 64), (64, 16)), 2), (((64, 256), (256, 64)), 16),
                                         (((3, 40, 24), (3, 24, 33)), 27)])
def test_a_contraction_is_one_kernel_of_16x16_tiles_through_shared_memory(shapes, grid):
    # Blocks of 256 threads, one per 16x16 output tile (per batch); each copies the A and
    # B tiles into 2 x 1 KiB of shared memory between barriers.
    a, b = (np.ones(s, np.float32) for s in shapes)
    _, payload = payload_for(lambda a, b: jnp.tanh(jnp.matmul(a, b)), (a, b))
    launches = [s for s in payload.steps if isinstance(s, cuda_payload.Launch)]
    assert len(launches) == 1
    assert launches[0].grid == (grid, 1, 1) and launches[0].block == (256, 1, 1)
    ptx = payload.module.decode()
    assert ptx.count(".shared .align 4 .b8") == 2 and "bar.sync" in ptx
    if cuda_tools.ptxas_path() is None:
        return
    for chip in ("sm_90", "sm_80"):
        _, resources = cuda_tools.assemble(payload_for(
            lambda a, b: jnp.tanh(jnp.matmul(a, b)), (a, b), chip=chip)[1].module.decode(), chip)
        assert [r.shared_bytes for r in resources] == [2048]
        assert resources[0].spill_stores == resources[0].spill_loads == 0


@needs_libdevice
def test_a_convolution_is_tiled_like_a_contraction_of_pixels_and_out_channels():
    # 4 x 8 x 8 pixels (16 row tiles) by 4 out-channels (1 column tile); 3x3x3 taps deep.
    _, payload = payload_for(*PROGRAMS["conv"])
    launches = [s for s in payload.steps if isinstance(s, cuda_payload.Launch)]
    assert [(s.grid, s.block) for s in launches] == [((16, 1, 1), (256, 1, 1))]
    ptx = payload.module.decode()
    assert ptx.count(".shared .align 4 .b8") == 2 and "bar.sync" in ptx


@needs_libdevice
def test_the_launch_program_names_every_buffer_by_its_role():
    _, payload = payload_for(lambda x: (jnp.exp(x), x.sum(0)), (X,))
    kinds = [b.kind for b in payload.buffers]
    assert kinds[:3] == ["input", "output", "output"]
    assert payload.signature == "f32[64,256]->f32[64,256];f32[256]"
    sizes = {b.kind: b.size for b in payload.buffers[:1]}
    assert sizes["input"] == X.nbytes


@needs_libdevice
def test_constants_travel_in_the_executable():
    table = np.arange(7, dtype=np.float32) * 3 - 1
    _, payload = payload_for(lambda x: x[:7] * table, (X[0],))
    constants = [b for b in payload.buffers if b.kind == "constant"]
    assert constants
    found = [np.frombuffer(payload.constants[c.offset:c.offset + c.size], np.float32)
             for c in constants]
    assert any(f.shape == table.shape and np.array_equal(f, table) for f in found)


@needs_libdevice
def test_dump_dir_gets_the_ptx_and_the_launch_program(tmp_path, monkeypatch):
    from numlir._src import config
    from numlir._src.backends import get_backend

    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))

    backend = get_backend("cuda")
    backend._run_stages(numlir.jit(PROGRAMS["softmax"][0]).lower(X).as_text(),
                        backend.parse_options(), "softmax")
    ptx = list(tmp_path.glob("*.ptx"))
    programs = list(tmp_path.glob("*.json"))
    assert len(ptx) == 1 and ".entry" in ptx[0].read_text()
    assert json.loads(programs[0].read_text())["steps"]


def test_bad_options_say_what_is_allowed():
    from numlir._src.backends import get_backend

    backend = get_backend("gpu")
    assert backend.name == "cuda"
    with pytest.raises(ValueError, match="cuda chip must be one of"):
        backend.parse_options(chip="sm_52")
    with pytest.raises(ValueError, match="multiple of 32"):
        backend.parse_options(block_size=100)
    with pytest.raises(ValueError, match="tile_size must be 0"):
        backend.parse_options(tile_size=6)
    assert backend.parse_options(tile_size=0).tile_size == 0


def _run(script: str, **env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NUMLIR_LIBCUDA", "FAKE_CUDA_LOG", "FAKE_CUDA_FAIL")}
    environment.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, env=environment, timeout=600)


@needs_libdevice
def test_without_the_nvidia_driver_gpus_are_a_clear_error_and_compiling_still_works(tmp_path):
    result = _run("""
        import numpy as np, numlir, numlir.numpy as jnp
        x = np.ones((8, 8), np.float32)
        compiled = numlir.jit(lambda x: jnp.sin(x) * 2, backend="gpu").lower(x).compile()
        try:
            numlir.devices("gpu")
        except RuntimeError as error:
            print("DEVICES:", error)
        try:
            compiled(x)
        except RuntimeError as error:
            print("CALL:", error)
        print("CPU:", float(numlir.jit(lambda x: x.sum())(x)))
        """, NUMLIR_LIBCUDA=str(tmp_path / "no-libcuda.so.1"))
    assert result.returncode == 0, result.stderr
    assert "DEVICES: numlir found no GPU" in result.stdout
    assert "libcuda" in result.stdout.split("CALL:")[1]
    assert "CPU: 64.0" in result.stdout


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory) -> Path:
    library = tmp_path_factory.mktemp("fake_cuda") / "libfake_cuda.so"
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-shared", "-fPIC", "-o",
                    str(library), str(REPO / "runtime" / "test" / "fake_libcuda.c")],
                   check=True)
    return library


@needs_libdevice
def test_compiled_programs_run_through_the_cuda_driver_with_launches_matching_their_entries(
        fake_libcuda, tmp_path):
    # The fake runs no kernel but checks each launch's arguments against the .entry
    # parameter list of the PTX it loaded, and logs them; transfers are real copies.
    log = tmp_path / "launches.log"
    result = _run("""
        import numpy as np, numlir, numlir.numpy as jnp
        gpu = numlir.devices("gpu")[0]
        print("PLATFORM:", gpu.platform, gpu.id)
        x = np.arange(64 * 256, dtype=np.float32).reshape(64, 256)
        on_gpu = numlir.device_put(x, gpu)
        print("ROUNDTRIP:", np.array_equal(np.asarray(on_gpu), x))
        y = numlir.jit(lambda x: numlir.nn.softmax(x, axis=-1))(on_gpu)
        print("OUTPUT ON:", y.devices())
        z = numlir.jit(lambda x, y: (x @ y.T, jnp.tanh(x) + 1))(on_gpu, on_gpu)
        print("SHAPES:", [a.shape for a in z])
        """, NUMLIR_LIBCUDA=str(fake_libcuda), FAKE_CUDA_LOG=str(log))
    assert result.returncode == 0, result.stderr
    assert "PLATFORM: gpu 0" in result.stdout
    assert "ROUNDTRIP: True" in result.stdout
    assert "OUTPUT ON: {CudaDevice(id=0)}" in result.stdout
    assert "SHAPES: [(64, 64), (64, 256)]" in result.stdout
    launches = [line for line in log.read_text().splitlines() if line.startswith("launch ")]
    # softmax is one kernel; the second program is a transpose, the matmul, the tanh.
    assert [line.split()[1] for line in launches] == [
        "main_kernel", "main_kernel", "main_kernel_0", "main_kernel_1"]
    assert "grid=64,1,1 block=256,1,1" in launches[0]
    # The input, the output (written in place: no temporary and copy) and the row values.
    assert launches[0].endswith("args=#0+0,#1+0,#2+0")


@needs_libdevice
def test_a_saved_cuda_executable_records_its_chip_and_loads_without_a_gpu(tmp_path):
    x = np.ones((8, 8), np.float32)
    compiled = numlir.jit(lambda x: jnp.sin(x) * 2, backend="gpu").lower(x).compile()
    path = tmp_path / "sin.nlsaved"
    compiled.save(path)
    loaded = numlir.load_executable(path)
    assert loaded.metadata["backend"] == "cuda"
    assert loaded.metadata["target"] == {"triple": "nvptx64-nvidia-cuda", "format": "ptx",
                                         "chip": "sm_90"}
    assert [a.shape for a in loaded.out_avals] == [(8, 8)]


@needs_libdevice
def test_a_saved_cuda_executable_runs_where_the_driver_is(fake_libcuda, tmp_path):
    x = np.ones((8, 8), np.float32)
    path = tmp_path / "sin.nlsaved"
    numlir.jit(lambda x: jnp.sin(x) * 2, backend="gpu").lower(x).compile().save(path)
    log = tmp_path / "launches.log"
    result = _run(f"""
        import numpy as np, numlir
        run = numlir.load_executable({str(path)!r})
        out = run(np.ones((8, 8), np.float32))
        print("OUT:", out.shape, out.devices())
        """, NUMLIR_LIBCUDA=str(fake_libcuda), FAKE_CUDA_LOG=str(log))
    assert result.returncode == 0, result.stderr
    assert "OUT: (8, 8) {CudaDevice(id=0)}" in result.stdout
    assert any(line.startswith("launch main_kernel") for line in log.read_text().splitlines())
