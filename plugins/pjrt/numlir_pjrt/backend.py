"""numlir backends on PJRT clients: hlo -> StableHLO (numlir's translation) -> a PJRT
executable (the client's compiler), loaded on the client's devices.

``tpu`` takes jaxlib's TPU client (libtpu); ``pjrt_cpu`` jaxlib's CPU client; every
``name:/path/plugin.so`` in NUMLIR_PJRT_PLUGINS a client of that PJRT plugin, as backend
``name``. A client that is not there (no libtpu, no TPU, a plugin that does not load)
makes the backend unavailable with the client's reason.
"""

from __future__ import annotations

import abc
import dataclasses
import re
from typing import Any

import numlir.backends as nb
from numlir_pjrt.device import PjrtDevice, PjrtExecutable, pack_executable

#: A tensor type of the StableHLO text: its shape and element type (``3x4xf32``,
#: ``complex<f32>``).
_TENSOR = re.compile(r"tensor<((?:\d+x)*)([a-z0-9]+(?:<[a-z0-9]+>)?)>")
_MAIN_TYPE = re.compile(r'function_type = \((.*?)\) -> (.*?), sym_name = "main"')


def _signature(stablehlo: str) -> dict:
    """The element types and shapes of ``main``'s arguments and results."""
    match = _MAIN_TYPE.search(stablehlo)
    if match is None:
        raise nb.CompileError("the StableHLO module has no main function")

    def tensors(text: str) -> list:
        return [[element, [int(d) for d in dims.split("x") if d]]
                for dims, element in _TENSOR.findall(text)]

    return {"inputs": tensors(match.group(1)), "outputs": tensors(match.group(2))}


def _element_type(dtype) -> str:
    from numlir._src import dtypes  # the runtime's element type names

    return dtypes.mlir_element_type(dtype)


@dataclasses.dataclass(frozen=True)
class PjrtOptions:
    """A PJRT backend takes no options of its own yet: the client's compiler decides."""


class PjrtBackend(nb.Backend):
    """numlir on one PJRT client's devices. Subclasses name the backend and get the client."""

    name: str

    def __init__(self) -> None:
        self._client: Any = None
        self._devices: list[PjrtDevice] | None = None

    @abc.abstractmethod
    def _make_client(self) -> Any:
        """The PJRT client; any exception says why there is none here."""

    @property
    def client(self) -> Any:
        if self._client is None:
            try:
                self._client = self._make_client()
            except nb.BackendUnavailableError:
                raise
            except Exception as error:  # noqa: BLE001 - jaxlib's reasons, whatever their type
                raise nb.BackendUnavailableError(
                    f"the {self.name!r} backend is unavailable: jaxlib has no PJRT client for "
                    f"it here ({error})") from None
        return self._client

    @property
    def devices(self) -> list[PjrtDevice]:
        if self._devices is None:
            self._devices = [PjrtDevice(self.name, i, d)
                             for i, d in enumerate(self.client.local_devices())]
        return self._devices

    @property
    def device(self) -> PjrtDevice:
        return self.devices[0]

    def parse_options(self, **options: Any) -> PjrtOptions:
        if options:
            raise TypeError(f"the {self.name!r} backend takes no options, got "
                            f"{sorted(options)}")
        return PjrtOptions()

    def stages(self, options: PjrtOptions) -> list[nb.Stage]:
        return [
            nb.Stage("stablehlo", ".mlir", lambda hlo, o: nb.stablehlo_from_hlo(hlo),
                     replay="hlo-translate --hlo-to-stablehlo"),
            nb.Stage("pjrt-executable", ".pjrt", self._compile,
                     replay=f"the {self.name} PJRT client's compile_and_load, serialized"),
        ]

    def _compile(self, stablehlo: str, options: PjrtOptions) -> bytes:
        specs = _signature(stablehlo)
        executable = self.device.compile(stablehlo.encode(), specs)
        return pack_executable(specs, executable.serialize())

    compiles_stablehlo = True

    def compile_stablehlo(self, module: bytes | str, *, name: str, device: nb.Device,
                          inputs, outputs) -> PjrtExecutable:
        specs = {"inputs": [[_element_type(s.dtype), list(s.shape)] for s in inputs],
                 "outputs": [[_element_type(s.dtype), list(s.shape)] for s in outputs]}
        executable = device.compile(module.encode() if isinstance(module, str) else module,
                                    specs)
        executable.name = name
        return executable

    def describe_target(self) -> dict:
        return {"pjrt_platform": self.client.platform,
                "pjrt_platform_version": self.client.platform_version}

    def cache_identity(self, options: PjrtOptions) -> str | None:
        # The plugin and its version decide the executable as much as the module does.
        import jaxlib

        kinds = sorted({d.device_kind for d in self.client.local_devices()})
        return (f"pjrt {self.name} jaxlib {jaxlib.__version__} {self.client.platform} "
                f"{self.client.platform_version} {','.join(kinds)}")


class TpuBackend(PjrtBackend):
    """TPUs through libtpu, by jaxlib's TPU client: ``numlir.devices("tpu")``."""

    name = "tpu"

    def _make_client(self) -> Any:
        import jax.extend.backend

        return jax.extend.backend.get_backend("tpu")


class PjrtCpuBackend(PjrtBackend):
    """jaxlib's PJRT CPU client: the PJRT path on any machine (CI tests the plugin on it)."""

    name = "pjrt_cpu"

    def _make_client(self) -> Any:
        import jax.extend.backend

        return jax.extend.backend.get_backend("cpu")


class PjrtPluginBackend(PjrtBackend):
    """A PJRT plugin loaded from a path (NUMLIR_PJRT_PLUGINS): jaxlib loads it, as
    ``jax`` loads plugins, and makes its C API client."""

    def __init__(self, name: str, path: str) -> None:
        super().__init__()
        self.name = name
        self.path = path

    def _make_client(self) -> Any:
        from jax._src.lib import xla_client

        try:
            xla_client.load_pjrt_plugin_dynamically(self.name, self.path)
        except Exception as error:  # noqa: BLE001 - dlopen's and the plugin's reasons
            raise nb.BackendUnavailableError(
                f"the {self.name!r} backend is unavailable: its PJRT plugin {self.path!r} "
                f"did not load ({error})") from None
        # PJRT_Plugin_Initialize before the client: libtpu aborts the process in
        # PJRT_Client_Create when it was skipped (its logging is set up there).
        if not xla_client.pjrt_plugin_initialized(self.name):
            xla_client.initialize_pjrt_plugin(self.name)
        return xla_client.make_c_api_client(self.name)
