"""Exporting jitted functions as serialized StableHLO, in the manner of ``jax.export``
(docs/export.md)::

    exp = numlir.export.export(numlir.jit(f))(numlir.ShapeDtypeStruct((4,), "float32"))
    exp.mlir_module()                  # StableHLO text
    blob = exp.serialize()             # versioned bytes; a portable artifact inside
    numlir.export.deserialize(blob).call(x)
"""

from numlir._src.exported import (DeserializationError, Exported, deserialize, export,
                                  maximum_supported_calling_convention_version,
                                  minimum_supported_calling_convention_version)

__all__ = ["DeserializationError", "Exported", "deserialize", "export",
           "maximum_supported_calling_convention_version",
           "minimum_supported_calling_convention_version"]
