"""jit's ``static_argnums``/``static_argnames``/``donate_*``: checked against the signature.

As JAX does, the specification is validated when ``jit`` is called, wherever
``fun``'s signature can be inspected: an argument number a function without
``*args`` cannot take, a name it has no parameter for (without ``**kwargs``),
a positional-only name, or an argument both static and donated is a
ValueError naming the function, the bad value and the user's line. Numbers
and names complete each other through the signature, so a parameter named in
one is static in either calling style.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any, Callable, NamedTuple

from numlir._src import core, tree_util

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


class ArgSpec(NamedTuple):
    static_argnums: tuple[int, ...]
    static_argnames: tuple[str, ...]
    donate_argnums: tuple[int, ...]
    donate_argnames: tuple[str, ...]


def function_name(fun) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def signature(fun: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):  # some builtins have none
        return None


def index_tuple(value: Any, what: str) -> tuple[int, ...]:
    """``value`` (an int or a sequence of ints) as a tuple; TypeError naming ``what`` otherwise."""
    try:
        return (operator.index(value),)
    except TypeError:
        pass
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"jit: {what} must be an int or a sequence of ints, got {value!r}")
    items = tuple(value)
    try:
        return tuple(operator.index(i) for i in items)
    except TypeError:
        raise TypeError(
            f"jit: {what} must be an int or a sequence of ints, got {value!r}") from None


def name_tuple(value: Any, what: str) -> tuple[str, ...]:
    """``value`` (a str or a sequence of strs) as a tuple; TypeError naming ``what`` otherwise."""
    if isinstance(value, str):
        return (value,)
    if not hasattr(value, "__iter__"):
        raise TypeError(f"jit: {what} must be a str or a sequence of strs, got {value!r}")
    items = tuple(value)
    if not all(isinstance(n, str) for n in items):
        raise TypeError(f"jit: {what} must be a str or a sequence of strs, got {value!r}")
    return items


def _complete(params: list[inspect.Parameter], nums: tuple[int, ...],
              names: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Adds the number of each named positional parameter and the name of each numbered one."""
    positional = [p for p in params if p.kind in _POSITIONAL]
    all_nums, all_names = set(nums), set(names)
    for i, p in enumerate(positional):
        if p.kind != p.POSITIONAL_OR_KEYWORD:
            continue  # a positional-only name is reported by _check_names
        if p.name in all_names:
            all_nums.add(i)
        elif i in all_nums or i - len(positional) in all_nums:
            all_names.add(p.name)
    return tuple(sorted(all_nums)), tuple(sorted(all_names))


def _check_nums(fun, params: list[inspect.Parameter], nums: tuple[int, ...], what: str) -> None:
    if not nums or any(p.kind == p.VAR_POSITIONAL for p in params):
        return  # a function with *args takes any position
    npos = sum(p.kind in _POSITIONAL for p in params)
    bad = [i for i in nums if not -npos <= i < npos]
    if bad:
        names = ", ".join(p.name for p in params if p.kind in _POSITIONAL)
        raise core.value_error(
            f"Jitted function {function_name(fun)} has {what}={nums}, but only accepts {npos} "
            f"positional arguments ({names or 'none'}); {what} {tuple(bad)} "
            f"{'is' if len(bad) == 1 else 'are'} out of range")


def _check_names(fun, params: list[inspect.Parameter], names: tuple[str, ...], what: str) -> None:
    positional_only = {p.name for p in params if p.kind == p.POSITIONAL_ONLY} & set(names)
    if positional_only:
        raise core.value_error(
            f"Jitted function {function_name(fun)} has invalid argnames {positional_only} in "
            f"{what}. These are positional-only, so they cannot be passed by name; use "
            f"{what.replace('names', 'nums')} instead")
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return  # **kwargs takes any name
    unknown = set(names) - {p.name for p in params if p.kind in _KEYWORD}
    if unknown:
        known = ", ".join(p.name for p in params if p.kind in _KEYWORD)
        raise core.value_error(
            f"Jitted function {function_name(fun)} has invalid argnames {unknown} in {what}. "
            f"Function does not take these args (its parameters: {known or 'none'})")


def resolve(fun: Callable, static_argnums, static_argnames, donate_argnums,
            donate_argnames) -> ArgSpec:
    """Validates the four specifications against ``fun``'s signature and completes them."""
    static_nums = index_tuple(static_argnums, "static_argnums")
    static_names = name_tuple(static_argnames, "static_argnames")
    donate_nums = index_tuple(donate_argnums, "donate_argnums")
    donate_names = name_tuple(donate_argnames, "donate_argnames")
    sig = signature(fun)
    if sig is None:
        if donate_names:
            raise core.value_error(
                f"jit: the signature of {function_name(fun)} cannot be inspected, so "
                "donate_argnames cannot be resolved; pass donate_argnums instead")
    else:
        params = list(sig.parameters.values())
        static_nums, static_names = _complete(params, static_nums, static_names)
        donate_nums, donate_names = _complete(params, donate_nums, donate_names)
        _check_nums(fun, params, static_nums, "static_argnums")
        _check_names(fun, params, static_names, "static_argnames")
        _check_nums(fun, params, donate_nums, "donate_argnums")
        _check_names(fun, params, donate_names, "donate_argnames")
    both = set(static_names) & set(donate_names)
    if both:
        raise core.value_error(
            "static_argnames and donate_argnames cannot intersect. Argument names "
            f"{both} appear in both static_argnames and donate_argnames")
    both_nums = set(static_nums) & set(donate_nums)
    if both_nums:
        raise core.value_error(
            f"`static_argnums` {sorted(set(static_nums))} and `donate_argnums` "
            f"{sorted(set(donate_nums))} cannot intersect: argument(s) {sorted(both_nums)} "
            "cannot be both static and donated")
    return ArgSpec(static_nums, static_names, donate_nums, donate_names)


def traced_args(fun: Callable, in_tree, leaves, static_positions) -> tuple[core.TracedArg, ...]:
    """A label for each flat input of ``fun`` traced with the dynamic (args, kwargs) of
    ``in_tree``: the parameter it belongs to plus its key path, as ``"params['w']"``."""
    sig = signature(fun)
    params = list(sig.parameters.values()) if sig is not None else []
    positional = [p for p in params if p.kind in _POSITIONAL]
    by_name = {p.name: p for p in params}
    dyn_args, dyn_kwargs = tree_util.tree_unflatten(in_tree, leaves)
    dyn_positions = [i for i in range(len(dyn_args) + len(static_positions))
                     if i not in static_positions]
    labels = []
    for path, _ in tree_util.tree_flatten_with_path((dyn_args, dyn_kwargs))[0]:
        (_, where), rest = path[:2], path[2:]
        if path[0].idx == 0:  # a positional argument
            argnum = dyn_positions[where.idx]
            param = positional[argnum] if argnum < len(positional) else None
            name = param.name if param is not None else f"args[{argnum - len(positional)}]"
            argname = param.name if param is not None and param.kind in _KEYWORD else None
        else:
            name = argname = where.key
            param = by_name.get(name)
            argnum = positional.index(param) if param in positional else None
        labels.append(core.TracedArg(name + tree_util.keystr(rest), argnum, argname))
    return tuple(labels)
