"""Mutations of MLIR text: bytes, tokens, lines, integers (with the 2^31, 2^32
and 2^63 boundaries), float literals, element types and shapes.

Byte and token mutations mostly exercise the parser; the "consistent"
mutations (one element type or one dimension size changed everywhere in a
chunk) keep the IR well typed often enough to reach verifiers, folders and
lowerings with odd but valid input."""

from __future__ import annotations

import random
import re
from typing import Callable, Optional

from .corpus import Seed

_BOUNDARIES = [2**31, 2**32, 2**63]
BOUNDARY_INTEGERS = sorted(
    {v for b in _BOUNDARIES for v in (b - 1, b, b + 1, -b, -b - 1, -b + 1)}
    | {0, 1, -1, 2, 2**64 - 1, 2**64, 2**16, 2**15 - 1, 255, 256}
)
SMALL_INTEGERS = [-2, -1, 0, 1, 2, 3, 4, 7, 8]

FLOAT_LITERALS = [
    "0.0", "-0.0", "1.0", "-1.0", "0x7FC00000", "0x7F800000", "0xFF800000",
    "0xFFFFFFFF", "0x7FF8000000000000", "1.0e+308", "-1.0e+308", "1.0e-45",
    "3.4028235e+38", "65504.0", "1.0e+39", "nan", "inf",
]

ELEMENT_TYPES = [
    "i1", "i2", "i8", "i16", "i32", "i64", "i128", "ui8", "ui16", "ui32", "ui64",
    "si32", "f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "tf32", "index",
    "complex<f32>", "none",
]

_TOKEN_RE = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # string
    r"|[%^#!@][\w$.\-]*"  # SSA value, block, attribute alias, type alias, symbol
    r"|0x[0-9a-fA-F]+"
    r"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
    r"|[A-Za-z_][\w.$]*"
    r"|->|::|\S"
)
# An integer literal that is a whole token (not inside a name or a shape).
_INT_RE = re.compile(r"(?<![\w%^#@.x$-])-?\d+(?![\w.])")
_FLOAT_RE = re.compile(r"(?<![\w%^#@.$])-?\d+\.\d+(?:[eE][+-]?\d+)?|(?<![\w%^#@.$])0x[0-9a-fA-F]+")
_SHAPED_RE = re.compile(r"\b(tensor|memref|vector)<([^<>]*(?:<[^<>]*>)?)>")
_ELEMENT_RE = re.compile(
    r"(?<![\w$])(i1|i8|i16|i32|i64|ui8|ui16|ui32|ui64|f16|bf16|f32|f64|index)(?![\w$])"
)
_PUNCT = list("()[]{}<>,:=%^#@!x?-+*/.\"'\\ \n0123456789")


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _pick_integer(rng: random.Random, old: int) -> int:
    r = rng.random()
    if r < 0.5:
        return rng.choice(BOUNDARY_INTEGERS)
    if r < 0.8:
        return rng.choice(SMALL_INTEGERS)
    return rng.choice([old + 1, old - 1, -old, old * 2, old * 1000])


# Each mutation returns the new text, or None if it does not apply.
Mutation = Callable[[random.Random, str, list[Seed]], Optional[str]]


def byte_flip(rng, text, corpus):
    if not text:
        return None
    i = rng.randrange(len(text))
    c = rng.choice(_PUNCT) if rng.random() < 0.8 else chr(rng.randrange(1, 256))
    return _splice(text, i, i + 1, c)


def byte_insert(rng, text, corpus):
    i = rng.randrange(len(text) + 1)
    return _splice(text, i, i, "".join(rng.choice(_PUNCT) for _ in range(rng.randint(1, 3))))


def byte_delete(rng, text, corpus):
    if not text:
        return None
    i = rng.randrange(len(text))
    return _splice(text, i, i + rng.randint(1, 8), "")


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN_RE.finditer(text))


def token_delete(rng, text, corpus):
    tokens = _tokens(text)
    if not tokens:
        return None
    t = rng.choice(tokens)
    return _splice(text, t.start(), t.end(), "")


def token_duplicate(rng, text, corpus):
    tokens = _tokens(text)
    if not tokens:
        return None
    t = rng.choice(tokens)
    return _splice(text, t.end(), t.end(), " " + t.group())


def token_replace(rng, text, corpus):
    """One token replaced by a token of the same chunk or of another seed."""
    tokens = _tokens(text)
    if not tokens:
        return None
    t = rng.choice(tokens)
    donor = rng.choice(corpus).text if rng.random() < 0.3 else text
    donor_tokens = _tokens(donor)
    if not donor_tokens:
        return None
    return _splice(text, t.start(), t.end(), rng.choice(donor_tokens).group())


def token_swap(rng, text, corpus):
    tokens = _tokens(text)
    if len(tokens) < 2:
        return None
    i = rng.randrange(len(tokens) - 1)
    a, b = tokens[i], tokens[i + 1]
    return text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]


def integer(rng, text, corpus):
    """An integer literal (attribute value, dimension number, constant)."""
    matches = list(_INT_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return _splice(text, m.start(), m.end(), str(_pick_integer(rng, int(m.group()))))


def float_literal(rng, text, corpus):
    matches = list(_FLOAT_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return _splice(text, m.start(), m.end(), rng.choice(FLOAT_LITERALS))


def _split_shape(body: str) -> tuple[list[str], str]:
    """`4x?x3xf32` -> (['4', '?', '3'], 'f32')."""
    dims = []
    m = re.match(r"((?:(?:\d+|\?)x)*)(.*)", body, re.S)
    for d in m.group(1).split("x")[:-1]:
        dims.append(d)
    return dims, m.group(2)


def _replace_shaped(rng, text, rewrite: Callable[[list[str], str], Optional[tuple[list[str], str]]]):
    """Rewrites one shaped type, or (half the time) every occurrence of it."""
    matches = list(_SHAPED_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    dims, element = _split_shape(m.group(2))
    new = rewrite(dims, element)
    if new is None:
        return None
    new_dims, new_element = new
    new_type = f"{m.group(1)}<{''.join(d + 'x' for d in new_dims)}{new_element}>"
    if rng.random() < 0.5:
        return text.replace(m.group(0), new_type)
    return _splice(text, m.start(), m.end(), new_type)


def shape_dim(rng, text, corpus):
    def rewrite(dims, element):
        if not dims:
            return None
        i = rng.randrange(len(dims))
        old = int(dims[i]) if dims[i].isdigit() else 1
        dims = list(dims)
        dims[i] = "?" if rng.random() < 0.05 else str(abs(_pick_integer(rng, old)))
        return dims, element

    return _replace_shaped(rng, text, rewrite)


def shape_rank(rng, text, corpus):
    def rewrite(dims, element):
        dims = list(dims)
        if dims and rng.random() < 0.5:
            del dims[rng.randrange(len(dims))]
        else:
            dims.insert(rng.randint(0, len(dims)), rng.choice(["1", "1", "0", "2", "3"]))
        return dims, element

    return _replace_shaped(rng, text, rewrite)


def element_type(rng, text, corpus):
    """One element type replaced in one type, or everywhere in the chunk."""
    matches = list(_ELEMENT_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    new = rng.choice(ELEMENT_TYPES)
    if rng.random() < 0.6:
        return _ELEMENT_RE.sub(lambda x: new if x.group() == m.group() else x.group(), text)
    return _splice(text, m.start(), m.end(), new)


def same_dim_everywhere(rng, text, corpus):
    """One dimension size changed in every shape of the chunk (4 -> 1, 0, ...),
    which keeps many ops well typed."""
    sizes = sorted({d for m in _SHAPED_RE.finditer(text) for d in _split_shape(m.group(2))[0] if d.isdigit()})
    if not sizes:
        return None
    old = rng.choice(sizes)
    new = str(rng.choice([0, 1, 1, 2, 3, 5, 7, 16, 17, 33, 2**31, 2**32]))

    def fix(m):
        dims, element = _split_shape(m.group(2))
        dims = [new if d == old else d for d in dims]
        return f"{m.group(1)}<{''.join(d + 'x' for d in dims)}{element}>"

    return _SHAPED_RE.sub(fix, text)


_OP_NAME_RE = re.compile(r"(?<![\w$.])(hlo|arith|math|linalg|tensor|memref|vector|scf)\.[a-z_]+(?![\w$])")
_KEYWORD_RE = re.compile(r"(?<=[\s(,=])[A-Za-z_][A-Za-z_0-9]*(?=[\s,)\]])")


def op_name(rng, text, corpus):
    """An op replaced by another op of the same dialect from the corpus
    (`hlo.add` -> `hlo.power`): the operands often still fit."""
    matches = list(_OP_NAME_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    dialect = m.group(1)
    donors = [d.group() for d in _OP_NAME_RE.finditer(rng.choice(corpus).text) if d.group(1) == dialect]
    if not donors:
        return None
    return _splice(text, m.start(), m.end(), rng.choice(donors))


def keyword(rng, text, corpus):
    """A bare keyword (comparison direction, reduce kind, clause name,
    `stable`, ...) replaced by a keyword from another seed."""
    matches = list(_KEYWORD_RE.finditer(text))
    donors = list(_KEYWORD_RE.finditer(rng.choice(corpus).text))
    if not matches or not donors:
        return None
    m = rng.choice(matches)
    return _splice(text, m.start(), m.end(), rng.choice(donors).group())


def _lines(text):
    return text.split("\n")


def line_delete(rng, text, corpus):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def line_duplicate(rng, text, corpus):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def line_swap(rng, text, corpus):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def line_splice(rng, text, corpus):
    """A line of another seed inserted (cross-over)."""
    donor = _lines(rng.choice(corpus).text)
    lines = _lines(text)
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(donor))
    return "\n".join(lines)


# Weights favour the mutations that keep IR valid-looking.
MUTATIONS: list[tuple[Mutation, int]] = [
    (byte_flip, 3), (byte_insert, 2), (byte_delete, 2),
    (token_delete, 3), (token_duplicate, 2), (token_replace, 4), (token_swap, 2),
    (integer, 10), (float_literal, 3),
    (shape_dim, 8), (shape_rank, 5), (element_type, 8), (same_dim_everywhere, 6),
    (line_delete, 2), (line_duplicate, 2), (line_swap, 1), (line_splice, 2),
    (op_name, 6), (keyword, 4),
]


def mutate(rng: random.Random, text: str, corpus: list[Seed]) -> tuple[str, list[str]]:
    """Applies 1 to 4 mutations; returns the text and the mutations' names."""
    functions = [f for f, _ in MUTATIONS]
    weights = [w for _, w in MUTATIONS]
    applied = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        for _attempt in range(5):
            f = rng.choices(functions, weights)[0]
            new = f(rng, text, corpus)
            if new is not None and new != text:
                text = new
                applied.append(f.__name__)
                break
    return text, applied
