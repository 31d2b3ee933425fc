"""Locate porter's data folders (rules/, docs/, parse_headers, targets) in a source tree or an installed wheel."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PKG = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder `name` (e.g. "rules", "docs"): packaged under porter/_data in a wheel,
    at the repository root in a source checkout or editable install."""
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"porter data folder '{name}' is missing from this installation")


def package_path(*parts: str) -> Path:
    """A file shipped inside the porter package itself (stub headers, target data)."""
    return _PKG.joinpath(*parts)
