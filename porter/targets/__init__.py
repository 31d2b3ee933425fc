"""Hardware data per target: one TOML file each, the only place hardware numbers live."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Target:
    name: str
    vendor: str
    description: str
    wave_size: int
    lds_bytes_per_cu: int
    lds_banks: int
    lds_bank_width_bytes: int
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


def known_targets() -> list[str]:
    return sorted(p.stem for p in _DIR.glob("*.toml"))


@cache
def load_target(name: str) -> Target:
    if name not in known_targets():  # a name, never a path (it may come from a checkout's pyproject.toml)
        raise KeyError(f"unknown target '{name}' (known: {', '.join(known_targets())})")
    data = tomllib.loads((_DIR / f"{name}.toml").read_text())
    core = {k: data.pop(k) for k in ("name", "vendor", "description", "wave_size", "lds_bytes_per_cu",
                                     "lds_banks", "lds_bank_width_bytes")}
    return Target(**core, extra=data)
