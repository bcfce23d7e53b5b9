"""numlir's PJRT backends (docs/pjrt.md): numlir programs as StableHLO, compiled and run by
jaxlib's PJRT clients. ``tpu`` runs on TPUs through libtpu; ``pjrt_cpu`` on jaxlib's CPU
client, which is how CI tests this package; NUMLIR_PJRT_PLUGINS=name:/path/plugin.so adds
any other PJRT plugin as backend ``name``.

The names below load on first use: numlir reads this package's entry points at start-up,
and jax is imported only when a PJRT backend is used."""

import importlib

_EXPORTS = {"PjrtBackend": "backend", "PjrtCpuBackend": "backend", "PjrtOptions": "backend",
            "PjrtPluginBackend": "backend", "TpuBackend": "backend", "PjrtDevice": "device",
            "PjrtExecutable": "device", "plugin_backends": "providers"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'numlir_pjrt' has no attribute {name!r}")
    return getattr(importlib.import_module(f"numlir_pjrt.{_EXPORTS[name]}"), name)
