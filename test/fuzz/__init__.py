"""A differential program fuzzer: random numlir programs checked against JAX.

Modules, in the order data flows through them:

- ``program``: the program IR (inputs, ops as source templates, outputs).
- ``generate``: random, well-typed programs from numlir's public API.
- ``render``: a program as Python source, evaluated with numlir or with jax.
- ``run_modes``: one program under eager, jit, grad, vmap and jit(vmap(grad)).
- ``compare``: dtype-aware tolerances and the outcome of one mode.
- ``sandbox``: a worker process, so a crash is counted instead of fatal.
- ``minimize``: delta debugging of a failing program.
- ``reproducer``: a failure as a standalone script.
- ``campaign``: the ``make fuzz`` command line.
- ``known_bugs``: failures the fixed-seed test tolerates until they are fixed.

See docs/fuzzing.md.
"""
