"""What every rule's matcher reads for one file: the facts, the target, and what is derived from them once.

The analysis makes one RuleContext per file and hands it to every matcher. Views that several rules need (the
FileView, the WarpReduce declarations of a function, the LDS evaluation of the file) are built on the first ask
and live as long as the context, so no matcher keeps state between files.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, Hashable, TypeVar

from porter.facts import FileFacts
from porter.fact_queries import FileView
from porter.targets import Target

T = TypeVar("T")


class RuleContext:
    def __init__(self, facts: FileFacts, target: Target) -> None:
        self.facts = facts
        self.target = target
        self._shared: dict[Hashable, Any] = {}

    @cached_property
    def view(self) -> FileView:
        """The file's function views, shared by the wave64 and the LDS matchers."""
        return FileView(self.facts)

    def shared(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A result several rules (or one rule over several instantiations) ask for: `compute` runs on the first
        ask for `key`. Keys start with the asking module's name so that matchers cannot collide."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]  # type: ignore[no-any-return]
