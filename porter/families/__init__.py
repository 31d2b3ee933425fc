"""Template families for `porter convert` and `porter verify`: one folder each, named once in FAMILIES.

porter/families/<name>/ holds the family's kernel.py.j2 and manifest.toml (_common/ holds the shared base).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

# Recognition priority: a tie between candidates of equal score goes to the family listed first.
FAMILIES = (
    "attention",
    "batched_gemm",
    "gemm",
    "softmax",
    "layernorm",
    "rmsnorm",
    "row_reduce",
    "transpose",
    "elementwise",
)

FOLDER = Path(__file__).resolve().parent


def hooks(family: str, part: str) -> ModuleType | None:
    """The family's module `part` (recognize: every family's; verify: only where verify checks the family in a
    way of its own), or None where it has none."""
    if family not in FAMILIES:
        raise KeyError(f"unknown template family {family!r}")
    if not (FOLDER / family / f"{part}.py").is_file():
        return None
    return importlib.import_module(f"porter.families.{family}.{part}")
