"""Matchers for the LDS rules: shared-memory accesses that bank-conflict on the target (porter.lds model).

One analysis per file is shared by all LDS rules: for every kernel (template instantiations in place of their
pattern) and every block shape it is launched with, each `__shared__` access is turned into a per-lane address
(porter.lds.access_offsets) and evaluated exactly against the target's bank and phase tables, and against sm_90's for
LDS-002. Arrays with conflicts get a layout search (porter.lds.padding). Accesses whose lanes cannot be
followed are kept for LDS-000 (explain only), never guessed.
"""

from __future__ import annotations

import itertools
import re
from math import prod
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Sequence

from porter.facts import FileFacts, Loc, Node, SharedDecl, from_byte_text
from porter.findings import Edit, Match
from porter.lds.affine import EvalError, Expr, affine_of, depends_on_thread, evaluate
from porter.lds.access_offsets import (ASSUMED_ELEMENT, AccessWalker, BlockGuess, LdsAccess, Unresolved, assumed_shared,
                                      function_blocks, function_views)
from porter.lds.model import Access, ConflictResult, LdsModel, LdsModelError, analyze, as_model
from porter.lds.padding import ArrayAccess, PaddingResult, SharedArray, find_padding, padded_width
from porter.rule_context import RuleContext
from porter.targets import Target

REFERENCE_TARGET = "sm_90"  # the layout's home: what LDS-002 compares against


@dataclass
class _Hit:
    """The worst evaluation of one access expression (over ops, block shapes and instantiations)."""

    acc: LdsAccess
    block: BlockGuess
    result: ConflictResult
    reference: ConflictResult | None
    key: tuple[str, str]          # (function usr, array ref): the group the layout advice is computed for
    instance: str = ""            # the template arguments of the instantiation that conflicts, in words
    guesses: tuple[str, ...] = ()  # what the result rests on beyond the code and the block: open element size,
                                   # a lane stride that is an assumed block extent (in words, for the message)


@dataclass(frozen=True)
class _Bypass:
    """A flattened access that steps rows by the unpadded width of a padded array (LDS-003's candidate)."""

    why: str                      # the declared and the used row, in words
    padded_line: int = 0          # a line that indexes the array with the padded row (0: none does)


@dataclass
class _ArrayPlan:
    decl: SharedDecl
    block: BlockGuess
    accesses: list[LdsAccess]
    advice: str = ""
    edit: tuple[Edit, ...] = ()
    unused_padding: dict[int, _Bypass] = field(default_factory=dict)  # id(node) -> LDS-003's candidate


@dataclass
class _FileAnalysis:
    hits: dict[tuple[int, int], _Hit] = field(default_factory=dict)   # (line, col) -> worst
    plans: dict[tuple[str, str], _ArrayPlan] = field(default_factory=dict)
    unresolved: dict[tuple[int, int], tuple[Unresolved, BlockGuess]] = field(default_factory=dict)


def _block_param(params: dict[str, Any]) -> tuple[int, int, int]:
    raw = params.get("default_block", (256, 1, 1))
    if isinstance(raw, str):
        raw = [int(x) for x in re.split(r"[,x]", raw) if x.strip()]
    dims = tuple(int(x) for x in raw) + (1,) * (3 - len(raw))
    return dims[:3]  # type: ignore[return-value]


def file_analysis(ctx: RuleContext, params: dict[str, Any]) -> _FileAnalysis:
    """The file's LDS evaluation under the block default of `params`, shared by every LDS rule."""
    default = _block_param(params)
    return ctx.shared(("lds.file_analysis", default), lambda: _analyze_file(ctx, default))


def _analyze_file(ctx: RuleContext, default: tuple[int, int, int]) -> _FileAnalysis:
    facts, target = ctx.facts, ctx.target
    model = as_model(target)
    try:
        reference: LdsModel | None = as_model(REFERENCE_TARGET) if target.vendor != "nvidia" else None
    except (LdsModelError, OSError, KeyError):
        reference = None
    out = _FileAnalysis()
    evaluated: dict[tuple, ConflictResult] = {}
    for view in function_views(ctx):
        for block in function_blocks(ctx.view, view.fn, default, model.wave_size):
            walker = AccessWalker(ctx, view, block.dims, model.wave_size)
            accesses, unresolved = walker.accesses()
            if walker.used_args:
                args = ", ".join(f"{k} = {v}" for k, v in sorted(walker.used_args.items()))
                block = replace(block, source=f"{block.source}; kernel arguments as every launch passes them: {args}")
            if walker.used_pins:
                pins = ", ".join(f"{k} = {v}" for k, v in sorted(walker.used_pins.items()))
                block = replace(block, source=f"{block.source}; template parameters as a static_assert fixes them: "
                                              f"{pins}")
            if walker.used_block_param:
                block = replace(block, source=f"{block.source}; {walker.used_block_param} = {prod(block.dims)}, "
                                              "the threads of this block")
            for u in unresolved:
                out.unresolved.setdefault((u.node.loc.line, u.node.loc.col), (u, block))
            groups: dict[tuple[str, str], list[LdsAccess]] = {}
            for acc in accesses:
                groups.setdefault((view.fn.usr, acc.decl.ref), []).append(acc)
            for gkey, accs in groups.items():
                _analyze_group(out, model, reference, facts, block, gkey, accs, evaluated)
    return out


def _to_access(acc: LdsAccess) -> Access:
    return Access(address=acc.offset, elem_bytes=acc.width, op=acc.op,  # type: ignore[arg-type]
                  predicate=acc.predicate)


def _analyzed(model: LdsModel, access: Access, dims: tuple[int, int, int], samples: dict[str, tuple[int, ...]],
              evaluated: dict[tuple, ConflictResult]) -> ConflictResult:
    """analyze(), once per file for each distinct access, block and samples: a kernel's instantiations and
    launches repeat them (causal_conv1d_bwd.cu: 67 distinct of 128). Raises as analyze() does."""
    key = (model.target, access, dims, tuple(sorted(samples.items())))
    try:
        hit = evaluated.get(key)
    except TypeError:   # an address given in an unhashable form
        return analyze(model, access, dims, samples=samples)
    if hit is None:
        hit = evaluated[key] = analyze(model, access, dims, samples=samples)
    return hit


def _evaluate(model: LdsModel, acc: LdsAccess, block: BlockGuess, evaluated: dict[tuple, ConflictResult]
              ) -> tuple[LdsAccess, ConflictResult, str, str]:
    """The access (concrete), its evaluation, how its open quantities were guessed and what the file binds them
    to (in words). An element whose size is a template parameter is judged at each size the file's evidence
    gives it (instantiations, launches, a getter's specializations), the worst conflicted kept; with no evidence
    at 4 bytes (float, the element of most kernels), said as assumed. A runtime value known only to be one of a
    few (a scan's power-of-two `offset`) is tried at each of them and the least conflicted kept: what is then
    reported holds whatever the value is."""
    if not acc.element and not acc.open_values:
        return acc, _analyzed(model, _to_access(acc), block.dims, acc.samples, evaluated), "", ""
    types = (acc.element_types or (ASSUMED_ELEMENT,)) if acc.element else ((0, ""),)
    sizes = sorted({size for size, _ in types})
    names = [name for name, _ in acc.open_values]
    per_size = []  # (result, size, values, concrete): the least conflicted over the open values, per size
    for size in sizes:
        sized = acc.with_element_size(size) if acc.element else acc
        tried = []
        for values in itertools.product(*(v for _, v in acc.open_values)):
            concrete = sized.with_values(dict(zip(names, values)))
            r = _analyzed(model, _to_access(concrete), block.dims, acc.samples, evaluated)
            tried.append((r, values, concrete))
            if r.conflict_free:
                break  # conflict-free for some value: nothing to report at this size
        r, values, concrete = min(tried, key=lambda t: (t[0].degree, t[0].cycles, t[1]))
        per_size.append((r, size, values, concrete))
    conflicted = [t for t in per_size if not t[0].conflict_free]
    if not conflicted:
        return per_size[0][3], per_size[0][0], "", ""
    r, size, values, concrete = max(conflicted, key=lambda t: (t[0].degree, t[0].cycles, -t[1]))
    words = [f"'{name[2:]}' is a power of two set at run time: shown for {name[2:]} = {value}, the least "
             f"conflicted of {_alternatives(vals)}" for (name, vals), value in zip(acc.open_values, values)]
    if not acc.element:
        return concrete, r, ", ".join(words), ""
    if not acc.element_types:
        words.insert(0, f"element type {acc.element} open, no instantiation in the file binds it: {size} bytes "
                        f"assumed, as for {ASSUMED_ELEMENT[1]}")
        return concrete, r, ", ".join(words), ""
    bad = {s for _, s, _, _ in conflicted}
    bound = f"{acc.element} = " + _alternatives([f"{t} ({s} B)" for s, t in types])
    if len(sizes) > 1:
        bound += f": conflicted for {_alternatives([t for s, t in types if s in bad], 'and')}" + \
            (f", shown for {size}-byte elements" if len(bad) > 1 else "")
    return concrete, r, ", ".join(words), bound


def _alternatives(values: Sequence[int | str], last: str = "or") -> str:
    return ", ".join(str(v) for v in values[:-1]) + f" {last} {values[-1]}" if len(values) > 1 else str(values[0])


def _misaligned(r: ConflictResult) -> str:
    """A wide access whose lanes start off its natural alignment (a 16-B read every 8 B): the compiler still
    emits the wide instruction (the pointer type promises the alignment), but how gfx942 splits a misaligned
    one into phases is not documented, so the conflict is the aligned model's guess."""
    if not r.misaligned_lanes:
        return ""
    return (f"lanes {_ranges(r.misaligned_lanes)} start off the {r.width_bytes}-B alignment of {r.instruction}, "
            "whose phases for such addresses are not documented")


def _assumed_stride(acc: LdsAccess, block: BlockGuess) -> str:
    """Words for a lane stride that is a block extent the model assumed (buf[threadIdx.x * blockDim.y + ...] with
    no launch giving blockDim.y): the degree then holds for that extent only."""
    if not block.assumed:
        return ""
    form = affine_of(acc.offset, opaque=True)
    dims = sorted({d for s in (form.coeffs if form is not None else ()) if depends_on_thread(s)
                   for d in "xyz" if f"bdim.{d}" in s})
    return ", ".join(f"the lane stride is blockDim.{d}, {block.dims['xyz'.index(d)]} in the assumed block"
                     for d in dims)


def _analyze_group(out: _FileAnalysis, model: LdsModel, reference: LdsModel | None, facts: FileFacts,
                   block: BlockGuess, gkey: tuple[str, str], accs: list[LdsAccess],
                   evaluated: dict[tuple, ConflictResult]) -> None:
    conflicted = False
    concrete: list[LdsAccess] = []
    for acc in accs:
        try:
            acc, r, guess, bound = _evaluate(model, acc, block, evaluated)
        except (LdsModelError, ValueError) as exc:
            loc = (acc.node.loc.line, acc.node.loc.col)
            out.unresolved.setdefault(loc, (Unresolved(acc.decl, acc.node, str(exc), acc.written), block))
            concrete.append(acc)
            continue
        concrete.append(acc)
        ref_r = None
        if reference is not None and not r.conflict_free:
            try:
                ref_r = _analyzed(reference, _to_access(acc), block.dims, acc.samples, evaluated)
            except (LdsModelError, ValueError):
                ref_r = None
        loc = (acc.node.loc.line, acc.node.loc.col)
        prev = out.hits.get(loc)
        if prev is None or (r.degree, r.cycles) > (prev.result.degree, prev.result.cycles):
            guesses = tuple(g for g in (assumed_shared(acc.decl), guess, _assumed_stride(acc, block),
                                        _misaligned(r)) if g)
            instance = ", ".join(w for w in (_instance(facts, gkey[0]), bound) if w)
            out.hits[loc] = _Hit(acc, block, r, ref_r, gkey, instance, guesses)
        conflicted |= not r.conflict_free
    accs = concrete
    plan = out.plans.get(gkey)
    if plan is None or (conflicted and not plan.advice):
        plan = _ArrayPlan(accs[0].decl, block, accs)
        plan.unused_padding = _unused_padding(accs)
        if conflicted:
            plan.advice, plan.edit = _layout_advice(model, facts, block, accs)
        out.plans[gkey] = plan


# ------------------------------------------------------------------------------------------- layout advice

def _union_samples(accs: Sequence[LdsAccess]) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for a in accs:
        out.update(a.samples)
    return out


def _other_shared_bytes(facts: FileFacts, decl: SharedDecl) -> int:
    return sum(d.total_bytes or 0 for d in facts.shared
               if d.function in (decl.function, "") and d.ref != decl.ref)


def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n} B"


def _layout_advice(model: LdsModel, facts: FileFacts, block: BlockGuess,
                   accs: list[LdsAccess]) -> tuple[str, tuple[Edit, ...]]:
    decl = accs[0].decl
    elem = decl.elem_bytes or 0
    subscripted = all(a.indices is not None and a.width % elem == 0 for a in accs) if elem else False
    other = _other_shared_bytes(facts, decl)
    if subscripted and len(decl.dims) >= 2 and all(d for d in decl.dims):
        dims = tuple(int(d) for d in decl.dims)  # type: ignore[arg-type]
        # A row that is already padded (e.g. [32 + 4] for NVIDIA) is searched from its unpadded width, so that
        # "less padding" can be the answer too.
        padded = padded_width(dims[-1])
        base = padded[0] if padded else dims[-1]
        array = SharedArray(decl.name, dims[:-1] + (base,), elem)
        arr_accs = [ArrayAccess(indices=a.indices, vector=a.width // elem, op=a.op,  # type: ignore[arg-type]
                                predicate=a.predicate) for a in accs]
        try:
            # small paddings first (the usual answer); the full search only when they fail
            res = find_padding(model, array, arr_accs, block.dims, samples=_union_samples(accs),
                               other_shared_bytes=other, max_pad=min(4, _max_pad(model, elem)))
            if res.padding is None or not res.padding.fits:
                res = find_padding(model, array, arr_accs, block.dims, samples=_union_samples(accs),
                                   other_shared_bytes=other)
        except (LdsModelError, ValueError):
            return "", ()
        return _describe_layout(model, res, decl, facts, dims[-1] - base)
    if len(decl.dims) == 1 and subscripted and all(a.width == elem for a in accs):
        return _skew_advice(model, facts, block, accs, other), ()
    if subscripted and any(d is None for d in decl.dims):
        return (f"the extents of '{decl.name}' are not all known here (a template parameter or an extern array), "
                "so no padding was searched: pad the innermost dimension or XOR-swizzle the column"), ()
    return ("the array is indexed through flattened or reinterpreted addresses, so the declaration cannot be "
            "padded mechanically: pad the row stride in the index arithmetic or XOR-swizzle the column"), ()


def _max_pad(model: LdsModel, elem: int) -> int:
    """find_padding's own default bound: one pass of the widest bank table, in elements, minus one."""
    return max(1, model.max_bytes_per_pass // elem) - 1


def _describe_layout(model: LdsModel, res: PaddingResult, decl: SharedDecl, facts: FileFacts,
                     declared_pad: int = 0) -> tuple[str, tuple[Edit, ...]]:
    """Words (and the declaration edit) for the layout search; pads in `res` count from the unpadded width,
    `declared_pad` is what the declaration already adds."""
    limit = _kib(res.limit_bytes)
    shape = "".join(f"[{d}]" for d in decl.dims[:-1])
    parts: list[str] = []
    edits: tuple[Edit, ...] = ()
    p = res.padding
    if p is not None:
        fits = "fits" if p.fits else "does NOT fit"
        size = f"{p.bytes} B of LDS (workgroup {p.total_bytes} B, {fits} in {limit})"
        delta = p.pad - declared_pad
        if delta > 0:
            parts.append(f"pad the innermost dimension by {delta}: {decl.name}{shape}[{decl.dims[-1]} + {delta}] "
                         f"is conflict-free, {size}")
            if p.fits:
                edits = _pad_edit(facts, decl, delta)
        else:
            base = int(decl.dims[-1]) - declared_pad  # type: ignore[arg-type]
            parts.append(f"the declared padding of {declared_pad} is what conflicts here: a row of {base} + "
                         f"{p.pad} = {base + p.pad} elements ({decl.name}{shape}[{base + p.pad}]) is conflict-free, "
                         f"{size}")
    elif res.best_padding.degree == float("inf"):
        # every padding, none included, leaves a vector access off its alignment: padding is not the lever
        parts.append(f"a vector access of '{decl.name}' starts off its own width's alignment under every padding "
                     f"up to {res.max_pad}: start each lane's vector at a multiple of its width, or move it in "
                     "narrower pieces")
    else:
        parts.append(f"no padding up to {res.max_pad} removes every conflict (best: {res.best_padding.pad}, "
                     f"{res.best_padding.degree:g}-way)")
    s = res.swizzle
    if s is not None and s.swizzle is not None:
        parts.append(f"{'or ' if p is not None else ''}XOR-swizzle the column without extra LDS: "
                     f"col' = {s.swizzle.describe()} with row = the second-to-last index")
    return "; ".join(parts), edits


def _pad_edit(facts: FileFacts, decl: SharedDecl, pad: int) -> tuple[Edit, ...]:
    """`[N]` -> `[N + P]` on the declaration's innermost dimension, when its text is plainly there."""
    loc = decl.loc
    if loc.end_line not in (0, loc.line):
        return ()
    line = facts.byte_line(loc.line)
    start = loc.col - 1
    end = loc.end_col - 1 if loc.end_col else len(line)
    text = line[start:end]
    m = re.search(rf"\b{re.escape(decl.name)}\s*((?:\[[^\[\]]+\]\s*)+)", text)
    if m is None:
        return ()
    groups = list(re.finditer(r"\[([^\[\]]+)\]", m.group(1)))
    if len(groups) != len(decl.dims):
        return ()
    inner = groups[-1]
    col0 = start + m.start(1) + inner.start(1)
    col1 = start + m.start(1) + inner.end(1)
    old = from_byte_text(line[col0:col1]).strip()
    return (Edit(loc.line, col0 + 1, loc.line, col1 + 1, f"{old} + {pad}"),)


def _skew_advice(model: LdsModel, facts: FileFacts, block: BlockGuess, accs: list[LdsAccess], other: int) -> str:
    """For a 1-D array: does one padding element per bank row (i + i / R) make every access conflict-free?"""
    decl = accs[0].decl
    elem = decl.elem_bytes or 4
    per_row = max(1, model.banks * model.bank_width_bytes // elem)
    ok = True
    for a in accs:
        i = a.indices[0]  # type: ignore[index]
        skewed: Expr = ("*", ("+", i, ("/", i, per_row)), elem)
        try:
            r = analyze(model, Access(address=skewed, elem_bytes=elem, op=a.op,  # type: ignore[arg-type]
                                      predicate=a.predicate), block.dims, samples=a.samples)
        except (LdsModelError, ValueError):
            ok = False
            break
        ok &= r.conflict_free
    if not ok:
        return ("the stride itself is the problem: change the indexing (e.g. sequential addressing, "
                "sdata[tid] += sdata[tid + s] with s halving) rather than the layout")
    n = decl.dims[0]
    size = f"{(n + n // per_row) * elem} B" if n else f"N + N/{per_row} elements"
    fits = ""
    if n:
        total = (n + n // per_row) * elem + other
        fits = f", {'fits' if total <= model.limit_bytes else 'does NOT fit'} in {_kib(model.limit_bytes)}"
    return (f"skip one element every {per_row}: index i + (i / {per_row}) (CONFLICT_FREE_OFFSET style) is "
            f"conflict-free for every access of '{decl.name}'; {size}{fits}")


# ----------------------------------------------------------------------------------------------- LDS-003

def _lane_strides(acc: LdsAccess) -> set[int]:
    """The byte strides of the terms of the access's offset that vary across lanes; a row index computed as
    tid / C or tid % C is one such term (affine_of's opaque terms)."""
    form = affine_of(acc.offset, opaque=True)
    return {abs(c) for s, c in form.coeffs.items() if depends_on_thread(s)} if form is not None else set()


def _unused_padding(accs: list[LdsAccess]) -> dict[int, _Bypass]:
    decl = accs[0].decl
    elem = decl.elem_bytes or 0
    if not elem or not decl.dims or any(d is None for d in decl.dims):
        return {}
    strides = [(a, _lane_strides(a)) for a in accs]
    out: dict[int, _Bypass] = {}
    if len(decl.dims) >= 2:
        padded = padded_width(int(decl.dims[-1]))  # type: ignore[arg-type]
        if padded is None:
            return {}
        c0, pad = padded
        row = int(decl.dims[-1]) * elem  # type: ignore[arg-type]
        padded_line = next((a.node.loc.line for a, ss in strides
                            if a.indices is not None or any(c % row == 0 for c in ss)), 0)
        for a, ss in strides:
            if a.indices is None and any(c % (c0 * elem) == 0 for c in ss) and not any(c % row == 0 for c in ss):
                out[id(a.node)] = _Bypass(f"declared [{decl.dims[-1]}] = {c0} + {pad} per row but indexed with a "
                                          f"row stride of {c0}", padded_line)
        return out
    n = int(decl.dims[0])  # type: ignore[arg-type]
    for a, ss in strides:
        steps = {s // elem for s in ss if s % elem == 0}
        # a lane stride that is itself a padded row dividing the buffer (72 = 64 + 8 of 32 x 72) means the
        # access steps rows by the padded width; its smaller strides are column steps within a row
        padded_rows = {s for s in steps if n % s == 0 and padded_width(s) is not None}
        for c in sorted(steps, reverse=True):
            if any(r > c for r in padded_rows):
                break
            if c < 8 or c & (c - 1):
                continue
            pad = next((p for p in range(1, min(8, c // 4) + 1) if n % (c + p) == 0 and n // (c + p) >= 2), 0)
            if pad:
                padded_line = next((b.node.loc.line for b, bs in strides
                                    if any(s % ((c + pad) * elem) == 0 for s in bs)), 0)
                out[id(a.node)] = _Bypass(f"sized {n} = {n // (c + pad)} x ({c} + {pad}) but indexed with a row "
                                          f"stride of {c}", padded_line)
                break
    return out


# --------------------------------------------------------------------------------------------- messages

def _ranges(lanes: Sequence[int], limit: int = 8) -> str:
    parts: list[str] = []
    lanes = list(lanes)
    i = 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        parts.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    text = ", ".join(parts[:limit])
    return text + (f", ... ({len(lanes)} lanes)" if len(parts) > limit else "")


def _instance(facts: FileFacts, usr: str) -> str:
    fn = facts.function(usr)
    if fn is None or not fn.template_args:
        return ""
    return f"{fn.name}<" + ", ".join(f"{k} = {v}" if not k.isdigit() else v for k, v in fn.template_args) + ">"


def _where(hit: _Hit) -> str:
    env = {**dict(hit.result.env), "bdim.x": hit.block.dims[0], "bdim.y": hit.block.dims[1],
           "bdim.z": hit.block.dims[2]}
    bits = []
    for sym, name, value in hit.acc.loop_vars:
        if sym in env:
            try:
                bits.append(f"{name} = {evaluate(value, env)}")
            except EvalError:
                bits.append(f"{name}: iteration {env[sym]}")
    wave = f"wave {hit.result.wave}" if hit.result.wave else ""
    ctx = ", ".join(b for b in [hit.instance, *hit.guesses, wave] + bits if b)
    return f" ({ctx})" if ctx else ""


def _degree(d: float) -> str:
    return f"{d:.2g}" if d != int(d) else str(int(d))


def _block_text(block: BlockGuess) -> str:
    return f"block {block.text()} {block.source}"


def _array_args(acc: LdsAccess | Unresolved) -> dict[str, str]:
    """The name written at the access, the array it points into when that is another name, and the helper that
    makes the access when the line is a call passing the array on."""
    name = acc.written or acc.decl.name
    parts = ([f"into '{acc.decl.name}'"] if name != acc.decl.name else []) + ([acc.via] if acc.via else [])
    return {"array": name, "into": f" ({', '.join(parts)})" if parts else ""}


def _conflict_args(hit: _Hit, plan: _ArrayPlan | None, target: Target) -> dict[str, str]:
    r = hit.result
    worst = r.worst
    return {
        "degree": _degree(r.degree), "target": target.name, "op": hit.acc.op, **_array_args(hit.acc),
        "instruction": r.instruction, "width": str(r.width_bytes),
        "phase": _ranges(worst.lanes) if worst else "", "lanes": _ranges(r.colliding_lanes),
        "bank": str(r.worst_bank), "where": _where(hit), "status": r.status,
        "cycles": str(r.cycles), "ideal": str(r.ideal_cycles),
        "advice": plan.advice if plan and plan.advice else "no layout change found; restructure the indexing",
        "block": _block_text(hit.block),
        "reference": _degree(hit.reference.degree) if hit.reference else "?",
        "reference_instruction": hit.reference.instruction if hit.reference else "",
    }


def _severity(degree: float, params: dict[str, Any]) -> str:
    return "warning" if degree >= float(params.get("warning_degree", 4)) else "note"


def _confidence(hit: _Hit) -> str:
    guesses = int(hit.block.assumed or hit.result.status == "inferred") + len(hit.guesses)
    return ("high", "medium", "low")[min(guesses, 2)]


def _loc(node: Node) -> Loc:
    return node.loc


def _conflicts(ctx: RuleContext, params: dict[str, Any]) -> Iterator[tuple[_Hit, _ArrayPlan | None]]:
    fa = file_analysis(ctx, params)
    for loc, hit in sorted(fa.hits.items()):
        if hit.result.conflict_free:
            continue
        plan = fa.plans.get(hit.key)
        if plan is not None and id(hit.acc.node) in plan.unused_padding:
            continue  # LDS-003 names the cause
        yield hit, plan


# ------------------------------------------------------------------------------------------------ matchers

def _amd_only(hit: _Hit) -> bool:
    """Conflict-free on the reference (NVIDIA) target: LDS-002's case. A misaligned vector access is a fault
    there, not a conflict-free layout, so it stays LDS-001's."""
    ref = hit.reference
    return ref is not None and ref.conflict_free and ref.aligned


def bank_conflict(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    """LDS-001: conflicted on the target and on the reference (NVIDIA) target too, or no reference."""
    for hit, plan in _conflicts(ctx, params):
        if _amd_only(hit):
            continue  # LDS-002
        args = _conflict_args(hit, plan, ctx.target)
        yield Match(loc=_loc(hit.acc.node), args=args, severity=_severity(hit.result.degree, params),
                    confidence=_confidence(hit), edits=plan.edit if plan else (), suggestion=args["advice"])


def amd_only_conflict(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    """LDS-002: conflict-free under the reference (NVIDIA) phases, conflicted on the target."""
    for hit, plan in _conflicts(ctx, params):
        if not _amd_only(hit):
            continue
        args = _conflict_args(hit, plan, ctx.target)
        yield Match(loc=_loc(hit.acc.node), args=args, severity=_severity(hit.result.degree, params),
                    confidence=_confidence(hit), edits=plan.edit if plan else (), suggestion=args["advice"])


def padding_unused(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    """LDS-003: a padded declaration indexed as if unpadded, where that costs something: the access conflicts
    (the padding was there to prevent it), or another access uses the padded row (they name different
    elements). A buffer indexed consistently with the unpadded row and without conflicts only wastes LDS."""
    fa = file_analysis(ctx, params)
    seen: set[int] = set()
    for plan in fa.plans.values():
        for acc in plan.accesses:
            bypass = plan.unused_padding.get(id(acc.node))
            if bypass is None or id(acc.node) in seen:
                continue
            seen.add(id(acc.node))
            hit = fa.hits.get((acc.node.loc.line, acc.node.loc.col))
            conflicted = hit is not None and not hit.result.conflict_free
            if not conflicted and not bypass.padded_line:
                continue
            cost = ""
            if bypass.padded_line:
                cost = (f"; line {bypass.padded_line} indexes it with the padded row, so the two accesses do not "
                        "name the same elements")
            if conflicted:
                cost += f"; as indexed, {hit.result.instruction} is {_degree(hit.result.degree)}-way conflicted"
            yield Match(loc=_loc(acc.node), args={**_array_args(acc), "why": bypass.why, "cost": cost,
                                                  "block": _block_text(plan.block)})


def undetermined(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    """LDS-000 (explain only): accesses whose lane mapping the model could not derive."""
    fa = file_analysis(ctx, params)
    for (line, col), (u, block) in sorted(fa.unresolved.items()):
        if (line, col) in fa.hits:
            continue  # another instantiation or block resolved it
        guess = assumed_shared(u.decl)
        yield Match(loc=_loc(u.node), args={**_array_args(u), "reason": f"{u.reason} ({guess})" if guess else u.reason,
                                            "block": _block_text(block)})
