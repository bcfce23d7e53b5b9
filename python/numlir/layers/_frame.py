"""The state of one init or apply run: parameters, state, random keys and the naming scopes.

A frame is pushed by ``transform``'s init and apply; every parameter, state value, random
key and module name is taken from the innermost frame, so module code is ordinary Python
that reads as if parameters were globals (as in Haiku).
"""

from __future__ import annotations

import collections
import contextlib
from typing import Any, NamedTuple

import numlir.random as random


class PRNGSequence:
    """An endless supply of keys split from one key (or a seed)."""

    def __init__(self, key_or_seed):
        self._key = random.PRNGKey(key_or_seed) if isinstance(key_or_seed, int) else key_or_seed

    def __next__(self):
        self._key, sub = random.split(self._key)
        return sub

    def take(self, n: int) -> tuple:
        return tuple(next(self) for _ in range(n))


class ModuleCall(NamedTuple):
    """One entry of the module stack: which module is running which method."""

    module: Any
    method_name: str


class Frame:
    def __init__(self, params: dict, state: dict, rng: PRNGSequence | None, initializing: bool):
        self.params = params
        self.state = state
        # What init returns: each state value as first created (later set_state calls
        # during init do not change it, as in Haiku).
        self.initial_state: dict = {}
        self.rng = rng
        self.initializing = initializing
        self.module_stack: list[ModuleCall] = []
        # One naming scope per running module method, plus the top level's.
        self.counters: list[collections.Counter] = [collections.Counter()]
        self.used_names: list[set] = [set()]

    @contextlib.contextmanager
    def module_call(self, module, method_name: str):
        self.module_stack.append(ModuleCall(module, method_name))
        self.counters.append(collections.Counter())
        self.used_names.append(set())
        try:
            yield
        finally:
            self.module_stack.pop()
            self.counters.pop()
            self.used_names.pop()


_frames: list[Frame] = []


@contextlib.contextmanager
def new_frame(frame: Frame):
    _frames.append(frame)
    try:
        yield frame
    finally:
        _frames.pop()


def current_frame(what: str) -> Frame:
    if not _frames:
        raise ValueError(f"{what} must be used as part of a numlir.layers.transform "
                         "(inside the function given to transform, during init or apply)")
    return _frames[-1]
