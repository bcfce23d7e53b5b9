"""The frontend's layers: each module imports only its own layer and those below it.

Every module of python/numlir is parsed (``ast``, nothing is imported) and assigned a
layer by ``LAYER_OF`` (longest matching module prefix). An import of a higher layer
fails the test wherever it is written, at module level or inside a function, unless it
sits in a function and its line says ``# optional dependency: <why>``. Module-level
imports must also form no cycle. docs/architecture-layers.md draws the same table.
"""

from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "numlir"

#: Bottom to top. "runtime" is the machinery core's eager evaluation and jit drive (lowering
#: to hlo text, backends, dispatch, Array, jit's staging); it needs only core.
#: "ecosystem" is the research libraries (numlir.optim, ...): clients of the public package,
#: as Optax is of jax, which the package itself never imports.
LAYERS = ("core", "runtime", "interpreters", "primitives", "libraries", "api", "public",
          "ecosystem")

LAYER_OF = {
    "numlir._src.core": "core",
    "numlir._src.dtypes": "core",
    "numlir._src.config": "core",
    "numlir._src.shapes": "core",
    "numlir._src.source_info": "core",
    "numlir._src.traceback_util": "core",
    "numlir._src.tree_util": "core",
    "numlir._src.tree_registrations": "core",
    "numlir._src.lru_cache": "core",
    "numlir._src.array_methods": "core",
    "numlir._src.lowering": "runtime",
    "numlir._src.backends": "runtime",
    "numlir._src.dispatch": "runtime",
    "numlir._src.array": "runtime",
    "numlir._src.device_transfer": "runtime",
    "numlir._src.static_args": "runtime",
    "numlir._src.jit": "runtime",
    "numlir._src.device_queries": "runtime",
    "numlir._src.placement": "runtime",
    "numlir._src.sharding": "runtime",
    "numlir._src.spmd": "runtime",  # the named axes of pmap's modules, for lowering
    "numlir._src.spmd_varying": "runtime",  # which axes a graph's values vary over
    "numlir._src.distributed": "runtime",  # processes over MPI: the cpu backend reads it
    "numlir._src.ad_util": "interpreters",
    "numlir._src.ad": "interpreters",
    "numlir._src.partial_eval": "interpreters",
    "numlir._src.transpose": "interpreters",
    "numlir._src.batching": "interpreters",
    "numlir._src.lax": "primitives",
    "numlir._src.numpy": "libraries",
    "numlir._src.nn": "libraries",
    "numlir._src.random": "libraries",
    "numlir._src.scipy": "libraries",
    "numlir._src.forward_mode": "api",
    "numlir._src.reverse_mode": "api",
    "numlir._src.vmap": "api",
    "numlir._src.pmap": "api",
    "numlir._src.shard_map": "api",
    "numlir._src.spmd_partition": "api",  # jit's shardings: evaluates graphs in shard_map
    "numlir._src.sharded_jit": "api",  # registers itself with jit (jit.py's hook)
    "numlir._src.checkpoint": "api",
    # custom_jvp/custom_vjp need only the interpreters and lax, so the libraries that
    # follow JAX's derivative conventions (nn.relu, logaddexp, ...) may use them
    "numlir._src.custom_derivatives": "primitives",
    "numlir._src.custom_gradient": "api",
    "numlir._src.introspection": "api",
    "numlir._src.linear_transpose": "api",
    "numlir._src.checkify": "api",
    # the factorizations carry custom_jvp rules, so they and their users sit with the api
    "numlir._src.linalg": "api",
    "numlir._src.scipy.linalg": "api",
    "numlir._src.scipy.multivariate_normal": "api",
    "numlir._src.scipy.linalg_complex_schur": "api",  # shares linalg's Householder reflector
    "numlir._src.nn.scaled_dot_general": "api",  # JAX's gradient rule is a custom_vjp
    "numlir._src.random.matrix_samplers": "api",
    "numlir._src.dlpack": "runtime",
    "numlir._src.compilation_cache": "core",
    "numlir._src.saved_executable": "runtime",
    "numlir._src.exported": "runtime",  # numlir.export: lowers with jit, runs with dispatch
    "numlir._src.donation": "runtime",
    "numlir._src.device_calls": "runtime",  # jit's per-call path on PJRT devices
    "numlir._src.host_calls": "runtime",  # jit's per-call path on the cpu backend (C++)
    "numlir._src.host_callbacks": "runtime",
    "numlir._src.callback": "api",
    "numlir._src": "core",  # the package itself (empty)
    "numlir._compiler": "runtime",  # the native extensions (python/src)
    "numlir._compiler_cpu": "runtime",
    "numlir._compiler_cuda": "runtime",
    "numlir._runtime": "runtime",
    "numlir": "public",
    "numlir.optim": "ecosystem",
    "numlir.testing": "ecosystem",
    "numlir.layers": "ecosystem",
    "numlir.graph": "ecosystem",
    "numlir.rl": "ecosystem",
}

OPTIONAL = "# optional dependency:"


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
#: Modules built from C++ (python/src), importable but not parsed.
EXTENSIONS = {"numlir._compiler", "numlir._compiler_cpu", "numlir._compiler_cuda", "numlir._runtime"}


def layer_of(module: str) -> str | None:
    for prefix in sorted(LAYER_OF, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return LAYER_OF[prefix]
    return None


def _targets(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """The numlir modules an import statement loads (``from a import b`` loads a.b when
    b is a module, else a)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:  # relative: resolve against this module's package
            package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES.keys() | EXTENSIONS else base
                 for a in node.names]
    found = []
    for name in names:
        while name and name not in MODULES and name not in EXTENSIONS:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


def _imports(module: str):
    """(target module, line number, inside a function, line text) for each numlir import."""
    path = MODULES[module]
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source, str(path))
    nested: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            nested |= {id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            text = lines[node.lineno - 1]
            for target in _targets(node, module):
                yield target, node.lineno, id(node) in nested, text


def test_every_module_has_a_layer():
    missing = [m for m in MODULES if layer_of(m) is None]
    assert not missing, f"add these modules to LAYER_OF (and the docs' table): {missing}"
    assert set(LAYER_OF.values()) <= set(LAYERS)


def test_no_module_imports_a_higher_layer():
    bad = []
    for module in MODULES:
        rank = LAYERS.index(layer_of(module))
        for target, line, in_function, text in _imports(module):
            if LAYERS.index(layer_of(target)) <= rank:
                continue
            if in_function and OPTIONAL in text:
                continue
            bad.append(f"{MODULES[module].relative_to(PACKAGE.parent)}:{line}: {module} "
                       f"({layer_of(module)}) imports {target} ({layer_of(target)})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_optional_dependency_comments_say_why():
    for module in MODULES:
        for _, line, in_function, text in _imports(module):
            if OPTIONAL in text:
                assert in_function, f"{module}:{line}: only a function-level import is optional"
                assert text.split(OPTIONAL, 1)[1].strip(), f"{module}:{line}: say why"


def _module_level_graph() -> dict[str, set[str]]:
    graph = {m: set() for m in MODULES.keys() | EXTENSIONS}
    for module in MODULES:
        for target, _, in_function, _ in _imports(module):
            if not in_function:
                graph[module].add(target)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_module_level_imports_have_no_cycle():
    cycle = _cycle(_module_level_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_checker_sees_upward_and_cyclic_imports():
    # The checks above would pass vacuously if the parser missed imports.
    imports = {t for t, *_ in _imports("numlir")}
    assert "numlir._src.core" in imports and "numlir.numpy" in imports
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    assert layer_of("numlir._src.lax.slicing") == "primitives"
    assert layer_of("numlir.numpy.linalg") == "public"


def test_ecosystem_libraries_use_only_the_public_api():
    # numlir.optim and numlir.testing show what any user library can do: no numlir._src.
    bad = [f"{module}:{line}: imports {target}"
           for module in MODULES if layer_of(module) == "ecosystem"
           for target, line, _, _ in _imports(module)
           if target.startswith("numlir._src") or target in EXTENSIONS]
    assert not bad, "\n".join(bad)
    assert layer_of("numlir.optim._alias") == "ecosystem"
