"""Several processes, one program (``jax.distributed``): ``initialize`` under ``mpirun``.

    numlir.distributed.initialize()          # first, in every process of `mpirun -np 2`
    numlir.process_index(), numlir.process_count()
    numlir.pmap(step, axis_name="batch")     # over every process's devices

docs/distributed.md says how to run a script on one machine and across several.
"""

from numlir._src.distributed import initialize, is_initialized, shutdown

__all__ = ["initialize", "is_initialized", "shutdown"]
