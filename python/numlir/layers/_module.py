"""Module: parameters and submodules named by where they are created, as Haiku names them.

A module created at the top level is ``linear``; the next one ``linear_1``. One created
inside another's ``__call__`` is ``parent/linear``; inside its ``__init__``,
``parent/~/linear``; inside another method ``m``, ``parent/~m/linear``. Counters belong
to each running method call, so calling a module twice creates its inner modules under
the same names, and so shares their parameters. A trailing ``_<n>`` the user writes is
kept, and later automatic numbers go past it.
"""

from __future__ import annotations

import functools
import inspect
import re

from numlir.layers import _frame

_CAMEL = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_NUMBERED = re.compile(r"_(0|[1-9]\d*)$")


def to_snake_case(name: str) -> str:
    """``Conv2DTranspose`` -> ``conv2_d_transpose``, ``MLP`` -> ``mlp``."""
    return _CAMEL.sub(r"_\1", name).lower()


def _split_number(name: str) -> tuple[str, int | None]:
    match = _NUMBERED.search(name)
    if match is None:
        return name, None
    return name[:match.start()], int(match.group(1))


def _unique_name(frame: _frame.Frame, name: str, module) -> str:
    # The module's own construction is on top of the stack; its creator is below it
    # (counters[0] is the top level's scope, counters[i + 1] belongs to module_stack[i]).
    index = len(frame.module_stack) - 1
    while index >= 0 and frame.module_stack[index].module is module:
        index -= 1
    if index >= 0:
        creator = frame.module_stack[index]
        if creator.method_name == "__init__":
            name = "~/" + name
        elif creator.method_name != "__call__":
            name = f"~{creator.method_name}/{name}"
        name = f"{creator.module.module_name}/{name}"
    counters, used = frame.counters[index + 1], frame.used_names[index + 1]
    base, number = _split_number(name)
    explicit = number is not None
    if number is None:
        number = counters[base]
    name = f"{base}_{number}" if explicit or number else base
    if name in used:
        raise ValueError(f"Module name '{name}' is not unique.")
    used.add(name)
    counters[base] = max(counters[base], number + 1)
    return name


def _check_name(name: str) -> None:
    if not name.isidentifier():
        raise ValueError(f"'{name}' is not a valid module name (it must be a valid Python identifier)")


def _wrap_method(method_name: str, method):
    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        frame = _frame.current_frame(f"{type(self).__name__}.{method_name}")
        with frame.module_call(self, method_name):
            return method(self, *args, **kwargs)

    wrapped._numlir_module_method = True
    return wrapped


class _ModuleMeta(type):
    # Methods run inside the module's naming scope. Construction runs in one scope for the
    # whole __init__ chain (a subclass's __init__ and its super().__init__ calls), so the
    # submodules they create count together: linear, linear_1.
    def __new__(mcs, name, bases, namespace):
        for attr, value in list(namespace.items()):
            if isinstance(value, property) and value.fget is not None:  # e.g. ema.average
                namespace[attr] = property(_wrap_method(attr, value.fget), value.fset,
                                           value.fdel, value.__doc__)
                continue
            wrap = callable(value) and not isinstance(value, (staticmethod, classmethod, type))
            wrap = wrap and (attr == "__call__" or not attr.startswith("_"))
            if wrap and not getattr(value, "_numlir_module_method", False):
                namespace[attr] = _wrap_method(attr, value)
        return super().__new__(mcs, name, bases, namespace)

    @property
    def __signature__(cls):
        # inspect.signature(Linear) would otherwise show this metaclass's (*args, **kwargs):
        # report the constructor's parameters, as Haiku does.
        parameters = tuple(inspect.signature(cls.__init__).parameters.values())
        return inspect.Signature(parameters[1:])

    def __call__(cls, *args, **kwargs):
        module = cls.__new__(cls)
        frame = _frame.current_frame(f"constructing {cls.__name__}")
        with frame.module_call(module, "__init__"):
            module.__init__(*args, **kwargs)
        return module


class Module(metaclass=_ModuleMeta):
    """Base class of layers: subclasses call ``super().__init__(name=name)`` first."""

    def __init__(self, name: str | None = None):
        if name is None:
            name = to_snake_case(type(self).__name__)
        _check_name(name)
        frame = _frame.current_frame(f"constructing {type(self).__name__}")
        if getattr(self, "module_name", None) is not None:
            return  # a second super().__init__ in a diamond hierarchy
        self.module_name = _unique_name(frame, name, self)
        self.name = self.module_name.split("/")[-1]

    def __repr__(self):
        return f"{type(self).__name__}(name={self.module_name!r})"


def current_module_name() -> str:
    """The name parameters get right now: the running module's, or ``~`` at the top level."""
    frame = _frame.current_frame("get_parameter")
    return frame.module_stack[-1].module.module_name if frame.module_stack else "~"
