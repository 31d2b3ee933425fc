"""Hardware data per target: one TOML file each, the only place hardware numbers live.

A `Target` is what every stage asks about the GPU: the analyzer (wave size, LDS model, launch limits, the arch
libclang parses device code for), `--confirm` and the emulator (launch limits), convert (which tile configs of a
template manifest apply), the code-object compiler (the arch it is asked for, occupancy) and the toolchain
(which device library stands in for the arch). Adding a target is one TOML file here (see docs/CONTRIBUTING.md).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

_DIR = Path(__file__).resolve().parent
VENDORS = ("amd", "nvidia")
DEFAULT_TARGET = "gfx942"   # what porter analyzes, converts, compiles and emulates for unless told otherwise


class TargetError(ValueError):
    """A target file that is missing a field or holds a wrong one (a bug in porter's data, named by file)."""


@dataclass(frozen=True)
class Occupancy:
    """Register-file facts that bound waves per SIMD (AMD only; porter.codeobject.occupancy)."""
    vgprs_per_simd_lane: int
    vgpr_granule: int
    max_waves_per_simd: int
    simds_per_cu: int


@dataclass(frozen=True)
class Target:
    name: str
    vendor: str                      # amd | nvidia
    description: str
    wave_size: int                   # lanes of a wavefront (warp)
    max_threads_per_block: int       # launch limit on the product of the block dimensions
    lds_bytes_per_cu: int
    lds_bytes_per_workgroup: int     # what one block may allocate (static + dynamic shared memory)
    lds_banks: int
    lds_bank_width_bytes: int
    parse_arch: str                  # --offload-arch libclang parses device code for
    toolchain_arch: str              # --offload-arch of the compiler / TileLang's target for this GPU
    configs: str                     # the key of this target's tile configs in template manifests
    device_lib: str = ""             # AMD: the oclc_isa_version file the porter toolchain derives this arch's from
    occupancy: Occupancy | None = None
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)   # lds tables, peaks, ...

    @property
    def is_amd(self) -> bool:
        return self.vendor == "amd"


_INT_FIELDS = ("wave_size", "max_threads_per_block", "lds_bytes_per_cu", "lds_banks", "lds_bank_width_bytes")
_STR_FIELDS = ("name", "vendor", "description", "parse_arch", "toolchain_arch", "configs")


def known_targets() -> list[str]:
    return sorted(p.stem for p in _DIR.glob("*.toml"))


def config_targets() -> list[str]:
    """The tile-config keys template manifests may use, one per target (several targets may share one)."""
    return sorted({load_target(t).configs for t in known_targets()})


def config_key(target: str) -> str:
    """A target name (or a tile-config key itself, e.g. "sm_90a" as a GPU reports it) -> its tile-config key."""
    if target in config_targets() and target not in known_targets():
        return target
    return load_target(target).configs


def amd_targets() -> list[Target]:
    return [t for t in map(load_target, known_targets()) if t.is_amd]


def target_for_arch(arch: str) -> Target | None:
    """The target a present GPU is (its arch as the driver names it: "gfx942:sramecc+:xnack-", "sm_90a"), if any."""
    arch = arch.split(":")[0]
    return next((t for t in map(load_target, known_targets()) if arch in (t.toolchain_arch, t.name)), None)


@cache
def load_target(name: str) -> Target:
    if name not in known_targets():  # a name, never a path (it may come from a checkout's pyproject.toml)
        raise KeyError(f"unknown target '{name}' (known: {', '.join(known_targets())})")
    path = _DIR / f"{name}.toml"
    data = tomllib.loads(path.read_text())
    missing = [k for k in (*_STR_FIELDS, *_INT_FIELDS) if k not in data]
    if missing:
        raise TargetError(f"{path}: missing {', '.join(missing)}")
    core: dict[str, Any] = {k: str(data.pop(k)) for k in _STR_FIELDS}
    core.update({k: int(data.pop(k)) for k in _INT_FIELDS})
    if core["name"] != name or core["vendor"] not in VENDORS:
        raise TargetError(f"{path}: name must be '{name}' and vendor one of {', '.join(VENDORS)}")
    core["lds_bytes_per_workgroup"] = int(data.pop("lds_bytes_per_workgroup", core["lds_bytes_per_cu"]))
    core["device_lib"] = str(data.pop("device_lib", ""))
    occ = data.pop("occupancy", None)
    return Target(**core, occupancy=Occupancy(**occ) if occ else None, extra=data)
