"""Products of numlir.numpy (matmul, dot, vdot, outer, einsum, tensordot, inner), built on
dot_general, and moveaxis and identity."""

from __future__ import annotations

import string

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import complex_ops
from numlir._src.lax import dot as lax_dot
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import ufuncs
from numlir._src.numpy.creation import asarray, eye
from numlir._src.numpy.reshaping import ravel, reshape
from numlir._src.numpy.util import broadcast_shapes, check_arraylike, promote_dtypes

# --- products -----------------------------------------------------------------------


def matmul(a, b, /):
    """Matrix product with NumPy semantics: 1-D operands are promoted and the added dim removed;
    leading (batch) dimensions broadcast."""
    check_arraylike("matmul", a, b)
    a, b = promote_dtypes(a, b)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    orig = f"{core.get_aval(a).str_short()} and {core.get_aval(b).str_short()}"
    if not sa or not sb:
        raise core.value_error(f"matmul: operands must not be scalars, got shapes {sa} and {sb}")
    a_vec, b_vec = len(sa) == 1, len(sb) == 1
    if a_vec:
        a, sa = shape_ops.reshape(a, (1,) + sa), (1,) + sa
    if b_vec:
        b, sb = shape_ops.reshape(b, sb + (1,)), sb + (1,)
    if sa[-1] != sb[-2]:
        raise core.shape_error(
            f"matmul got incompatible shapes: {orig} "
            f"(contracting sizes {sa[-1]} and {sb[-2]} differ)")
    batch = broadcast_shapes("matmul", sa[:-2], sb[:-2])
    nb = len(batch)
    if len(sb) == 2:  # (..., n, k) @ (k, m): one contraction, no batch dims needed
        out = lax_dot.dot_general(a, b, (((len(sa) - 1,), (0,)), ((), ())))
    else:
        if sa[:-2] != batch:
            a = shape_ops.broadcast_to_rank(a, batch + sa[-2:])
        if sb[:-2] != batch:
            b = shape_ops.broadcast_to_rank(b, batch + sb[-2:])
        bd = tuple(range(nb))
        out = lax_dot.dot_general(a, b, (((nb + 1,), (nb,)), (bd, bd)))
    out_shape = core.get_aval(out).shape
    if a_vec or b_vec:
        out_shape = out_shape[:-2] + (() if a_vec else out_shape[-2:-1]) + (() if b_vec else out_shape[-1:])
        out = shape_ops.reshape(out, out_shape)
    return out


def dot(a, b, /):
    """NumPy's dot: scalars multiply; otherwise contract a's last axis with b's second-to-last."""
    check_arraylike("dot", a, b)
    a, b = promote_dtypes(a, b)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if not sa or not sb:

        return ufuncs.multiply(a, b)
    rc = 0 if len(sb) == 1 else len(sb) - 2
    if sa[-1] != sb[rc]:
        raise core.shape_error(f"dot got incompatible shapes: {sa} and {sb} "
                               f"(contracting sizes {sa[-1]} and {sb[rc]} differ)")
    return lax_dot.dot_general(a, b, (((len(sa) - 1,), (rc,)), ((), ())))


def vdot(a, b, /):
    """The dot product of the flattened arrays, conjugating ``a`` (as ``np.vdot``)."""
    a = ravel(a)
    if dtypes.is_complex(core.get_aval(a).dtype):
        a = complex_ops.conj(a)
    return dot(a, ravel(b))


def outer(a, b, /):
    a, b = ravel(a), ravel(b)
    return dot(reshape(a, (-1, 1)), reshape(b, (1, -1)))


# --- einsum -------------------------------------------------------------------------


def _sublist_to_labels(sublist) -> str:
    """Interleaved-form sublist (ints and Ellipsis) to a subscripts string."""
    letters = string.ascii_letters
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, (int, np.integer)) and 0 <= int(s) < len(letters):
            out.append(letters[int(s)])
        else:
            raise core.value_error(f"einsum: sublist entries must be ints in [0, 52) or ..., got {s!r}")
    return "".join(out)


def _parse_interleaved(args):
    args = list(args)
    out = None
    if len(args) % 2:
        out = _sublist_to_labels(args.pop())
    operands, subs = args[0::2], [_sublist_to_labels(s) for s in args[1::2]]
    return ",".join(subs) + ("" if out is None else "->" + out), operands


def _expand_ellipses(subscripts: str, shapes) -> tuple[list[str], str]:
    """Per-operand label strings and the output labels, with ``...`` replaced by fresh labels.

    Ellipsis dimensions are right-aligned (they broadcast), so an operand with fewer of them
    gets the trailing fresh labels. Implicit output: ellipsis labels, then the labels used
    exactly once, in alphabetical order.
    """
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    in_subs = inputs.split(",")
    if len(in_subs) != len(shapes):
        raise core.value_error(f"einsum: subscripts {subscripts!r} name {len(in_subs)} operands, "
                               f"got {len(shapes)}")
    for s in in_subs + [output]:
        body = s.replace("...", "")
        if "." in body or any(c not in string.ascii_letters for c in body):
            raise core.value_error(f"einsum: invalid subscript {s!r} in {subscripts!r}: only letters "
                                   f"and '...' are allowed")
    used = set(subscripts)
    fresh = [c for c in string.ascii_letters if c not in used]
    ell_counts = []
    for s, shape in zip(in_subs, shapes):
        n_explicit = len(s.replace("...", ""))
        n_ell = len(shape) - n_explicit
        if ("..." in s and n_ell < 0) or ("..." not in s and n_ell != 0):
            raise core.value_error(f"einsum: subscript {s!r} does not match an operand of rank "
                                   f"{len(shape)}")
        ell_counts.append(n_ell if "..." in s else 0)
    n_ell = max(ell_counts, default=0)
    if n_ell > len(fresh):
        raise core.value_error("einsum: too many dimensions under '...'")
    ell = "".join(fresh[:n_ell])
    labels = [s.replace("...", ell[n_ell - k:]) for s, k in zip(in_subs, ell_counts)]
    if arrow:
        out = output.replace("...", ell)
        if len(set(out)) != len(out):
            raise core.value_error(f"einsum: output subscript {output!r} repeats a label")
        missing = set(out) - set("".join(labels))
        if missing:
            raise core.value_error(f"einsum: output label(s) {sorted(missing)} of {subscripts!r} "
                                   f"appear in no input")
    else:
        counts = {}
        for c in "".join(labels):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    return labels, out


def _label_sizes(labels, shapes) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for lab, shape in zip(labels, shapes):
        for c, d in zip(lab, shape):
            if sizes.get(c, 1) == 1:
                sizes[c] = d
            elif d not in (1, sizes[c]):
                raise core.shape_error(f"einsum: label {c!r} has incompatible sizes {sizes[c]} and {d} "
                                       f"in operand shapes {[tuple(s) for s in shapes]}")
    return sizes


def _sum_axes(x, axes):
    return reduction.reduce_sum(x, tuple(axes)) if axes else x


def _take_diagonals(x, lab: str) -> tuple[object, str]:
    """Collapse each repeated label of one operand to a single axis (its diagonal)."""
    while len(set(lab)) != len(lab):
        c = next(c for c in lab if lab.count(c) > 1)
        i = lab.index(c)
        j = lab.index(c, i + 1)
        aval = core.get_aval(x)
        idt = dtypes.default_int_dtype()
        on_diag = ew.eq(shape_ops.broadcasted_iota(idt, aval.shape, i),
                         shape_ops.broadcasted_iota(idt, aval.shape, j))
        x = ew.select(on_diag, x, shape_ops.full(aval.shape, ew.convert_element_type(0, aval.dtype)))
        x = reduction.reduce_sum(x, (j,))
        lab = lab[:j] + lab[j + 1:]
    return x, lab


def _drop_broadcast_ones(x, lab: str, sizes) -> tuple[object, str]:
    """Remove size-1 axes whose label is larger elsewhere: the value is constant along them."""
    shape = core.get_aval(x).shape
    keep = [k for k, (c, d) in enumerate(zip(lab, shape)) if not (d == 1 and sizes[c] != 1)]
    if len(keep) == len(lab):
        return x, lab
    return shape_ops.reshape(x, [shape[k] for k in keep]), "".join(lab[k] for k in keep)


def _sum_unneeded(x, lab: str, needed: set) -> tuple[object, str]:
    axes = [k for k, c in enumerate(lab) if c not in needed]
    return _sum_axes(x, axes), "".join(c for c in lab if c in needed)


def _contract_pair(a, la: str, b, lb: str, needed: set) -> tuple[object, str]:
    """Product of two labelled operands; labels in ``needed`` survive, shared others are summed.

    With nothing to sum it is a broadcast elementwise product rather than a dot_general
    without contracting dimensions (simpler IR, and such dot_generals chained into another
    one currently miscompile under jit).
    """
    a, la = _sum_unneeded(a, la, needed | set(lb))
    b, lb = _sum_unneeded(b, lb, needed | set(la))
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in needed]
    contract = [c for c in shared if c not in needed]
    if not contract:  # nothing summed: a broadcast elementwise product
        out_lab = la + "".join(c for c in lb if c not in la)
        sizes = dict(zip(la, core.get_aval(a).shape)) | dict(zip(lb, core.get_aval(b).shape))
        shape = [sizes[c] for c in out_lab]
        a = shape_ops.broadcast_in_dim(a, shape, [out_lab.index(c) for c in la])
        order = sorted(range(len(lb)), key=lambda k: out_lab.index(lb[k]))
        if order != list(range(len(lb))):
            b, lb = shape_ops.transpose(b, order), "".join(lb[k] for k in order)
        b = shape_ops.broadcast_in_dim(b, shape, [out_lab.index(c) for c in lb])
        return ew.mul(a, b), out_lab
    dn = (([la.index(c) for c in contract], [lb.index(c) for c in contract]),
          ([la.index(c) for c in batch], [lb.index(c) for c in batch]))
    out = lax_dot.dot_general(a, b, dn)
    free_a = "".join(c for c in la if c not in shared)
    free_b = "".join(c for c in lb if c not in shared)
    return out, "".join(batch) + free_a + free_b


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
    """Einstein summation, as ``jax.numpy.einsum``.

    Supports explicit (``'ij,jk->ik'``) and implicit (``'ij,jk'``) outputs, ``...`` with
    broadcasting, repeated labels within one operand (diagonals and traces), labels summed
    away, any number of operands, and the interleaved form ``einsum(a, [0, 1], b, [1, 2])``.
    Operands are contracted pairwise, left to right; ``optimize`` is accepted and ignored.

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.einsum('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((3, 4))).shape
        (2, 4)
        >>> jnp.einsum('ii', jnp.eye(3))
        Array(3., dtype=float32)
    """

    if out is not None:
        raise NotImplementedError("einsum: the 'out' argument is not supported (arrays are immutable)")
    if not isinstance(subscripts, str):
        subscripts, operands = _parse_interleaved((subscripts,) + operands)
    if not operands:
        raise core.value_error("einsum: at least one operand is required")
    check_arraylike("einsum", *operands)
    operands = promote_dtypes(*[asarray(x) for x in operands])
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    dtype = core.get_aval(operands[0]).dtype
    result_dtype = preferred_element_type or dtype
    if dtypes.is_bool(dtype):  # bool einsum is OR of ANDs: count in ints, then test for nonzero
        operands = [ew.convert_element_type(x, dtypes.default_int_dtype()) for x in operands]
    elif preferred_element_type is not None:
        operands = [ew.convert_element_type(x, preferred_element_type) for x in operands]

    shapes = [core.get_aval(x).shape for x in operands]
    labels, out_labels = _expand_ellipses(subscripts, shapes)
    sizes = _label_sizes(labels, shapes)

    terms = []
    for x, lab in zip(operands, labels):
        x, lab = _drop_broadcast_ones(x, lab, sizes)
        x, lab = _take_diagonals(x, lab)
        terms.append((x, lab))

    x, lab = terms[0]
    for k in range(1, len(terms)):
        needed = set(out_labels).union(*(t[1] for t in terms[k + 1:]))
        b, lb = terms[k]
        x, lab = _contract_pair(x, lab, b, lb, needed)
    x, lab = _sum_unneeded(x, lab, set(out_labels))
    if lab != out_labels:
        x = shape_ops.transpose(x, [lab.index(c) for c in out_labels])
    if core.get_aval(x).dtype != result_dtype:
        x = ew.convert_element_type(x, result_dtype)
    return x


# --- tensordot, inner, moveaxis, identity --------------------------------------------


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Sum products over the given axes of ``a`` and ``b``.

    ``axes`` is an int ``N`` (``a``'s last N axes with ``b``'s first N) or a pair of axis
    sequences (or ints).

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape
        (2, 5)
    """
    check_arraylike("tensordot", a, b)

    a, b = promote_dtypes(asarray(a), asarray(b))
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(len(sa), len(sb)):
            raise core.value_error(f"tensordot: axes={n} is invalid for shapes {sa} and {sb}")
        ca, cb = list(range(len(sa) - n, len(sa))), list(range(n))
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
        if len(ax_a) != len(ax_b):
            raise core.shape_error(f"tensordot: axes {axes} must name as many axes of a as of b")
        ca = [tc.canonical_axis("tensordot", x, len(sa)) for x in ax_a]
        cb = [tc.canonical_axis("tensordot", x, len(sb)) for x in ax_b]
    else:
        raise core.shape_error(f"tensordot: axes must be an int or a pair of sequences, got {axes!r}")
    if any(sa[i] != sb[j] for i, j in zip(ca, cb)):
        raise core.shape_error(f"tensordot: contracted axes {ca} of {sa} and {cb} of {sb} differ in size")
    return lax_dot.dot_general(a, b, ((ca, cb), ((), ())), preferred_element_type=preferred_element_type)


def inner(a, b, /, *, precision=None, preferred_element_type=None):
    """Contract the last axes of ``a`` and ``b``; scalars multiply.

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.inner(jnp.ones((2, 3)), jnp.ones((4, 3))).shape
        (2, 4)
    """
    check_arraylike("inner", a, b)

    a, b = asarray(a), asarray(b)
    if core.get_aval(a).ndim == 0 or core.get_aval(b).ndim == 0:
        out = ufuncs.multiply(a, b)
        return out if preferred_element_type is None else ew.convert_element_type(
            out, dtypes.canonicalize_dtype(preferred_element_type))
    return tensordot(a, b, ((-1,), (-1,)), preferred_element_type=preferred_element_type)


def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination`` (ints or sequences); others keep order.

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    check_arraylike("moveaxis", a)

    a = asarray(a)
    nd = core.get_aval(a).ndim
    src = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(src) != len(dst):
        raise core.value_error(f"moveaxis: source {source} and destination {destination} must have "
                               f"the same number of elements")
    src = [tc.canonical_axis("moveaxis", s, nd) for s in src]
    dst = [tc.canonical_axis("moveaxis", d, nd) for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise core.value_error(f"moveaxis: repeated axis in source {source} or destination {destination}")
    perm = [k for k in range(nd) if k not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return a if perm == list(range(nd)) else shape_ops.transpose(a, perm)


def identity(n: int, dtype=None):
    """The ``n`` x ``n`` identity matrix (default dtype float32, float64 with x64).

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.identity(2, dtype=jnp.int32)
        Array([[1, 0],
               [0, 1]], dtype=int32)
    """

    return eye(int(n), dtype=dtype)

