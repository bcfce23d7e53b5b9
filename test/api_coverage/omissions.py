"""Names of JAX's API that numlir leaves out on purpose, each with its reason.

Everything else JAX has and numlir lacks is listed in not_yet.txt, the work
still to do. A name belongs here only when numlir's design has no place for
it; "not done yet" is never a reason.
"""

_SHARDING = ("automatic sharding: numlir runs SPMD programs by hand (pmap, shard_map over a "
             "Mesh), with no sharding types or propagation")
_MULTI_PROCESS = "multi-process arrays: numlir arrays live in one process"
_SHARD_BUFFERS = ("per-shard device buffers across processes: a numlir array is one buffer "
                  "(an SPMD output's shards are views of it)")

DELIBERATE: dict[str, str] = {
    "jax.set_mesh": _SHARDING,
    "jax.smap": _SHARDING,
    "jax.reshard": _SHARDING,
    "jax.auto_pcast": _SHARDING,
    "jax.remove_size_one_mesh_axis_from_type": _SHARDING,
    "jax.threefry_partitionable": _SHARDING,
    "jax.lax.with_sharding_constraint": _SHARDING,
    "jax.lax.pcast": _SHARDING,
    "jax.lax.pbroadcast": _SHARDING,
    "jax.make_array_from_callback": _MULTI_PROCESS,
    "jax.make_array_from_process_local_data": _MULTI_PROCESS,
    "jax.make_array_from_single_device_arrays": _MULTI_PROCESS,
    "jax.Array.global_shards": _SHARD_BUFFERS,
    "jax.jax2tf_associative_scan_reductions": "an option of jax2tf's TensorFlow export, which numlir does not have",
}
