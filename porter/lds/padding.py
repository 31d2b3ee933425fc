"""Layout search for a shared array: the smallest row padding that makes every access conflict-free, its LDS
cost and whether it still fits, and an XOR-swizzle alternative when padding cannot do it (or does not fit).

Padding P widens the innermost dimension: [..][R][C] -> [..][R][C+P]. A swizzle permutes, within each row, the
groups of `granule` elements (the widest vector access, so vectors stay contiguous):
    col' = ((col / g) ^ ((row / d) % k)) * g + col % g
where row is the index of the second-to-last dimension. Every access of the array, reads and writes, is assumed
to go through the same layout, which is how such a change is made in source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod

from porter.lds.affine import Expr, to_c
from porter.lds.model import Access, ConflictResult, LdsModel, LdsModelError, Op, analyze, as_model
from porter.targets import Target


@dataclass(frozen=True)
class SharedArray:
    name: str
    dims: tuple[int, ...]  # C order, innermost last
    elem_bytes: int
    base: int = 0  # byte offset of the array in the workgroup's LDS

    def bytes(self, pad: int = 0) -> int:
        return prod(self.dims[:-1]) * (self.dims[-1] + pad) * self.elem_bytes


@dataclass(frozen=True)
class ArrayAccess:
    """An access `array[i0][i1]...`: one index Expr per dimension, in elements. `vector` elements are moved at
    once (a float4 access of a float array has vector=4, indices naming its first element)."""

    indices: tuple[Expr, ...]
    vector: int = 1
    op: Op = "read"
    predicate: Expr | None = None
    label: str = ""


@dataclass(frozen=True)
class Swizzle:
    k: int  # xor span in granules (a power of two)
    d: int = 1  # rows that share one xor value
    granule: int = 1  # elements moved together

    def column(self, row: Expr, col: Expr) -> Expr:
        key: Expr = ("%", row if self.d == 1 else ("/", row, self.d), self.k)
        if self.granule == 1:
            return ("^", col, key)
        g = self.granule
        return ("+", ("*", ("^", ("/", col, g), key), g), ("%", col, g))

    def describe(self) -> str:
        return to_c(self.column("row", "col"))


def element_offset(array: SharedArray, indices: Sequence[Expr], pad: int = 0,
                   swizzle: Swizzle | None = None) -> Expr:
    """Linear element offset of `array[indices...]` under a padded / swizzled layout (row-major)."""
    if len(indices) != len(array.dims):
        raise LdsModelError(f"{array.name}: {len(indices)} indices for {len(array.dims)} dimensions")
    idx = list(indices)
    if swizzle is not None:
        idx[-1] = swizzle.column(idx[-2], idx[-1])
    sizes = list(array.dims[:-1]) + [array.dims[-1] + pad]
    out: Expr = idx[0]
    for size, i in zip(sizes[1:], idx[1:]):
        out = ("+", ("*", out, size), i)
    return out


def to_access(array: SharedArray, acc: ArrayAccess, pad: int = 0, swizzle: Swizzle | None = None) -> Access:
    return Access(address=("*", element_offset(array, acc.indices, pad, swizzle), array.elem_bytes),
                  elem_bytes=array.elem_bytes, vector=acc.vector, base=array.base, op=acc.op,
                  predicate=acc.predicate)


@dataclass(frozen=True)
class LayoutOption:
    pad: int
    swizzle: Swizzle | None
    bytes: int  # LDS bytes of this array under the layout
    total_bytes: int  # plus the rest of the workgroup's shared memory
    fits: bool  # total_bytes within the target's per-workgroup LDS
    degree: float  # worst over the accesses; inf when a vector access becomes misaligned
    results: tuple[ConflictResult, ...]  # one per access, in order

    @property
    def conflict_free(self) -> bool:
        return self.degree == 1.0


@dataclass(frozen=True)
class PaddingResult:
    array: SharedArray
    target: str
    limit_bytes: int
    current: LayoutOption  # as declared (no padding, no swizzle)
    padding: LayoutOption | None  # smallest conflict-free padding within the bound, None if none
    best_padding: LayoutOption  # lowest degree among the paddings tried (smallest pad on ties)
    swizzle: LayoutOption | None  # tried when padding fails or does not fit; None if not tried or none works
    max_pad: int

    @property
    def recommended(self) -> LayoutOption | None:
        """Nothing to do if the array is already fine; else a fitting padding, else a fitting swizzle."""
        if self.current.conflict_free:
            return self.current
        for option in (self.padding, self.swizzle):
            if option is not None and option.fits:
                return option
        return None


def _evaluate(model: LdsModel, array: SharedArray, accesses: Sequence[ArrayAccess], block: Sequence[int],
              samples: Mapping[str, int | Sequence[int]] | None, wave: int | None, other_bytes: int, pad: int,
              swizzle: Swizzle | None) -> LayoutOption:
    results = tuple(analyze(model, to_access(array, a, pad, swizzle), block, wave=wave, samples=samples)
                    for a in accesses)
    # A vector access whose lanes lose their natural alignment would not be compiled to one wide LDS
    # instruction (and is a fault on NVIDIA): such a layout is not a candidate.
    degree = float("inf") if any(r.misaligned_lanes for r in results) else max(r.degree for r in results)
    size = array.bytes(pad)
    return LayoutOption(pad=pad, swizzle=swizzle, bytes=size, total_bytes=size + other_bytes,
                        fits=size + other_bytes <= model.limit_bytes, degree=degree, results=results)


def _few(samples: Mapping[str, int | Sequence[int]] | None) -> dict[str, tuple[int, ...]] | None:
    """The first and last sample of each loop variable: enough to screen candidate layouts."""
    if not samples:
        return None
    out = {}
    for name, values in samples.items():
        vals = (values,) if isinstance(values, int) else tuple(values)
        out[name] = tuple(dict.fromkeys((vals[0], vals[-1])))
    return out


def padded_width(extent: int) -> tuple[int, int] | None:
    """(unpadded width C0, pad P) when extent = C0 + P looks like a padded row: C0 a power of two >= 8 and
    1 <= P <= min(8, C0 / 4). A power-of-two extent is never taken for a padded one."""
    if extent & (extent - 1) == 0:
        return None
    for pad in range(1, 9):
        c0 = extent - pad
        if c0 >= 8 and c0 & (c0 - 1) == 0 and pad <= c0 // 4:
            return c0, pad
    return None


def _powers_of_two(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


def find_padding(target: str | Target | LdsModel, array: SharedArray, accesses: Sequence[ArrayAccess],
                 block: Sequence[int], samples: Mapping[str, int | Sequence[int]] | None = None,
                 max_pad: int | None = None, other_shared_bytes: int = 0, wave: int | None = None,
                 try_swizzle: bool | None = None) -> PaddingResult:
    """Search paddings 0..max_pad (default: one full pass of the widest bank table, in elements, minus one; past
    that the bank mapping of a row stride repeats) for the smallest that makes every access degree 1.
    `other_shared_bytes` is the rest of the workgroup's static + dynamic shared memory, for the size check.
    The swizzle search runs when no padding works or the padded array does not fit (or when forced)."""
    model = as_model(target)
    if len(array.dims) < 2:
        raise LdsModelError(f"{array.name}: padding needs at least two dimensions")
    if not accesses:
        raise LdsModelError(f"{array.name}: no accesses to evaluate")
    if max_pad is None:
        max_pad = max(1, model.max_bytes_per_pass // array.elem_bytes) - 1
    args = (model, array, accesses, block, samples, wave, other_shared_bytes)
    # Candidates are screened on the first wavefront only, then confirmed on every wavefront of the block:
    # a large block has many wavefronts and the search tries dozens of layouts.
    screen = (model, array, accesses, block, _few(samples), 0 if wave is None else wave, other_shared_bytes)

    current = _evaluate(*args, 0, None)
    screened = [current] + [_evaluate(*screen, pad, None) for pad in range(1, max_pad + 1)]
    padding = None
    for option in screened:
        if option.conflict_free:
            full = option if option is current else _evaluate(*args, option.pad, None)
            if full.conflict_free:
                padding = full
                break
    best = min(screened, key=lambda o: (o.degree, o.pad))
    best_padding = best if best is current or best is padding else _evaluate(*args, best.pad, None)
    if padding is not None and (padding.degree, padding.pad) <= (best_padding.degree, best_padding.pad):
        best_padding = padding

    swizzle_option: LayoutOption | None = None
    if try_swizzle or (try_swizzle is None and not current.conflict_free
                       and (padding is None or not padding.fits)):
        swizzle_option = _search_swizzle(args, screen, array, accesses)
    return PaddingResult(array=array, target=model.target, limit_bytes=model.limit_bytes, current=current,
                         padding=padding, best_padding=best_padding, swizzle=swizzle_option, max_pad=max_pad)


def _search_swizzle(args: tuple, screen: tuple, array: SharedArray,
                    accesses: Sequence[ArrayAccess]) -> LayoutOption | None:
    """Smallest xor span k first, then the smallest row grouping d; the first conflict-free layout wins
    (screened on one wavefront, confirmed on all)."""
    granule = max(a.vector for a in accesses)
    rows, cols = array.dims[-2], array.dims[-1]
    if cols % granule:
        return None
    groups = cols // granule
    for k in _powers_of_two(groups)[1:]:
        if groups % k:
            continue  # the xor must stay inside the row
        for d in _powers_of_two(max(1, rows // 2)):
            swizzle = Swizzle(k=k, d=d, granule=granule)
            if _evaluate(*screen, 0, swizzle).conflict_free:
                option = _evaluate(*args, 0, swizzle)
                if option.conflict_free:
                    return option
    return None
