"""Exact LDS bank-conflict model: which lanes the hardware checks together, which banks their dwords hit, and
what that costs, for one access of one wavefront. Pure Python; knows nothing about parsing.

Hardware numbers come from the target TOML (`wave_size`, `lds_banks`, `lds_bank_width_bytes`, `lds_bytes_per_cu`
and the `[[lds.access]]` phase tables; see docs/hardware.md "LDS (shared memory) banks"). Definitions used throughout:

- lanes are threads linearized x-major (linear = x + y*bx + z*bx*by), wave = linear // wave_size;
- a lane's access of `width` bytes at byte address a touches the bank-width units ("dwords")
  a // bw .. (a + width - 1) // bw, and unit u lives in bank u % banks;
- cost of a phase = the largest number of DISTINCT units in one bank (one unit read by many lanes is a broadcast);
  ideal = ceil(active lanes * width / (banks * bw)); degree = cost / ideal (1.0 = conflict-free).
"""

from __future__ import annotations

from functools import lru_cache

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from porter.lds.affine import BLOCK_SYMBOLS, THREAD_SYMBOLS, AddressFn, compile_fn
from porter.targets import Target, load_target

Op = Literal["read", "write"]
STATUSES: frozenset[str] = frozenset({"documented", "assumed", "inferred"})
# Guard against a caller handing in the Cartesian product of many long loop ranges: the model is exact per lane,
# so its cost is lanes x waves x combinations. Not a hardware number.
MAX_SAMPLE_COMBINATIONS = 4096


class LdsModelError(ValueError):
    """Bad target data or an access the model cannot place (e.g. no instruction that wide)."""


def parse_lanes(spec: str) -> tuple[int, ...]:
    """'0-3,20-23' -> (0, 1, 2, 3, 20, 21, 22, 23)."""
    lanes: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        lo, _, hi = part.partition("-")
        a, b = int(lo), int(hi or lo)
        if b < a:
            raise LdsModelError(f"bad lane range '{part}'")
        lanes.extend(range(a, b + 1))
    return tuple(lanes)


@dataclass(frozen=True)
class PhaseTable:
    """One `[[lds.access]]` entry: how one access width (and op) is split into phases."""

    width_bytes: int
    ops: tuple[str, ...]
    instructions: tuple[str, ...]  # parallel to ops
    phases: tuple[tuple[int, ...], ...]
    banks: int
    bank_width_bytes: int
    status: str
    source: str

    def instruction(self, op: str) -> str:
        return self.instructions[self.ops.index(op)]

    @property
    def bytes_per_pass(self) -> int:
        return self.banks * self.bank_width_bytes


@dataclass(frozen=True)
class LdsModel:
    target: str
    wave_size: int
    banks: int
    bank_width_bytes: int
    limit_bytes: int  # LDS a workgroup may allocate
    tables: tuple[PhaseTable, ...]

    def table_for(self, width_bytes: int, op: str) -> PhaseTable:
        """The phase table for an access of `width_bytes`: the narrowest entry at least that wide, so 1- and
        2-byte accesses use the 4-byte table (ds_read_u16 is checked like ds_read_b32)."""
        fitting = [t for t in self.tables if op in t.ops and t.width_bytes >= width_bytes]
        if not fitting:
            widest = max((t.width_bytes for t in self.tables if op in t.ops), default=0)
            raise LdsModelError(f"{self.target}: no LDS {op} of {width_bytes} bytes (widest is {widest}); "
                                "model the access as several narrower ones")
        return min(fitting, key=lambda t: t.width_bytes)

    @property
    def max_bytes_per_pass(self) -> int:
        return max(t.bytes_per_pass for t in self.tables)


def model_from_target(target: Target) -> LdsModel:
    """Build and validate the model from a target's data (phases must partition the wave's lanes)."""
    entries = target.extra.get("lds", {}).get("access")
    if not entries:
        raise LdsModelError(f"target '{target.name}' has no [[lds.access]] tables")
    tables: list[PhaseTable] = []
    for e in entries:
        ops = tuple(e["ops"])
        instructions = tuple(e["instruction"])
        if len(instructions) != len(ops) or not set(ops) <= {"read", "write"}:
            raise LdsModelError(f"{target.name}: entry {e} needs one instruction per op (read/write)")
        if e["status"] not in STATUSES:
            raise LdsModelError(f"{target.name}: status '{e['status']}' is not one of {sorted(STATUSES)}")
        phases = tuple(parse_lanes(p) for p in e["phases"])
        flat = sorted(lane for p in phases for lane in p)
        if flat != list(range(target.wave_size)):
            raise LdsModelError(f"{target.name} {instructions}: phases do not partition lanes "
                                f"0-{target.wave_size - 1}")
        tables.append(PhaseTable(
            width_bytes=int(e["width_bytes"]), ops=ops, instructions=instructions, phases=phases,
            banks=int(e.get("banks", target.lds_banks)),
            bank_width_bytes=int(e.get("bank_width_bytes", target.lds_bank_width_bytes)),
            status=e["status"], source=e.get("source", "")))
    seen: set[tuple[int, str]] = set()
    for t in tables:
        for op in t.ops:
            if (t.width_bytes, op) in seen:
                raise LdsModelError(f"{target.name}: two tables for {op} of {t.width_bytes} bytes")
            seen.add((t.width_bytes, op))
    limit = target.lds_bytes_per_workgroup
    return LdsModel(target=target.name, wave_size=target.wave_size, banks=target.lds_banks,
                    bank_width_bytes=target.lds_bank_width_bytes, limit_bytes=limit, tables=tuple(tables))


@cache
def load_model(target: str) -> LdsModel:
    return model_from_target(load_target(target))


def as_model(target: str | Target | LdsModel) -> LdsModel:
    """Accept a target name, a loaded Target or a ready model (tests build variants with dataclasses.replace)."""
    if isinstance(target, LdsModel):
        return target
    if isinstance(target, Target):
        return model_from_target(target)
    return load_model(target)


@dataclass(frozen=True)
class Access:
    """One LDS access instruction as every lane executes it.

    address: byte offset of the lane's access relative to `base` (an Affine, an Expr tree or a callable on the
    lane's environment). The environment binds tid.x/y/z, bdim.x/y/z and the sampled loop variables.
    predicate: optional guard; lanes where it evaluates to 0 are inactive.
    """

    address: AddressFn
    elem_bytes: int
    vector: int = 1
    base: int = 0
    op: Op = "read"
    predicate: AddressFn | None = None

    @property
    def width_bytes(self) -> int:
        return self.elem_bytes * self.vector


@dataclass(frozen=True)
class PhaseCost:
    index: int  # position in the target's phase table
    lanes: tuple[int, ...]  # active lanes of the phase (lane = index within the wave)
    cost: int
    ideal: int

    @property
    def degree(self) -> float:
        return self.cost / self.ideal


@dataclass(frozen=True)
class ConflictResult:
    target: str
    instruction: str
    status: str  # of the phase table used: documented | assumed | inferred
    width_bytes: int
    wave: int
    env: tuple[tuple[str, int], ...]  # the loop-variable values of the worst case
    phases: tuple[PhaseCost, ...]  # phases with at least one active lane
    worst: PhaseCost | None  # None when no lane is active
    worst_bank: int | None
    colliding_lanes: tuple[int, ...]  # lanes that touch worst_bank in the worst phase
    misaligned_lanes: tuple[int, ...]  # lanes whose address is not a multiple of the access width
    degree: float  # worst phase cost / ideal; 1.0 = conflict-free
    cycles: int  # sum of phase costs
    ideal_cycles: int

    @property
    def conflict_free(self) -> bool:
        return self.degree == 1.0

    @property
    def phase_costs(self) -> tuple[int, ...]:
        return tuple(p.cost for p in self.phases)

    @property
    def aligned(self) -> bool:
        return not self.misaligned_lanes


def thread_of(lane: int, wave: int, block: tuple[int, int, int], wave_size: int) -> tuple[int, int, int]:
    """(x, y, z) of a lane, inverting the x-major linearization."""
    bx, by, _ = block
    linear = wave * wave_size + lane
    return linear % bx, (linear // bx) % by, linear // (bx * by)


def waves_in_block(block: tuple[int, int, int], wave_size: int) -> int:
    bx, by, bz = block
    return -(-(bx * by * bz) // wave_size)


def _combinations(samples: Mapping[str, int | Sequence[int]] | None) -> list[dict[str, int]]:
    if not samples:
        return [{}]
    names = sorted(samples)
    values = [[v] if isinstance(v, int) else list(v) for v in (samples[n] for n in names)]
    if any(not v for v in values):
        raise LdsModelError(f"empty sample list for {[n for n, v in zip(names, values) if not v]}")
    count = math.prod(len(v) for v in values)
    if count > MAX_SAMPLE_COMBINATIONS:
        raise LdsModelError(f"{count} loop-variable combinations; pass a few sample values per variable")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


# Above this many (wavefront x loop sample) evaluations per access, wavefronts are sampled (see analyze).
MAX_WAVE_EVALUATIONS = 64


def _ends(values: int | Sequence[int]) -> tuple[int, ...]:
    vals = (values,) if isinstance(values, int) else tuple(values)
    return tuple(dict.fromkeys((vals[0], vals[len(vals) // 2], vals[-1])))


@lru_cache(maxsize=1024)
def _lane_threads(wave: int, block: tuple[int, int, int], wave_size: int) -> tuple[tuple[int, tuple[int, int, int]], ...]:
    """(lane, thread index) of every lane of `wave` that exists in the block."""
    n_threads = block[0] * block[1] * block[2]
    return tuple((lane, thread_of(lane, wave, block, wave_size)) for lane in range(wave_size)
                 if wave * wave_size + lane < n_threads)


def _analyze_one(model: LdsModel, table: PhaseTable, access: Access, block: tuple[int, int, int], wave: int,
                 env_fixed: dict[str, int]) -> ConflictResult:
    addr_fn = compile_fn(access.address)
    pred_fn = compile_fn(access.predicate) if access.predicate is not None else None
    width = access.width_bytes
    bw = table.bank_width_bytes
    base_env = dict(env_fixed)
    base_env.update(zip(BLOCK_SYMBOLS, block))

    # Per active lane: the units (dwords) it touches. One env is reused (only the thread symbols change).
    units: dict[int, range] = {}
    misaligned: list[int] = []
    env = base_env
    for lane, (tx, ty, tz) in _lane_threads(wave, block, model.wave_size):
        env["tid.x"], env["tid.y"], env["tid.z"] = tx, ty, tz
        if pred_fn is not None and not pred_fn(env):
            continue
        a = access.base + addr_fn(env)
        if a % width:
            misaligned.append(lane)
        units[lane] = range(a // bw, (a + width - 1) // bw + 1)

    phases: list[PhaseCost] = []
    worst: tuple[float, int, PhaseCost, int, tuple[int, ...]] | None = None
    for index, members in enumerate(table.phases):
        active = tuple(lane for lane in members if lane in units)
        if not active:
            continue
        per_bank: dict[int, set[int]] = {}
        for lane in active:
            for u in units[lane]:
                per_bank.setdefault(u % table.banks, set()).add(u)
        bank, hit = max(per_bank.items(), key=lambda kv: (len(kv[1]), -kv[0]))
        ideal = -(-len(active) * width // table.bytes_per_pass)
        pc = PhaseCost(index=index, lanes=active, cost=len(hit), ideal=ideal)
        phases.append(pc)
        if worst is None or pc.degree > worst[0]:
            colliding = tuple(lane for lane in active if any(u % table.banks == bank for u in units[lane]))
            worst = (pc.degree, index, pc, bank, colliding)

    return ConflictResult(
        target=model.target, instruction=table.instruction(access.op), status=table.status, width_bytes=width,
        wave=wave, env=tuple(sorted(env_fixed.items())), phases=tuple(phases),
        worst=worst[2] if worst else None, worst_bank=worst[3] if worst else None,
        colliding_lanes=worst[4] if worst else (), misaligned_lanes=tuple(misaligned),
        degree=worst[0] if worst else 1.0,
        cycles=sum(p.cost for p in phases), ideal_cycles=sum(p.ideal for p in phases))


def analyze(target: str | Target | LdsModel, access: Access, block: tuple[int, int, int] | Sequence[int],
            wave: int | None = None, samples: Mapping[str, int | Sequence[int]] | None = None) -> ConflictResult:
    """Bank-conflict cost of `access` for one wavefront (`wave`), or the worst wavefront of the block when
    `wave` is None. `samples` gives each loop variable (or other uniform symbol) one value or a few sample
    values; every combination is evaluated and the worst (highest degree, then most cycles) is returned."""
    model = as_model(target)
    blk = tuple(int(d) for d in block) + (1,) * (3 - len(block))
    if len(blk) != 3 or min(blk) < 1:
        raise LdsModelError(f"bad block dims {tuple(block)}")
    table = model.table_for(access.width_bytes, access.op)
    combos = _combinations(samples)
    count = waves_in_block(blk, model.wave_size)
    if wave is None and count * len(combos) > MAX_WAVE_EVALUATIONS and samples:
        # many nested loop samples: each variable's first, middle and last sample
        combos = _combinations({k: _ends(v) for k, v in samples.items()})
    waves: Iterable[int] = (wave,) if wave is not None else range(count)
    if wave is None and count * len(combos) > MAX_WAVE_EVALUATIONS:
        # A large block with many loop samples: the first, second, middle and last wavefronts stand for
        # the rest (they cover the block's edges; interior wavefronts repeat the same lane pattern).
        waves = sorted({0, 1, count // 2, count - 1} & set(range(count)))
    best: ConflictResult | None = None
    for w in waves:
        for env in combos:
            r = _analyze_one(model, table, access, blk, w, env)
            if best is None or (r.degree, r.cycles) > (best.degree, best.cycles):
                best = r
    assert best is not None  # waves and combinations are never empty
    return best
