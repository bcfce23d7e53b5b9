"""How much of JAX's API numlir has (docs/api-coverage.md), and no gap that nobody listed.

A name JAX has and numlir lacks must be a deliberate omission with a reason
(test/api_coverage/omissions.py) or work still to do
(test/api_coverage/not_yet.txt); a name that lands must leave not_yet.txt,
and the generated document must be current. Regenerate it with
``NUMLIR_WRITE_API_COVERAGE=1 .venv/bin/python -m pytest test/python/test_api_coverage.py``.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from api_coverage import namespaces, report  # noqa: E402
from api_coverage.omissions import DELIBERATE  # noqa: E402


@pytest.fixture(scope="module")
def coverage():
    return report.measure()


@pytest.fixture(scope="module")
def found(coverage):
    return report.problems(coverage, report.read_not_yet())


def test_every_gap_is_listed(found):
    assert not found.new_gaps, (
        "numlir lacks these JAX names, and neither test/api_coverage/not_yet.txt nor "
        f"omissions.py lists them: {found.new_gaps}")


def test_names_that_landed_leave_the_lists(found):
    assert not found.done_but_listed, f"numlir has these now; delete them from not_yet.txt: {found.done_but_listed}"
    assert not found.omitted_but_present, f"numlir has these deliberate omissions: {found.omitted_but_present}"
    assert not found.not_in_jax, f"JAX has no such names (renamed or removed?): {found.not_in_jax}"


def test_every_omission_says_why():
    for name, reason in DELIBERATE.items():
        assert name.startswith("jax.") and len(reason) > 20, name


def test_the_walk_sees_what_it_should(coverage):
    by_name = {c.namespace.jax_name: c for c in coverage}
    assert {"jax.numpy", "jax.lax", "jax.Array", "jax.scipy.stats.norm"} <= set(by_name)
    jnp = by_name["jax.numpy"]
    assert {"sum", "einsum", "float32"} <= set(jnp.names) and "pi" not in jnp.names
    assert "linalg" not in jnp.names  # modules are namespaces of their own
    assert "sum" not in jnp.missing and "T" in by_name["jax.Array"].names
    assert not namespaces.numlir_has(namespaces.Namespace("jax.x", "numlir.no_such_module"), "sum")


def test_the_document_is_current(coverage):
    text = report.render(coverage)
    if os.environ.get("NUMLIR_WRITE_API_COVERAGE"):
        with open(report.DOC, "w") as f:
            f.write(text)
    with open(report.DOC) as f:
        assert f.read() == text, (
            "docs/api-coverage.md is stale: NUMLIR_WRITE_API_COVERAGE=1 "
            ".venv/bin/python -m pytest test/python/test_api_coverage.py")
