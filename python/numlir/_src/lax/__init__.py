"""Primitive definitions: each primitive's abstract eval and hlo lowering live together."""
