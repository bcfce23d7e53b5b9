"""The module texts numlir compiles during a test (``dispatch.compile_module`` watched)."""

from __future__ import annotations

from numlir._src import dispatch


def compiled_texts(monkeypatch) -> list[str]:
    """A list that receives the text of every module compiled from here on (once per device
    it is loaded on), for the rest of the test."""
    texts = []
    compile_module = dispatch.compile_module

    def spy(text, **kw):
        texts.append(text)
        return compile_module(text, **kw)

    monkeypatch.setattr(dispatch, "compile_module", spy)
    return texts
