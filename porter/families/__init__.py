"""Template families for `porter convert` and `porter verify`: one folder each, named once in FAMILIES.

porter/families/<name>/ holds all of a family (README.md beside this file): kernel.py.j2 and manifest.toml (the
template; _common/ holds the shared base), recognize.py (`candidate(k)`, and `bind` where convert binds more than
the kernel's body shows), verify.py where verify checks the family in a way of its own, and samples/ with
samples/golden/. Convert, render, verify, the tests and the benchmarks read FAMILIES; nothing else names a family.
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


def samples(family: str | None = None) -> list[Path]:
    """The annotated .hip samples of `family` (default: of every family), in a source checkout: the rule tests'
    cases, convert's inputs and, under samples/golden/, convert's output for each (the wheel leaves them out)."""
    return [p for fam in ([family] if family else FAMILIES) for p in sorted((FOLDER / fam / "samples").glob("*.hip"))]


def sample(ref: str) -> Path:
    """`gemm/gemm_naive.hip` -> porter/families/gemm/samples/gemm_naive.hip."""
    family, _, name = ref.partition("/")
    return FOLDER / family / "samples" / name


def sample_ref(path: Path) -> str:
    """The inverse of sample(): `family/file.hip`."""
    return f"{path.parent.parent.name}/{path.name}"


def golden(path: Path) -> Path:
    """The module `porter convert` writes for a sample (kept as the convert test's expectation)."""
    return path.parent / "golden" / f"{path.stem}.py"
