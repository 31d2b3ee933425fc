"""Matchers for the wave64 rules: code that assumes 32-lane warps where gfx942 runs 64-lane wavefronts.

Each matcher takes (ctx, params) (porter.rule_context) and yields Match records; the rule's TOML file holds its words.
The guiding fact (docs/hardware.md "Cross-lane operations on a 64-lane wavefront"): HIP's cross-lane operations act on the whole wavefront unless
given a width, and masks are 64 bits. Code organized in 32-lane groups is correct on wave64 as long as nothing
it does crosses a group boundary; rules look for the places where something does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from weakref import WeakKeyDictionary

from porter.facts import Diagnostic, FileFacts, Launch, Loc, MacroUse, Node, Param, from_byte_text, undeclared_identifier
from porter.findings import Edit, Match
from porter.fact_queries import (BIT_OPS_32, LANE32, LANEW, MASK_PRODUCERS, SHUFFLES, SYNC_WITH_MASK, TID, TORCH_WAVE, W,
                       W_HALF, W_MINUS_1, WARP32, WARPW, WAVE_WIDE, DEVICE_WAVE_TEXT, GROUP_ID_OPS, FileView,
                       FunctionView, call_args, device_wave_vars, host_wave_value, int_bits, involves_device_wave,
                       is_32bit_int, is_64bit, is_device_wave_query, same_expr, shuffle_parts, strip, undeclared_shuffle,
                       undeclared_warp_reduce, width_shadowed_at)
from porter.lds.access_offsets import (AccessWalker, LdsAccess, Undetermined, function_blocks, function_views,
                                      param_derefs, uses_dim)
from porter.lds.affine import EvalError, compile_fn, symbols
from porter.rule_context import RuleContext
from porter.targets import Target



def _device_views(fv: FileView) -> Iterator[FunctionView]:
    """The file's device functions, less those that only kernels launched for narrower wavefronts run and the
    narrow instances of templates whose lane-group width is a template parameter set to the wavefront's width too."""
    idle = _narrow_wave_only(fv) | _judged_at_wave_width(fv)
    return (v for v in fv.views if v.fn.kind != "host" and id(v) not in idle)


_WIDTH_JUDGED: WeakKeyDictionary[FileView, frozenset[int]] = WeakKeyDictionary()


def _judged_at_wave_width(fv: FileView) -> frozenset[int]:
    """Template instances (ids of their views) whose 32-lane ids (`tid & (WFSIZE - 1)`, `tid / WFSIZE`) are, at the
    same places, the wavefront's lane and wavefront ids in another instance of the same template (WFSIZE = 64):
    the group width is a parameter the host fills, with the device's width (rocSPARSE's
    `handle->wavefront_size == 32 ? k<256, 32> : k<256, 64>`) or with a sub-group width of its choice, and code
    written for every width up to the wavefront is judged by its instance at the wavefront's width, where what
    it assumes about the wavefront shows. The narrow instances repeat that code for groups that are not
    warps: a 32-wide one is no 32-lane warp assumption (the file's plain `tid % 32` code is still judged)."""
    if fv not in _WIDTH_JUDGED:
        instances: dict[str, list[FunctionView]] = {}
        for v in fv.views:
            if v.fn.kind != "host" and v.fn.template_args and "<" in v.fn.usr:
                instances.setdefault(v.fn.usr.split("<", 1)[0], []).append(v)
        judged: set[int] = set()
        for views in (vs for vs in instances.values() if len(vs) > 1):
            ids = {id(v): {(n.loc.line, n.loc.col): v.lane_class(n) for n in v.nodes()
                           if n.kind == "binop" and n.op in GROUP_ID_OPS} for v in views}
            for v in views:
                narrow = [at for at, c in ids[id(v)].items() if c in (LANE32, WARP32)]
                if narrow and any(all(ids[id(o)].get(at) in (LANEW, WARPW) for at in narrow)
                                  for o in views if o is not v):
                    judged.add(id(v))
        _WIDTH_JUDGED[fv] = frozenset(judged)
    return _WIDTH_JUDGED[fv]


_NARROW_ONLY: WeakKeyDictionary[FileView, frozenset[int]] = WeakKeyDictionary()


def _narrow_wave_only(fv: FileView) -> frozenset[int]:
    """Device functions (ids of their views) that run only in kernels every launch of which sits in a branch
    that a 64-lane device does not take: `if (warpSize == 32) k<<<...>>>(); else k2<<<...>>>();` with the width
    asked from the device at run time (atomicAggregate's 32-lane atomicAggInc beside its 64-lane twin). Such code
    never runs on gfx942, whatever it assumes. A kernel the file does not launch, or a helper no kernel here
    calls, is kept: its launches are elsewhere."""
    if fv not in _NARROW_ONLY:
        launches: dict[str, list[Launch]] = {}
        for launch in fv.facts.launches:
            launches.setdefault(launch.kernel_usr, []).append(launch)
        # by caller too: a host template's pattern and its instantiations hold the same launch at one place
        placed = {(v.fn.usr, n.loc.line, n.loc.col): (v, n) for v in fv.views if v.fn.kind in ("host", "host_device")
                  for n in v.nodes() if n.kind == "launch"}
        narrow = {usr for usr, found in launches.items() if all(_untaken_at_wave(placed, la, 64) for la in found)}
        reach = [(k.fn.usr in narrow, {id(k)} | {id(c) for c in fv.callees(k)}) for k in fv.views
                 if k.fn.kind == "kernel"] if narrow else []
        idle = {id(v) for v in fv.views if (runs := [n for n, ids in reach if id(v) in ids]) and all(runs)}
        # a template pattern stands for its instantiations: idle when every one of them is
        for v in (v for v in fv.views if v.fn.is_template and not v.fn.template_args):
            instances = [i for i in fv.views if i.fn.usr.startswith(v.fn.usr + "<")]
            if instances and all(id(i) in idle for i in instances):
                idle.add(id(v))
        _NARROW_ONLY[fv] = frozenset(idle)
    return _NARROW_ONLY[fv]


def _untaken_at_wave(placed: dict[tuple[str, int, int], tuple[FunctionView, Node]], launch: Launch, wave: int) -> bool:
    """The launch (found among the host functions' launch nodes by its caller and place) sits in a branch of an
    `if` whose test asks the device's wavefront width and, with that width `wave`, goes the other way."""
    host, node = placed.get((launch.caller, launch.loc.line, launch.loc.col), (None, None))
    if host is None or node is None:
        return False
    filled = device_wave_vars(host)
    for then, test in _enclosing_ifs(host, node):
        cond = test.children[0]
        value = host_wave_value(host, cond, {}, filled, wave) if involves_device_wave(host, cond, filled) else None
        if value is not None and bool(value) != then:
            return True
    return False


def _text(facts: FileFacts, loc: Loc) -> str:
    """The source text of a single-line location range."""
    if loc.end_line != loc.line:
        return ""
    return from_byte_text(facts.byte_line(loc.line)[loc.col - 1:loc.end_col - 1])


def _spell(facts: FileFacts, node: Node) -> str:
    t = _text(facts, node.loc)
    return t if t else node.op or str(node.value)


def _replace(facts: FileFacts, node: Node, old: str, new: str) -> tuple[Edit, ...]:
    """An edit replacing `old` at node's start, only when the source there really spells `old`."""
    loc = node.loc
    if facts.byte_line(loc.line)[loc.col - 1:loc.col - 1 + len(old)] == old:   # `old` is ASCII code
        return (Edit(loc.line, loc.col, loc.line, loc.col + len(old), new),)
    return ()


# ------------------------------------------------------------------------------------------ shared analyses

def _loop_parts(view: FunctionView, loop: Node) -> tuple[str, int | str | None, str, Node, Node | None] | None:
    """(variable id, start value, direction 'down'|'up'|'', body, the init value node) of a counted loop."""
    init, cond, inc, body = loop.children if len(loop.children) == 4 else (None, None, None, None)
    if init is None or body is None:
        return None
    var, start_node = "", None
    if init.kind == "decls" and init.children and init.children[0].kind == "decl" and init.children[0].children:
        var, start_node = init.children[0].ref, init.children[0].children[0]
    elif init.kind == "binop" and init.op == "=" and strip(init.children[0]).kind == "ref":
        var, start_node = strip(init.children[0]).ref, init.children[1]
    if not var or start_node is None:
        return None
    direction = ""
    if inc is not None and inc.kind == "binop" and inc.children and strip(inc.children[0]).ref == var:
        if inc.op in ("/=", ">>="):
            direction = "down"
        elif inc.op in ("*=", "<<="):
            direction = "up"
        elif inc.op == "=" and len(inc.children) == 2 and inc.children[1].kind == "binop":
            direction = {"/": "down", ">>": "down", "*": "up", "<<": "up"}.get(inc.children[1].op, "")
    return var, view.const(start_node), direction, body, start_node


def _runs_to_one(view: FunctionView, cond: Node) -> bool:
    """A halving loop's condition lets it reach offset 1 (`o > 0`, `o >= 1`, `o != 0`, `o`), or may: a bound
    known only at run time that is the same for every thread (`o >= lanes`, apex's reduce_block_into_lanes with
    lanes = 1 by default). A loop that stops at a constant earlier (`o >= 4`) combines a data-layout-defined
    subgroup of lanes, not the warp."""
    if cond.kind != "binop" or len(cond.children) != 2:
        return cond.kind in ("ref", "cast")
    limit = cond.children[1]
    bound = view.const(limit)
    if bound is None and cond.op in (">", ">=") and not view.depends_on_thread(limit):
        return True
    return (cond.op, bound) in ((">", 0), (">=", 1), ("!=", 0))


def _uses_var(node: Node, var: str) -> bool:
    return any(n.kind == "ref" and n.ref == var for n in node.walk())


def _half_wave_shuffles(view: FunctionView) -> Iterator[tuple[Node, Node, Node | None, str]]:
    """Shuffle reductions and scans whose steps span only 32 lanes: (shuffle call, place to report,
    start-value node, kind 'reduction'|'scan'). Left out: a scan whose step is guarded by a 32-lane id (it scans
    the groups the code numbers, see _guarded_by_group_lane), and a reduction that also takes an offset-32 step on
    the same value (the tree covers the wavefront, as under an `#if __GFX9__` that adds it)."""
    for call, place, start_node, kind in _short_shuffle_trees(view):
        if kind == "scan" and _guarded_by_group_lane(view, call):
            continue
        if kind == "reduction" and _completed_at_32(view, call):
            continue
        yield call, place, start_node, kind


def _completed_at_32(view: FunctionView, call: Node) -> bool:
    """A single further down/xor step of the same variable at offset 32 (or warpSize / 2 on a 64-lane wavefront),
    not a loop of its own: with it the 16..1 steps reduce all 64 lanes (gc's `wpcol &= __shfl_xor(wpcol, 32)`
    under `#if __GFX9__`). A second tree from warpSize / 2 over the same variable is another reduction."""
    value = shuffle_parts(call)[0]
    var = strip(value).ref if value is not None and strip(value).kind == "ref" else ""
    if not var:
        return False
    for other in view.calls(SHUFFLES):
        v, offset, _ = shuffle_parts(other)
        if other is call or v is None or offset is None or strip(v).kind != "ref" or strip(v).ref != var:
            continue
        looped = any(parts is not None and _uses_var(offset, parts[0])
                     for parts in (_loop_parts(view, a) for a in view.ancestors(other) if a.kind == "for"))
        if not looped and other.op.removesuffix("_sync") in ("__shfl_xor", "__shfl_down") \
                and view.const(offset) in (32, W_HALF):
            return True
    return False


def _short_shuffle_trees(view: FunctionView) -> Iterator[tuple[Node, Node, Node | None, str]]:
    """Every shuffle loop or step that stops at 32 lanes, as _half_wave_shuffles yields them."""
    in_loops: set[int] = set()
    for loop in (n for n in view.nodes() if n.kind == "for"):
        parts = _loop_parts(view, loop)
        if parts is None:
            continue
        var, start, direction, body, start_node = parts
        cond = loop.children[1]
        for call in (c for c in body.walk() if c.kind == "call" and c.op in SHUFFLES):
            _, offset, _ = shuffle_parts(call)
            if offset is None or not _uses_var(offset, var):
                continue
            in_loops.add(id(call))
            if direction == "down" and start == 16 and _runs_to_one(view, cond):
                yield call, start_node or call, start_node, "reduction"
            elif direction == "up" and start == 1 and call.op.startswith("__shfl_up") and cond.kind == "binop" \
                    and len(cond.children) == 2:
                bound = view.const(cond.children[1])
                if (cond.op == "<" and bound == 32) or (cond.op == "<=" and bound == 16):
                    yield call, call, None, "scan"
    for call in view.calls({"__shfl", "__shfl_sync"}):
        # a rotation tree over source lanes wrapped by 32 (`(tid + (1 << l)) & 31`) under a 64-wide shuffle: lanes
        # 32-63 read the first half, whose values then never reach their own
        _, src, width = shuffle_parts(call)
        if src is not None and width is not None and view.const(width) in (64, W) \
                and view.lane_class(src) == LANE32 and any(a.kind == "for" for a in view.ancestors(call)):
            yield call, call, None, "reduction over source lanes taken modulo 32"
    for call in view.calls(SHUFFLES):
        if id(call) in in_loops or not (call.op.startswith("__shfl_down") or call.op.startswith("__shfl_xor")):
            continue
        _, offset, _ = shuffle_parts(call)
        if offset is not None and view.const(offset) == 16:
            yield call, offset, None, "reduction"


def _broadcast_of(view: FunctionView, consumers: list[FunctionView], call: Node) -> Node | None:
    """A default-width `__shfl(x, 0)` after the reduction whose x is the reduced value: the variable itself in
    the same function, or a variable a caller defined from this helper's result."""
    value = shuffle_parts(call)[0]
    reduced = strip(value).ref if value is not None else ""
    for v in consumers:
        for b in v.calls({"__shfl", "__shfl_sync"}):
            src = shuffle_parts(b)
            if not _is_default_width(b) or src[1] is None or v.const(src[1]) != 0 or src[0] is None \
                    or _group_copies(v, b):
                continue
            arg = strip(src[0])
            if v is view and b.loc.line >= call.loc.line and arg.kind == "ref" and arg.ref == reduced:
                return b
            if v is not view and arg.kind == "ref" and any(
                    n.kind == "call" and n.op == view.fn.name for d in v.defs.get(arg.ref, []) for n in d.walk()):
                return b
    return None


def _group_copies(view: FunctionView, call: Node) -> bool:
    """The value a default-width shuffle reads is equal at the same lane of every 32-lane group, so reading
    lane `src` (< 32) of the wavefront gives each group what its own lane `src` holds. The shape is a block
    reduction's second stage: after the last barrier before the shuffle the variable is set from memory at a
    32-lane id (`v = lane < NUM_WARPS ? red[lane] : 0`: every group reads the same slots) and then only combined
    through xor shuffles, which keep group-equal values group-equal whatever their offset. A load under
    `if (lane < n)` leaves the other lanes' own values, so there every later xor offset must stay below n."""
    value, src, _ = shuffle_parts(call)
    if value is None or src is None or strip(value).kind != "ref":
        return False
    s = view.const(src)
    if not (isinstance(s, int) and 0 <= s < 32) and view.lane_class(src) != LANE32:
        return False
    var, at = strip(value).ref, _pos(call)
    barrier = max((_pos(c) for c in view.calls({"__syncthreads"}) if _pos(c) < at), default=None)
    writes = sorted((w for w in _writes(view, var) if barrier is not None and barrier < _pos(w[0]) < at),
                    key=lambda w: _pos(w[0]))
    if not writes or not _group_equal_load(view, writes[0][1]):
        return False
    guards = _thread_guards(view, writes[0][0])
    if len(guards) > 1 or (guards and not _group_lane_below(view, guards[0])):
        return False
    bound = guards[0].children[1] if guards else None
    return all(not _thread_guards(view, w) and _xor_combines(view, w, rhs, var, bound) for w, rhs in writes[1:])


def _pos(node: Node) -> tuple[int, int]:
    return node.loc.line, node.loc.col


def _writes(view: FunctionView, var: str) -> Iterator[tuple[Node, Node]]:
    """(statement, value written) of each assignment to a variable, compound ones included."""
    for n in view.nodes():
        if n.kind == "decl" and n.ref == var and n.children and n.children[0].kind != "bounds":
            yield n, n.children[0]
        elif n.kind == "binop" and n.op.endswith("=") and n.op not in ("==", "!=", "<=", ">=") \
                and len(n.children) == 2 and strip(n.children[0]).kind == "ref" and strip(n.children[0]).ref == var:
            yield n, n.children[1]


def _thread_guards(view: FunctionView, node: Node) -> list[Node]:
    """The conditions that depend on the thread of the ifs whose branch holds the node."""
    out, child = [], node
    for a in view.ancestors(node):
        if a.kind == "if" and a.children and a.children[0] is not child and view.depends_on_thread(a.children[0]):
            out.append(a.children[0] if len(a.children) > 1 and a.children[1] is child else a)
        child = a
    return out


def _group_lane_below(view: FunctionView, cond: Node) -> bool:
    """`lane < n` with lane a 32-lane id (an if's else branch arrives here as the if itself: no)."""
    return cond.kind == "binop" and cond.op == "<" and len(cond.children) == 2 \
        and view.lane_class(cond.children[0]) == LANE32 and not view.depends_on_thread(cond.children[1])


def _group_equal(view: FunctionView, node: Node) -> bool:
    """Equal at the same lane of every 32-lane group: values the same in every thread, 32-lane ids, and what
    is computed or loaded from those alone."""
    node = strip(node)
    if not view.depends_on_thread(node) or view.lane_class(node) == LANE32:
        return True
    if node.kind in ("call", "mcall") and node.op in SHUFFLES | WAVE_WIDE:
        return False
    return node.kind in ("binop", "unop", "cond", "cast", "index", "call", "mcall") and bool(node.children) \
        and all(_group_equal(view, c) for c in node.children)


def _group_equal_load(view: FunctionView, node: Node) -> bool:
    """A group-equal value read from memory at a 32-lane id."""
    return _group_equal(view, node) and any(n.kind == "index" and len(n.children) == 2
                                            and view.lane_class(n.children[1]) == LANE32 for n in node.walk())


def _xor_combines(view: FunctionView, stmt: Node, rhs: Node, var: str, bound: Node | None) -> bool:
    """The value combines the variable with xor shuffles of it and group-equal values; under a `lane < bound`
    load each offset must stay below the bound."""
    for n in rhs.walk():
        if n.kind in ("call", "mcall") and n.op in SHUFFLES | WAVE_WIDE:
            offset = shuffle_parts(n)[1]
            if not n.op.startswith("__shfl_xor") or offset is None or \
                    (bound is not None and not _below(view, stmt, offset, bound)):
                return False
        elif n.kind == "ref" and n.ref != var and not _group_equal(view, n):
            return False
    return True


def _below(view: FunctionView, stmt: Node, offset: Node, bound: Node) -> bool:
    """The offset is less than the bound: both constants, or a halving loop's variable that starts at half the
    bound (`for (m = n >> 1; m > 0; m >>= 1)`)."""
    o, b = view.const(offset), view.const(bound)
    if isinstance(o, int) and isinstance(b, int):
        return o < b
    ref = strip(offset)
    for loop in (a for a in view.ancestors(stmt) if a.kind == "for"):
        parts = _loop_parts(view, loop)
        if parts is None or parts[0] != ref.ref or parts[2] != "down" or parts[4] is None:
            continue
        start = strip(parts[4])
        if isinstance(parts[1], int) and isinstance(b, int):
            return parts[1] < b
        return start.kind == "binop" and len(start.children) == 2 and same_expr(strip(start.children[0]), strip(bound)) \
            and (start.op, view.const(start.children[1])) in ((">>", 1), ("/", 2))
    return False


def _consumers(fv: FileView, view: FunctionView) -> list[FunctionView]:
    """The function itself and, for a device helper, the functions that call it (directly, or as a template
    argument: blockReduce<warpReduceSum>)."""
    out = [view]
    if view.fn.kind != "kernel":
        out += list(fv.callers(view))
        out += [v for v in fv.template_argument_users(view) if all(v is not o for o in out)]
    return out


def _wave_organized(views: Iterable[FunctionView]) -> FunctionView | None:
    """A function that numbers lanes or warps by the hardware wavefront (warpSize, 64, __lane_id)."""
    return next((v for v in views if {LANEW, WARPW} & v.lane_classes), None)


def _amd_native(views: Iterable[FunctionView]) -> bool:
    """Written for AMD wavefronts (an amdgcn cross-lane builtin is called): its 32-lane halves are addressed
    knowingly, so a default-width shuffle there spans the wavefront on purpose."""
    return any(v.amd_cross_lane is not None for v in views)


def _group_organized(views: Iterable[FunctionView]) -> bool:
    return any({LANE32, WARP32} & v.lane_classes for v in views)


def _is_default_width(call: Node) -> bool:
    return shuffle_parts(call)[2] is None


def _lane_expr_text(facts: FileFacts, view: FunctionView, classes: set[str]) -> str:
    for node in view.nodes():
        if node.kind == "binop" and node.op in GROUP_ID_OPS and view.lane_class(node) in classes:
            return f"'{_spell(facts, node)}' at line {node.loc.line}"
        if node.kind == "call" and node.op == "__lane_id" and LANEW in classes:
            return f"'__lane_id()' at line {node.loc.line}"
    return "a wavefront-wide lane id"


# hipCUB/CUB WarpReduce: its second template argument is the logical warp width, defaulting to the hardware
# wavefront (64 on gfx942). Read from the source text, because the cub namespace usually comes from a header
# that is not on the include path and libclang drops these statements.
_WARP_REDUCE = re.compile(r"\b(?:\w+::)*WarpReduce\s*<")
_ALIAS = re.compile(r"(?:typedef\s+(?:typename\s+)?.*>\s*(\w+)\s*;|using\s+(\w+)\s*=)")


@dataclass(frozen=True)
class WarpReduceUse:
    alias: str                 # the typedef / using name, or '' when the type is used directly
    decl: Loc                  # where WarpReduce<...> is written
    reductions: tuple[Loc, ...]        # WarpReduce(storage).Sum(...) / .Reduce(...) calls
    storage: tuple[tuple[Loc, str], ...]   # TempStorage arrays: (place, bound as written)


def _template_args(text: str) -> list[str] | None:
    """The top-level comma-separated arguments of the <...> that `text` starts right after, or None."""
    depth, args, cur = 1, [], ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
            if depth == 0:
                return args + [cur.strip()]
        elif ch == "," and depth == 1:
            args, cur = args + [cur.strip()], ""
            continue
        cur += ch
    return None


def _default_warp_reduces(ctx: RuleContext, fn_loc: Loc) -> list[WarpReduceUse]:
    """WarpReduce types with the default logical width declared in a function's lines, with their uses (read
    once per function: three rules and every instantiation of a template ask)."""
    return ctx.shared(("wave64.warp_reduces", fn_loc), lambda: _read_warp_reduces(ctx.facts, fn_loc))


def _read_warp_reduces(facts: FileFacts, fn_loc: Loc) -> list[WarpReduceUse]:
    if "WarpReduce" not in "".join(facts.lines[fn_loc.line - 1:fn_loc.end_line]):
        return []
    first, last = fn_loc.line, min(fn_loc.end_line or fn_loc.line, len(facts.lines))
    lines = {i: _code(facts.lines[i - 1]) for i in range(first, last + 1)}
    out = []
    for i, code in lines.items():
        for m in _WARP_REDUCE.finditer(code):
            args = _template_args(code[m.end():] + " ".join(lines.get(j, "") for j in range(i + 1, i + 3)))
            if args is None or len(args) != 1:
                continue   # an explicit logical width
            alias = _ALIAS.search(code + " " + lines.get(i + 1, ""))
            name = (alias.group(1) or alias.group(2)) if alias else ""
            spelled = name or re.escape(code[m.start():m.end() - 1].strip())
            call = re.compile(rf"\b{name or spelled}\b(?:<[^;]*?>)?\s*\([^;]*\)\s*\.\s*(?:Sum|Reduce)\s*\(")
            store = re.compile(rf"\b{name or spelled}\s*::\s*TempStorage\s+(\w+)\s*\[([^\]]*)\]")
            reductions = tuple(Loc(facts.path, j, c.start() + 1, j, c.start() + 1 + len(name or "WarpReduce"))
                               for j, t in lines.items() if j >= i for c in call.finditer(t))
            storage = tuple((Loc(facts.path, j, c.start(1) + 1, j, c.end(1) + 1), c.group(2))
                            for j, t in lines.items() for c in store.finditer(t))
            out.append(WarpReduceUse(name, Loc(facts.path, i, m.start() + 1, i, m.end()), reductions, storage))
    return out


# --------------------------------------------------------------------------------------------------- W64-001

def shuffle_half_wave(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    device = list(_device_views(fv))
    file_wave = None if _group_organized(device) else _wave_organized(device)
    for view in _device_views(fv):
        for call, place, start_node, kind in _half_wave_shuffles(view):
            width = shuffle_parts(call)[2]
            width_value = view.const(width) if width is not None else None
            consumers = _consumers(fv, view)
            broadcast = _broadcast_of(view, consumers, call)
            wave_fn = _wave_organized(consumers)
            if width_value in (64, W) and _callers_read_per_group(view, consumers):
                continue  # every caller wants one result per 32-lane group: each half reduced itself
            elif width_value in (64, W):
                evidence, confidence = f"it passes width {_spell(facts, width)}", "high"
            elif broadcast is not None:
                # each half reduced itself correctly; the default-width broadcast is the line to change
                yield Match(broadcast.loc, {"kind": kind, "call": call.op, "line": str(call.loc.line),
                                            "evidence": f"'{_spell(facts, broadcast)}' broadcasts lane 0 of the "
                                                        f"whole {target.wave_size}-lane wavefront, so lanes 32-63 "
                                                        f"receive the result of lanes 0-31",
                                            "wave": str(target.wave_size)},
                            confidence="high", edits=_append_width(facts, broadcast))
                continue
            elif _reads_both_halves(view, call):
                continue  # the code names lane 32 as the second half's leader: each half's result is read
            elif wave_fn is not None:
                evidence = f"the code numbers lanes by the wavefront ({_lane_expr_text(facts, wave_fn, {LANEW, WARPW})})"
                confidence = "medium"
            elif (guard := _first_wave_guard(view, consumers, call, target)) is not None:
                evidence = f"only the first wavefront runs it ('{_spell(facts, guard)}' at line " \
                           f"{guard.loc.line}), all {target.wave_size} of its lanes holding values"
                confidence = "medium"
            elif len(consumers) == 1 and view.fn.kind != "kernel" and file_wave is not None:
                # a helper for other files: judge it by this file's notion of a warp
                evidence = f"nothing here reads it at lanes 0 and 32, and this file numbers lanes by the " \
                           f"wavefront ({_lane_expr_text(facts, file_wave, {LANEW, WARPW})})"
                confidence = "low"
            else:
                continue  # 32-lane groups read at lanes 0 and 32: correct on wave64
            edits: tuple[Edit, ...] = ()
            if start_node is not None and start_node.kind == "int" and not start_node.macro and width is None:
                edits = _replace(facts, start_node, "16", "warpSize / 2")
            yield Match(place.loc, {"kind": kind, "call": call.op, "line": str(call.loc.line), "evidence": evidence,
                                    "wave": str(target.wave_size)}, confidence=confidence, edits=edits)
    yield from _half_wave_helper_calls(facts, fv, target)


def _reads_both_halves(view: FunctionView, call: Node) -> bool:
    """After the shuffle, a test that picks lane 32 by its wavefront position (`lane == 0 || lane == 32` with
    lane = tid % 64, `threadIdx.x == 32`): the code reads a result at the leader of each 32-lane half, which is
    where a shuffle tree of offsets below 32 leaves one (vllm's 16-lane groups paired by `__shfl_xor(v, 16)`)."""
    for node in view.nodes():
        if node.kind != "binop" or node.op != "==" or len(node.children) != 2 or node.loc.line < call.loc.line:
            continue
        if any(view.const(k) == 32 and view.lane_class(lane) in (LANEW, TID)
               for lane, k in (node.children, node.children[::-1])):
            return True
    return False


def _callers_read_per_group(view: FunctionView, consumers: list[FunctionView]) -> bool:
    """A helper whose every caller in the file numbers lanes in 32-lane groups only (lane = tid & 31,
    wid = tid >> 5, nothing by the wavefront) and reads the result at a group's lane 0 (`lane == 0`): that is
    lanes 0 and 32 of each wavefront, where a tree of offsets 16..1 leaves each half's own result, whatever width
    the shuffles pass (Paddle's warpReduceSum under blockReduceSum's `if (lane == 0) shared[wid] = val`)."""
    callers = [c for c in consumers if c is not view]
    if view.fn.kind == "kernel" or not callers:
        return False
    for caller in callers:
        if not _group_organized([caller]) or _wave_organized([caller]) is not None:
            return False
        first = min((c.loc.line for c in caller.calls() if c.op == view.fn.name), default=caller.fn.loc.line)
        if not _reads_group_leader(caller, first):
            return False
    return True


def _reads_group_leader(view: FunctionView, after_line: int) -> bool:
    """From `after_line` on, a test that picks lane 0 of a 32-lane group (`lane == 0` with lane = tid % 32)."""
    for node in view.nodes():
        if node.kind != "binop" or node.op != "==" or len(node.children) != 2 or node.loc.line < after_line:
            continue
        if any(view.const(k) == 0 and view.lane_class(lane) == LANE32
               for lane, k in (node.children, node.children[::-1])):
            return True
    return False


def _first_wave_guard(view: FunctionView, consumers: list[FunctionView], call: Node, target: Target) -> Node | None:
    """The `if (tid < warpSize)` (or `< 64` on a 64-lane target) that hands the call to exactly the first
    wavefront, in code that has no 32-lane groups: the reduction is given a whole wavefront's values (apex's
    reduce_block_into_lanes folds x[tid] and x[tid + warpSize] into them)."""
    if _group_organized(consumers):
        return None
    return next((n for n, last in _thread_bounds(view, call) if last in (W_MINUS_1, target.wave_size - 1)), None)


def _half_wave_helper_calls(facts: FileFacts, fv: FileView, target: Target) -> Iterator[Match]:
    """Calls of a project header's reduction helper whose shuffle tree stops after 32 lanes (warpReduceSum in a
    utils header, or blockReduce<warpReduceSum>), from code that numbers lanes by the whole wavefront. The helper
    is right for 32-lane warps; the call is where this file relies on it covering all 64 lanes."""
    half: dict[int, tuple[Node, str]] = {}
    for h in fv.helpers:
        for call, _, _, kind in _half_wave_shuffles(h):
            width = shuffle_parts(call)[2]
            if width is None or h.const(width) in (64, W, 32):
                half[id(h)] = (call, kind)
                break
    if not half:
        return
    for view in _device_views(fv):
        if _group_organized([view]):
            continue  # this code works in 32-lane groups: a 32-lane reduction is what it asks for
        stride = _wave_strided_loop(view)
        for call in view.calls():
            chain = fv.helper_chain(call)
            hit = next((h for h in chain if id(h) in half), None)
            if hit is None or _untaken_at_launch(fv, view, call, target):
                continue
            wave_fn = _wave_organized([view, *chain])
            if wave_fn is view:
                evidence = f"the code numbers lanes by it ({_lane_expr_text(facts, view, {LANEW, WARPW})})"
            elif wave_fn is not None:   # a header's text is not at hand: name the helper that does
                evidence = f"'{wave_fn.fn.name}' numbers lanes by it"
            elif stride is not None:
                evidence = f"the code spreads the data over it ('{_spell(facts, stride)}' at line {stride.loc.line})"
            elif (whole := _one_wave_block(view, call, target)) is not None:
                evidence = f"it runs only when the block is one wavefront ('{_spell(facts, whole)}' at line " \
                           f"{whole.loc.line}), all {target.wave_size} of its lanes holding values"
            else:
                continue
            shuffle, kind = half[id(hit)]
            via = "" if hit is chain[0] else f" (through '{chain[0].fn.name}')"
            yield Match(call.loc, {
                "kind": f"the {kind} of '{hit.fn.name}'{via}", "call": shuffle.op,
                "line": f"{shuffle.loc.line} of {Path(shuffle.loc.path).name}",
                "evidence": f"this call relies on it covering the wavefront: {evidence}",
                "wave": str(target.wave_size)}, confidence="medium")


def _one_wave_block(view: FunctionView, call: Node, target: Target) -> Node | None:
    """The `blockDim.x == warpSize` test whose true branch holds the call: there the block is exactly one
    wavefront, so a reduction over it is meant to cover every lane."""
    return next((cond for then, cond in _block_x_branches(view, call, target) if then and cond.op == "=="), None)


def _untaken_at_launch(fv: FileView, view: FunctionView, call: Node, target: Target) -> bool:
    """The call sits in the branch of a `blockDim.x == warpSize` (or `!=`) test that no launch of this kernel
    takes: every launch in the file has a constant block whose x extent decides the test (Paddle's correlation
    kernel, launched with 64 threads on HIP, never reaches its blockReduceSum branch). A launch whose block is not
    known, or a kernel this file never launches, decides nothing."""
    launches = [la for la in fv.facts.launches if la.kernel == view.fn.name] if view.fn.kind == "kernel" else []
    if not launches or any(la.block_dims is None for la in launches):
        return False
    widths = {la.block_dims[0] for la in launches if la.block_dims is not None}
    return any({(x == target.wave_size) == (cond.op == "==") for x in widths} == {not then}
               for then, cond in _block_x_branches(view, call, target))


def _block_x_branches(view: FunctionView, call: Node, target: Target) -> Iterator[tuple[bool, Node]]:
    """Each enclosing `if (blockDim.x == warpSize)` (or `!=`) with the call in its then or else branch: (whether
    in the then branch, the test)."""
    for then, test in _enclosing_ifs(view, call):
        cond = _block_x_test(view, strip(test.children[0]), target)
        if cond is not None:
            yield then, cond


def _enclosing_ifs(view: FunctionView, node: Node) -> Iterator[tuple[bool, Node]]:
    """Each `if` whose then or else branch holds the node, innermost first: (whether in the then branch, the if)."""
    for branch, test in zip([node, *view.ancestors(node)], view.ancestors(node)):
        if test.kind == "if" and len(test.children) >= 2 and any(branch is k for k in test.children[1:3]):
            yield branch is test.children[1], test


def _block_x_test(view: FunctionView, cond: Node, target: Target) -> Node | None:
    """`blockDim.x == warpSize` or `blockDim.x != warpSize` (either side, warpSize or the wave's width)."""
    if cond.kind != "binop" or cond.op not in ("==", "!=") or len(cond.children) != 2:
        return None
    for dim, width in (cond.children, cond.children[::-1]):
        dim = strip(dim)
        if dim.kind == "member" and dim.op == "x" and dim.children and strip(dim.children[0]).op == "blockDim" \
                and view.const(width) in (W, target.wave_size):
            return cond
    return None


def _factors(node: Node) -> list[Node]:
    node = strip(node)
    if node.kind == "binop" and node.op == "*" and len(node.children) == 2:
        return _factors(node.children[0]) + _factors(node.children[1])
    return [node]


def _wave_strided_loop(view: FunctionView) -> Node | None:
    """A loop that starts at a thread's index and steps by the wavefront's width times a constant
    (`for (c = threadIdx.x * 8; c < C; c += WARP_SIZE * 8)` with WARP_SIZE = 64): the data is spread over all lanes
    of the wavefront."""
    for loop in (n for n in view.nodes() if n.kind == "for" and len(n.children) == 4):
        init, _, inc, _ = loop.children
        if init is None or inc is None or inc.kind != "binop" or inc.op != "+=" or len(inc.children) != 2:
            continue
        if any(_is_wave_width(view, f) for f in _factors(inc.children[1])) and view.depends_on_thread(init):
            return inc
    return None


def _scaled_widths(facts: FileFacts, view: FunctionView, wave: bool,
                   within: Iterable[Node] | None = None) -> dict[tuple[str, ...], Node]:
    """Products of a lane width and named factors, keyed by the factors' spelling: `WARP_SIZE * x128::size`
    (the wavefront's width, wave=True) or `32 * VEC` (a literal 32, wave=False), in the function or in the given
    expressions. The two side by side mean one of them counts 32-lane warps where the other counts wavefronts."""
    out: dict[tuple[str, ...], Node] = {}
    for node in (n for root in within for n in root.walk()) if within is not None else view.nodes():
        if node.kind != "binop" or node.op != "*" or len(node.children) != 2:
            continue
        factors = _factors(node)
        width = next((f for f in factors if (_is_wave_width(view, f) if wave else
                                             strip(f).kind == "int" and strip(f).value == 32)), None)
        # `32 * 4` is a number, not a lane width scaled by a named per-lane amount (VEC, x128::size)
        rest = [f for f in factors if f is not width and not (strip(f).kind == "int" and not strip(f).macro)]
        if width is not None and rest:
            out.setdefault(tuple(sorted(_spell(facts, f).replace(" ", "") for f in rest)), node)
    return out


def _wave_products(ctx: RuleContext, views: Iterable[FunctionView]) -> dict[tuple[str, ...], Node]:
    """The wavefront-scaled products of these functions, first spelling wins; W64-008 (per function) and
    W64-009 (per launched kernel) ask for the same functions, so each function's are derived once per file."""
    wave: dict[tuple[str, ...], Node] = {}
    for v in views:
        # keyed by the view itself: the context's FileView owns it for the file, and instances may share a usr
        scaled = ctx.shared(("wave64.wave_products", id(v)), partial(_scaled_widths, ctx.facts, v, wave=True))
        for key, node in scaled.items():
            wave.setdefault(key, node)
    return wave


def _counts_32_lanes(facts: FileFacts, view: FunctionView, wave: dict[tuple[str, ...], Node],
                     within: Iterable[Node] | None = None) -> Iterator[tuple[Node, Node]]:
    """(`32 * k` here, `warpSize * k` among the wave products): the same per-lane amount scaled by a 32-lane
    warp in one place and by the wavefront in the other."""
    if not wave:
        return
    for key, node in _scaled_widths(facts, view, wave=False, within=within).items():
        if key in wave:
            yield node, wave[key]


def _launch_inputs(view: FunctionView, launch: Launch, depth: int = 3) -> list[Node]:
    """The expressions a launch's shape, shared bytes and arguments are computed from in its host function,
    following local definitions a few steps."""
    todo = [n for n in (launch.grid, launch.block, launch.shared_bytes, *launch.args) if n is not None]
    out: list[Node] = []
    seen: set[str] = set()
    for _ in range(depth + 1):
        out.extend(todo)
        refs = {n.ref for e in todo for n in e.walk() if n.kind == "ref" and n.ref not in seen}
        seen |= refs
        todo = [d for r in refs if (d := view.definition(r)) is not None]
        if not todo:
            break
    return out


# --------------------------------------------------------------------------------------------------- W64-002

_TILE_WIDTH = re.compile(r"\bthread_block_tile<\s*(\d+)")


def _wave_tile(view: FunctionView, target: Target) -> Node | None:
    """A cooperative-groups tile of the wavefront's width made in the function (`tiled_partition<W>(block)`
    with W a project constant that is 64 on the target, DeepSpeed's hw_warp_size): its collectives are
    wavefront-wide, whatever the code calls its lanes."""
    for call in view.calls(frozenset({"tiled_partition"})):
        m = _TILE_WIDTH.search(call.type or "")
        if m is not None and int(m.group(1)) == target.wave_size:
            return call
    return None


def _wave_dependent_ops(fv: FileView, view: FunctionView) -> Node | None:
    """A call whose result depends on all lanes of the wavefront: ballot, any/all, activemask, match; a mask the
    code narrows to its 32-lane group's 32 bits is left out."""
    for v in [view, *fv.callees(view)]:
        for call in v.calls(WAVE_WIDE):
            if not _narrowed_to_group(fv.facts, v, call) and not _sync_mask_only(v, call) \
                    and not _decides_repeat(fv, v, call):
                return call
    return None


_LOGIC = ("&&", "||", "!")


def _runs(view: FunctionView, call: Node) -> bool:
    """The call runs the function: it names it or, for a template pattern, one of its instantiations (the frontend
    reads a one-shuffle wrapper's call as that shuffle, keeping the wrapper as the call's ref), or it is an
    unresolved call of its name."""
    usr = view.fn.usr
    return call.ref == usr or call.ref.startswith(usr + "<") or (not call.ref and call.op == view.fn.name)


def _decides_repeat(fv: FileView, view: FunctionView, node: Node, depth: int = 0) -> bool:
    """The value only decides whether a loop runs again: it is the condition of a for, while or do loop (alone
    or joined by && / || / !), or the value a function returns where every call of it is such a condition
    (rsmt's `for (e = lane; __any(e < top); e += WS)`, `do ... while (insertSteinerPoints(...))` returning
    `__any(updated)`). An `__any`/`__all` there keeps the wavefront iterating while any of its lanes has work;
    a 32-lane group with none left runs an extra pass whose lanes all fail their own test, as the idle lanes of a
    32-lane warp do, so the vote is no wavefront value that a group's lane ids combine with."""
    arg, parent = node, view.parent(node)
    while parent is not None and (parent.kind == "cast" or (parent.kind in ("binop", "unop") and parent.op in _LOGIC)):
        arg, parent = parent, view.parent(parent)
    if parent is None or not parent.children:
        return False
    if parent.kind == "for":
        return len(parent.children) == 4 and parent.children[1] is arg
    if parent.kind in ("while", "do"):
        return parent.children[0 if parent.kind == "while" else -1] is arg
    if parent.kind != "return" or depth > 0:
        return False
    calls = [(caller, c) for caller in fv.views if caller is not view for c in caller.calls() if _runs(view, c)]
    return bool(calls) and all(_decides_repeat(fv, caller, c, depth + 1) for caller, c in calls)


def _sync_mask_only(view: FunctionView, node: Node, depth: int = 0) -> bool:
    """A vote's result (or a variable holding it) is read only as the mask argument of *_sync intrinsics
    (`__shfl_xor_sync(__activemask(), v, o, 32)`): it names the lanes taking part, all 64 of them on gfx942,
    and is never a value that 32-lane ids combine with."""
    arg, parent = node, view.parent(node)
    while parent is not None and parent.kind == "cast":
        arg, parent = parent, view.parent(parent)
    if parent is None:
        return False
    if parent.kind == "call" and parent.op in SYNC_WITH_MASK:
        return bool(parent.children) and parent.children[0] is arg
    if parent.kind == "decl":
        var = parent.ref
    elif parent.kind == "binop" and parent.op == "=" and len(parent.children) == 2 and parent.children[1] is arg \
            and strip(parent.children[0]).kind == "ref":
        var = strip(parent.children[0]).ref
    else:
        return False
    writes = {id(strip(n.children[0])) for n in view.nodes() if n.kind == "binop" and n.op == "=" and n.children}
    reads = [n for n in view.nodes() if n.kind == "ref" and n.ref == var and id(n) not in writes]
    return depth < 3 and bool(reads) and all(_sync_mask_only(view, r, depth + 1) for r in reads)


def _narrowed_to_group(facts: FileFacts, view: FunctionView, call: Node) -> bool:
    """A lane mask the code reads as a 32-lane group's mask: shifted by a thread-dependent amount
    (`__ballot(p) >> (threadIdx.x & 32)`, the group's own half) or kept in a 32-bit integer. In the second case
    lanes 32-63 read the wrong half, but W64-004 (or W64-005 at a 32-bit bit operation) reports that at the call,
    and its fix (take the group's half) leaves the 32-lane ids that index the mask right."""
    if call.op not in MASK_PRODUCERS:
        return False
    node, parent = call, view.parent(call)
    while parent is not None and parent.kind == "cast" and not is_32bit_int(facts, parent.type):
        node, parent = parent, view.parent(parent)
    if parent is None:
        return False
    return parent.kind == "cast" or _shifted_to_group(view, node)


def _outer_cast(view: FunctionView, node: Node) -> Node:
    """The node with the casts around it (`(unsigned long long)__ballot(p)`)."""
    parent = view.parent(node)
    while parent is not None and parent.kind == "cast":
        node, parent = parent, view.parent(parent)
    return node


def _shifted_to_group(view: FunctionView, node: Node) -> bool:
    """A mask shifted right by a thread-dependent amount (`__ballot(p) >> (threadIdx.x & 32)`): each 32-lane
    group keeps its own half, whose bit k is the group's lane k."""
    parent = view.parent(node)
    return parent is not None and parent.kind == "binop" and parent.op == ">>" and len(parent.children) == 2 \
        and parent.children[0] is node and view.depends_on_thread(parent.children[1])


def lane_arith_32(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    patterns = _instantiated_patterns(fv)
    for view in _device_views(fv):
        yield from _wave_rounded_per_32(facts, view, target)
        uninstantiated = view.fn.is_template and not view.fn.template_args and id(view) not in patterns
        if uninstantiated:
            yield from _last_lane_of_32(facts, view, target)
        group_nodes = [n for n in view.nodes() if n.kind == "binop" and n.op in GROUP_ID_OPS
                       and view.lane_class(n) in (LANE32, WARP32)]
        if not group_nodes:
            continue
        yield from _warp32_times_wave(facts, view, target)
        meets = _group_lane_meets_wave_lane(view)
        wave_call = _wave_dependent_ops(fv, view)
        shuffles = any(True for v in [view, *fv.callees(view)] for _ in v.calls(SHUFFLES))
        mixed = _wave_organized([view]) if shuffles else None
        reduces = _default_warp_reduces(ctx, view.fn.loc)
        tree: Node | None = None
        if meets is None and _groups_per_wave(view) is not None:
            continue  # the 32-lane groups are tiles of the wavefront, numbered as such on purpose
        if meets is not None:
            test, vote = meets
            reason = f"'{_spell(facts, test)}' (line {test.loc.line}) compares a 32-lane id with a lane picked by " \
                     f"'{vote.op}' (line {vote.loc.line}), which numbers the lanes of the whole wavefront: two " \
                     f"lanes match, or none"
            confidence = "high"
        elif wave_call is not None:
            reason = f"'{wave_call.op}' (line {wave_call.loc.line}) works on all {target.wave_size} lanes"
            confidence = "high" if wave_call.op in MASK_PRODUCERS else "medium"
        elif reduces:
            reason = f"the WarpReduce at line {reduces[0].decl.line} has the default logical width, all " \
                     f"{target.wave_size} lanes of the wavefront"
            confidence = "medium"
        elif (tile := _wave_tile(view, target)) is not None:
            reason = f"the cooperative-groups tile made at line {tile.loc.line} is {target.wave_size} lanes wide: " \
                     f"its shuffles and ranks span two of these 32-lane groups"
            confidence = "medium"
        elif mixed is not None:
            reason = f"the same code also numbers lanes by the wavefront " \
                     f"({_lane_expr_text(facts, mixed, {LANEW, WARPW})})"
            confidence = "medium"
        elif uninstantiated and (widths := _width_param_lanes(view)):
            reason = f"the same code numbers its warps' lanes by the template's " \
                     f"{'/'.join(sorted(set(widths.values())))}, {target.wave_size} lanes at the wavefront's width"
            confidence = "medium"
        elif (tree := _wave_shuffle_loop([view, *fv.callees(view)])) is not None:
            start = _spell(facts, _init_value(tree.children[0]))
            reason = f"the shuffle loop at line {tree.loc.line} starts at {start} and combines all " \
                     f"{target.wave_size} lanes, so lane 32 holds a partial result that its group reads as the warp's"
            confidence = "medium"
        else:
            continue
        for node in group_nodes:
            yield Match(node.loc, {"expr": _spell(facts, node), "what": NUMBERS_32, "reason": reason,
                                   "wave": str(target.wave_size)}, confidence=confidence)
        for node, what in _group_counts(facts, view):
            yield Match(node.loc, {"expr": _spell(facts, node), "what": what, "reason": reason,
                                   "wave": str(target.wave_size)}, confidence="medium")
        if tree is not None:
            yield from _group_lanes_after_tree(facts, view, tree, target)


NUMBERS_32 = "numbers threads in 32-lane warps"
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def _width_param_lanes(view: FunctionView) -> dict[str, str]:
    """Lane ids made from a warp-width template parameter, `lane = tid & (WARP_SIZE - 1)` or `tid % WARP_SIZE`:
    {variable id: the parameter's name}."""
    params = {p for p in view.fn.template_params if _WARPISH.search(p)}
    out: dict[str, str] = {}
    for decl in (n for n in view.nodes() if n.kind == "decl" and n.children and n.ref):
        init = strip(decl.children[0])
        if init.kind != "binop" or init.op not in ("&", "%") or len(init.children) != 2 \
                or view.lane_class(init.children[0]) != TID:
            continue
        width = strip(init.children[1])
        if init.op == "&" and width.kind == "binop" and width.op == "-" and len(width.children) == 2 \
                and view.const(width.children[1]) == 1:
            width = strip(width.children[0])
        elif init.op == "&":
            continue
        if width.kind == "ref" and width.op in params:
            out[decl.ref] = width.op
    return out


def _last_lane_of_32(facts: FileFacts, view: FunctionView, target: Target) -> Iterator[Match]:
    """A lane id that a warp-width template parameter numbers, compared with 31, the last lane of a 32-lane warp
    (CUSP's COO kernel as rocALUTION ran it with WARP_SIZE 64: `thread_lane == 31` seeds and writes the carry):
    with the parameter at the wavefront's width lanes 32-63 are past the lane the code takes for the warp's end.
    Only in a pattern the file does not instantiate: an instance shows its width."""
    lanes = _width_param_lanes(view)
    for node in (n for n in view.nodes() if lanes and n.kind == "binop" and n.op in _COMPARISONS
                 and len(n.children) == 2):
        a, b = (strip(k) for k in node.children)
        lane, other = (a, b) if a.kind == "ref" and a.ref in lanes else (b, a)
        if lane.kind == "ref" and lane.ref in lanes and other.kind == "int" and other.value == NARROW_WARP - 1 \
                and not other.macro:
            yield Match(node.loc, {"expr": _spell(facts, node), "what": "takes lane 31 for the warp's last lane",
                                   "reason": f"'{lane.op}' numbers the {lanes[lane.ref]} lanes of a warp, "
                                             f"{target.wave_size} where {lanes[lane.ref]} is the wavefront's width",
                                   "wave": str(target.wave_size)}, confidence="medium")


def _groups_per_wave(view: FunctionView) -> Node | None:
    """`warpSize / 32` (`warpSize / TILE_SIZE` with TILE_SIZE 32): the function counts the 32-lane groups of one
    wavefront, so it knows a wavefront holds two and numbers them as tiles inside it (openmm-hip's
    findBlocksWithInteractions: tileInWarp = (threadIdx.x / TILE_SIZE) % tilesPerWarp, with tilesPerWarp =
    warpSize / TILE_SIZE, beside indexInWarp = threadIdx.x % warpSize)."""
    return next((n for n in view.nodes() if n.kind == "binop" and n.op in ("/", ">>") and len(n.children) == 2
                 and _is_wave_width(view, n.children[0])
                 and view.const(n.children[1]) == {"/": 32, ">>": 5}[n.op]), None)
_THREAD_COUNT = re.compile(r"(?i)thread|block")


def _group_counts(facts: FileFacts, view: FunctionView) -> Iterator[tuple[Node, str]]:
    """The other numbers of 32-lane organization in a function: warps per block (`THREADS / 32`,
    `blockDim.x >> 5`) and loops that hand each 32-lane group's lanes k items per step (`for (i = lane * k; ...;
    i += 32 * k)`). Reported only where the function's 32-lane ids are wrong, with the same reason."""
    bounds = {id(k) for b in view.nodes() if b.kind == "bounds" for k in b.walk()}
    for node in view.nodes():
        if node.kind == "binop" and node.op in ("/", ">>") and len(node.children) == 2 and id(node) not in bounds \
                and view.const(node.children[1]) == {"/": 32, ">>": 5}[node.op] \
                and view.lane_class(node.children[0]) is None and not view.depends_on_thread(node.children[0]) \
                and any(_THREAD_COUNT.search(n.op or n.macro or "") for n in strip(node.children[0]).walk()
                        if n.kind in ("ref", "member", "int")):
            yield node, "counts 32-lane warps per block"
        elif node.kind == "for" and len(node.children) == 4 and node.children[0] is not None \
                and (inc := node.children[2]) is not None and inc.kind == "binop" and inc.op == "+=" \
                and len(inc.children) == 2:
            step = strip(inc.children[1])
            factors = _factors(step)
            if any(strip(f).kind == "int" and strip(f).value == 32 and not strip(f).macro for f in factors) \
                    and len(factors) > 1 and any(view.lane_class(f) == LANE32
                                                 for f in _factors(_init_value(node.children[0]))):
                yield step, "steps a loop by 32 lanes' worth"


def _init_value(init: Node) -> Node:
    """The value a for-loop's init statement gives its variable (`int i = v` or `i = v`)."""
    for n in init.walk():
        if n.kind == "decl" and n.children:
            return n.children[0]
        if n.kind == "binop" and n.op == "=" and len(n.children) == 2:
            return n.children[1]
    return init


def _from_wave_vote(view: FunctionView, node: Node, depth: int = 0) -> Node | None:
    """The ballot/activemask/match call a value is computed from (a lane number 0-63 such as __ffsll(b) - 1): its
    bits number the lanes of the wavefront, also where a 32-bit copy keeps only lanes 0-31. A mask shifted to a
    32-lane group's half numbers that group's lanes instead and is left out."""
    for n in strip(node).walk():
        if n.kind == "call" and n.op in MASK_PRODUCERS:
            return None if _shifted_to_group(view, _outer_cast(view, n)) else n
        if n.kind == "ref" and depth < 4:
            for d in view.defs.get(n.ref, []):
                found = _from_wave_vote(view, d, depth + 1)
                if found is not None:
                    return found
    return None


def _group_lane_meets_wave_lane(view: FunctionView) -> tuple[Node, Node] | None:
    """(`lane == who`, the vote) with lane a 32-lane id (0-31) and who a lane picked from a vote, numbered in the
    wavefront (0-63, or 0-31 of a 32-bit copy): lanes who and who + 32 both match, or none when who >= 32. The
    comparison is right once lane numbers the wavefront, so it is the evidence against the 32-lane id, reported
    where the id is made."""
    for node in view.nodes():
        if node.kind != "binop" or node.op not in ("==", "!=") or len(node.children) != 2:
            continue
        for lane, who in (node.children, node.children[::-1]):
            vote = _from_wave_vote(view, who) if view.lane_class(lane) == LANE32 else None
            if vote is not None:
                return node, vote
    return None


def _group_lanes_after_tree(facts: FileFacts, view: FunctionView, tree: Node, target: Target) -> Iterator[Match]:
    """What 32-lane ids do with the result of a reduction over the whole wavefront: `lane == 0` singles out
    lanes 0 and 32, which both act on the result, and `v = sums[lane]` reads slots 0-31 in both halves of the
    wavefront, so a second wavefront-wide reduction of v counts every slot twice."""
    wave = target.wave_size
    loops = _wave_shuffle_loops(view)
    start = min((loop.loc.line for loop in loops), default=0)   # a tree in a callee: the whole function
    shared = {n.ref for n in view.nodes() if n.kind == "decl" and n.macro == "shared"}
    for node in view.nodes():
        if node.loc.line < start:
            continue
        pick = _group_lane_pick(view, node)
        if pick is not None:
            last = max((loop for loop in loops if loop.loc.line <= node.loc.line), key=lambda n: n.loc.line,
                       default=tree)
            yield Match(node.loc, {"expr": _spell(facts, node), "what": f"singles out two lanes of each {wave}-lane "
                                   f"wavefront ({pick} and {pick + 32})", "reason": f"{_tree_result(last, wave)}: "
                                   f"what it selects is done twice per wavefront", "wave": str(wave)},
                        confidence="medium")
            continue
        var, value = _assigned(node)
        if value is None or value.kind != "index" or len(value.children) != 2 \
                or strip(value.children[0]).ref not in shared or view.lane_class(value.children[1]) != LANE32:
            continue
        again = next((loop for loop in loops if loop.loc.line >= node.loc.line and any(
            c.kind == "call" and c.op in SHUFFLES and (v := shuffle_parts(c)[0]) is not None and strip(v).ref == var
            for c in loop.walk())), None)
        if again is not None:
            yield Match(value.loc, {"expr": _spell(facts, value), "what": f"reads slots 0-31 in both halves of "
                                    f"each {wave}-lane wavefront", "reason": f"the shuffle loop at line "
                                    f"{again.loc.line} then adds up all {wave} lanes: every slot is counted twice",
                                    "wave": str(wave)}, confidence="medium")


def _tree_result(tree: Node, wave: int) -> str:
    """Where a wavefront-wide shuffle loop leaves its result: in every lane (a butterfly) or in lane 0."""
    if all(c.op.startswith("__shfl_xor") for c in tree.walk() if c.kind == "call" and c.op in SHUFFLES):
        return f"after the shuffle loop at line {tree.loc.line}, which combines all {wave} lanes, both hold the " \
               f"wavefront's total"
    return f"the shuffle loop at line {tree.loc.line} combines all {wave} lanes into lane 0 and leaves lane 32 a " \
           f"partial result"


def _group_lane_pick(view: FunctionView, node: Node) -> int | None:
    """k of a test `lane == k` / `lane != k` / `!lane` on a 32-lane id, which holds at lanes k and k + 32."""
    if node.kind == "unop" and node.op == "!" and node.children and view.lane_class(node.children[0]) == LANE32:
        return 0
    if node.kind != "binop" or node.op not in ("==", "!=") or len(node.children) != 2:
        return None
    for lane, k in (node.children, node.children[::-1]):
        value = view.const(k)
        if isinstance(value, int) and 0 <= value < 32 and view.lane_class(lane) == LANE32:
            return value
    return None


def _assigned(node: Node) -> tuple[str, Node | None]:
    """(variable id, value) of `v = value` or `T v = value`; ('', None) for anything else."""
    if node.kind == "binop" and node.op == "=" and len(node.children) == 2 and strip(node.children[0]).kind == "ref":
        return strip(node.children[0]).ref, strip(node.children[1])
    if node.kind == "decl" and node.children and node.children[0].kind != "bounds":
        return node.ref, strip(node.children[0])
    return "", None


def _wave_shuffle_loops(view: FunctionView) -> list[Node]:
    """Shuffle loops whose offsets start at warpSize / 2 or warpSize, or at 32 with the default width: reductions
    and butterflies over the whole wavefront."""
    out = []
    for loop in (n for n in view.nodes() if n.kind == "for"):
        parts = _loop_parts(view, loop)
        calls = [c for c in parts[3].walk() if c.kind == "call" and c.op in SHUFFLES] if parts else []
        if calls and (parts[1] in (W_HALF, W) or (parts[1] == 32 and all(map(_is_default_width, calls)))):
            out.append(loop)
    return out


def _wave_shuffle_loop(views: Iterable[FunctionView]) -> Node | None:
    """The first loop of these functions that shuffles across the whole wavefront."""
    return next((loop for v in views for loop in _wave_shuffle_loops(v)), None)


_WARPISH = re.compile(r"(?i)warp|wave")


def _is_wave_width(view: FunctionView, node: Node) -> bool:
    """warpSize, or a value named like a warp size that is 64 (ggml's ggml_cuda_get_physical_warp_size())."""
    value, inner = view.const(node), strip(node)
    return value == W or (value == 64 and bool(_WARPISH.search(inner.op if inner.kind == "ref" else inner.macro)))


def _wave_rounded_per_32(facts: FileFacts, view: FunctionView, target: Target) -> Iterator[Match]:
    """A count rounded up by the wavefront width but divided by 32 (`(blockDim.x + warpSize - 1) >> 5`): on a
    64-lane target it is k + 1 for a block of 32*k threads, one more than its 32-lane groups, so the code reads
    a per-group slot no group wrote."""
    for node in view.nodes():
        if node.kind != "binop" or node.op not in ("/", ">>") or len(node.children) != 2 \
                or view.const(node.children[1]) != {"/": 32, ">>": 5}[node.op]:
            continue
        width = next((c for n in strip(node.children[0]).walk() if n.kind == "binop" and n.op in ("+", "-")
                      for c in n.children if _is_wave_width(view, c)), None)
        if width is not None:
            yield Match(node.loc, {"expr": _spell(facts, node), "what": "counts 32-lane groups",
                                   "reason": f"it rounds up by '{_spell(facts, width)}', the {target.wave_size}-lane "
                                             f"wavefront: the count can be one more than the groups that exist",
                                   "wave": str(target.wave_size)}, confidence="high")


def _warp32_times_wave(facts: FileFacts, view: FunctionView, target: Target) -> Iterator[Match]:
    """A 32-lane group id scaled by the wavefront width: `(tid / 32) * warpSize` strides 64 per group of 32,
    so on gfx942 half the rows are skipped and the others run past the block's range."""
    for node in view.nodes():
        if node.kind != "binop" or node.op != "*" or len(node.children) != 2:
            continue
        for ids, width in (node.children, node.children[::-1]):
            if view.lane_class(ids) != WARP32 or not _is_wave_width(view, width):
                continue
            reason = f"'{_spell(facts, node)}' scales it by the {target.wave_size}-lane wavefront width"
            group = strip(ids)
            definition = view.definition(group.ref) if group.kind == "ref" else None
            if definition is not None and strip(definition).kind == "binop":
                yield Match(strip(definition).loc, {"expr": _spell(facts, strip(definition)), "what": NUMBERS_32,
                                                    "reason": f"{reason} (line {node.loc.line})",
                                                    "wave": str(target.wave_size)}, confidence="high")
            yield Match(node.loc, {"expr": _spell(facts, group), "what": NUMBERS_32, "reason": reason,
                                   "wave": str(target.wave_size)}, confidence="high")


# --------------------------------------------------------------------------------------------------- W64-003

def _written(node: Node) -> Node:
    """The expression as written: implicit conversions removed, explicit casts kept (`uint64_t(-1)` is a
    64-bit all-ones mask even though its operand is a 32-bit int)."""
    while node.kind == "cast" and node.op == "implicit" and node.children:
        node = node.children[0]
    return node


def _mask_def_site(facts: FileFacts, view: FunctionView, written: Node, macros: dict[str, Any]) -> Loc | None:
    """Where a 32-bit mask passed by name is defined in this file: the variable's or parameter's declaration, or
    the macro."""
    if written.kind == "ref":
        decl = view.decls.get(written.ref)
        if decl is not None:
            return decl.loc
        param = next((p for p in view.fn.params if p.ref and p.ref == written.ref), None)
        if param is not None and param.loc is not None:
            return param.loc if param.loc.path == facts.path else None
        glob = next((g for g in facts.globals if g.ref == written.ref), None)
        return glob.loc if glob is not None and glob.loc.path == facts.path else None
    macro = macros.get(written.macro)
    if macro is not None and macro.loc.path == facts.path:
        return macro.loc
    return None


def sync_mask_32(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    macros = {m.name: m for m in facts.macros}
    reported_defs: set[tuple[int, int]] = set()
    wrappers = {(loc.line, loc.col) for loc in facts.project_cross_lane}
    superseded = _instantiated_patterns(fv)
    for view in _device_views(fv):
        for call in view.calls(SYNC_WITH_MASK):
            if not call.children or call.children[0].kind == "default" or (call.loc.line, call.loc.col) in wrappers:
                continue   # a project's own __shfl_*_sync wrapper decides what its mask means
            mask = call.children[0]
            written = _written(mask)
            if is_64bit(facts, written.type) or (written.value is not None and written.value >= 1 << 32):
                lanes = _low_lane_count(strip(written).value)
                if lanes is not None and 32 <= lanes < target.wave_size and id(view) not in superseded \
                        and not _low_lanes_only(fv, view, call):
                    # CUDA's full-warp mask widened to 64 bits (0xffffffffull), or a 64-lane mask a digit short
                    # (hypre's 0xFFFFFFFFFFFFFFF before ecdd9c63d)
                    text = _spell(facts, strip(written))
                    yield Match(mask.loc if mask.loc.line else call.loc, {
                        "call": call.op, "wave": str(target.wave_size),
                        "what": f"the 64-bit mask {_half_mask_text(text)}" if lanes == 32 else f"the mask {text}",
                        "effect": f"it names lanes 0-{lanes - 1} only, but lanes {lanes}-{target.wave_size - 1} of "
                                  f"the {target.wave_size}-lane wavefront run this call too"
                                  + (", and a lane that calls a *_sync intrinsic must be in its mask"
                                     if lanes == 32 else "")}, confidence="medium")
                continue
            inner = strip(written)
            if inner.value is not None and inner.value == 0:
                continue
            if inner.kind != "int" and (int_bits(facts, written.type) is None if written.type else
                                        inner.kind == "ref" and inner.op in facts.undeclared):
                continue   # unknown width (a typedef of a type, or a name, that no header declared): no 32-bit claim
            edits: tuple[Edit, ...] = ()
            text = _spell(facts, inner)
            if inner.kind == "int" and inner.value == 0xFFFFFFFF:
                what = f"the 32-bit literal mask {text}"
                if not inner.macro:
                    edits = _replace(facts, inner, text, "~0ull") if text.lower().startswith("0x") else ()
                elif inner.macro in macros:
                    edits = _macro_body_edit(facts, macros[inner.macro], "(~0ull)")
            else:
                what = f"'{text}' of 32-bit type {written.type or 'unsigned int'}"
            args = {"call": call.op, "what": what, "wave": str(target.wave_size),
                    "effect": f"on a {target.wave_size}-lane wavefront the mask must be 64-bit (ROCm 7 rejects "
                              f"32-bit masks at compile time)"}
            site = _mask_def_site(facts, view, written, macros)
            if site is not None and site.line and (site.line, site.col) not in reported_defs:
                reported_defs.add((site.line, site.col))
                name = written.op if written.kind == "ref" else written.macro
                yield Match(site, {**args, "what": f"{what} (defined here as '{name}', used at line "
                                                   f"{call.loc.line})"}, edits=edits)
                edits = ()
            yield Match(mask.loc if mask.loc.line else call.loc, args, edits=edits)


def _low_lane_count(value: int | None) -> int | None:
    """k for a mask of lanes 0..k-1 (a value of the form 2**k - 1), else None."""
    return value.bit_length() if value and value & (value + 1) == 0 else None


def _half_mask_text(text: str) -> str:
    return text if text.lower().startswith("0x") else f"'{text}' (= 0xffffffff)"


def _instantiated_patterns(fv: FileView) -> set[int]:
    """Template patterns whose instantiations are in the file: those show what really runs (an `if constexpr`
    branch the arguments discard is gone there), so the pattern is not judged on its own."""
    instantiated = {v.fn.name for v in fv.views if v.fn.template_args}
    return {id(v) for v in fv.views if v.fn.is_template and v.fn.name in instantiated}


def _guarding_conditions(view: FunctionView, node: Node) -> Iterator[Node]:
    """The condition of each `if (c)`, `c ? node : ...` or `c && node` whose then-branch holds `node`."""
    below = node
    for anc in view.ancestors(node):
        if len(anc.children) >= 2 and anc.children[1] is below and (
                anc.kind in ("if", "cond") or (anc.kind == "binop" and anc.op == "&&")):
            yield anc.children[0]
        below = anc


def _thread_bounds(view: FunctionView, call: Node) -> Iterator[tuple[Node, int | str | None]]:
    """(the comparison, the largest thread index it lets through) of each `if (x < n)` / `if (x <= n)` whose
    then-branch holds the call (or `x < n ? call : ...`, `x < n && call`), with x a thread index: n a constant
    (an int, or W-1 for `x < warpSize`), or None for a bound not known before run time (blockDim.x / warpSize)."""
    for cond in _guarding_conditions(view, call):
        for n in cond.walk():
            if n.kind == "binop" and n.op in ("<", "<=") and len(n.children) == 2 \
                    and view.depends_on_thread(n.children[0]):
                bound = view.const(n.children[1])
                if isinstance(bound, int):
                    yield n, bound - (n.op == "<")
                elif (n.op, bound) in (("<", W), ("<=", W_MINUS_1)):
                    yield n, W_MINUS_1
                elif bound is None:
                    yield n, None


def _low_lanes_only(fv: FileView, view: FunctionView, call: Node) -> bool:
    """Only lanes 0-31 reach the call: it sits under `if (x < n)` with x a thread index and n <= 32, or every
    launch of the kernel has at most 32 threads per block."""
    if any(isinstance(last, int) and last < 32 for _, last in _thread_bounds(view, call)):
        return True
    launches = [la for la in fv.facts.launches if la.kernel == view.fn.name]
    return view.fn.kind == "kernel" and bool(launches) and all(
        la.block_dims is not None and la.block_dims[0] * la.block_dims[1] * la.block_dims[2] <= 32 for la in launches)


def _macro_body_edit(facts: FileFacts, macro: Any, new: str) -> tuple[Edit, ...]:
    """Rewrite an object-like macro whose whole body is one literal, when it is defined in this file."""
    if macro.loc.path != facts.path or macro.params is not None or macro.value is None:
        return ()
    line = facts.byte_line(macro.loc.line)
    start = line.find(macro.body.encode("utf-8").decode("latin-1"), macro.loc.col - 1 + len(macro.name))
    if start < 0:
        return ()
    return (Edit(macro.loc.line, start + 1, macro.loc.line, start + 1 + len(macro.body.encode("utf-8")), new),)


# --------------------------------------------------------------------------------------------------- W64-004

_DECL_TYPE = re.compile(r"^\s*(?:const\s+)?(unsigned int|unsigned|uint32_t|int|uint)\s+(\w+)\s*=")


_WARP_MASK_SET = re.compile(r"\b(\w+)\s*(?:\(|=)\s*(?:\w+::)*WarpMask\s*<")


def _warp_mask_in_32bit(facts: FileFacts, target: Target) -> Iterator[Match]:
    """hipCUB's WarpMask<N>(warp) returns a 64-bit lane mask; cub-derived code keeps it in an `unsigned int`
    member. Read from the text (the cub namespace is usually not parsed); reported at the declaration. In a file
    that defines its own WarpMask (a copy of cub's that returns unsigned int) an unqualified call runs that one:
    nothing is cut."""
    own = any(f.name == "WarpMask" and f.loc.path == facts.path for f in facts.functions)
    text = "\n".join(_code(line) for line in facts.lines)
    for set_at in _WARP_MASK_SET.finditer(text):
        name = set_at.group(1)
        if own and "::" not in set_at.group(0):
            continue
        decl = re.search(rf"^\s*((?:unsigned\s+int|unsigned|uint32_t|int|uint|\w+))\s+{name}\s*[;=]", text, re.M)
        if decl is None or not is_32bit_int(facts, decl.group(1)):
            continue
        line = text.count("\n", 0, decl.start(1)) + 1
        col = decl.start(1) - (text.rfind("\n", 0, decl.start(1)) + 1) + 1
        set_line = text.count("\n", 0, set_at.start()) + 1
        yield Match(Loc(facts.path, line, col, line, col + len(decl.group(1))),
                    {"call": "WarpMask", "where": f"'{name}' of type {decl.group(1)} (set at line {set_line})",
                     "wave": str(target.wave_size)}, confidence="medium")


def mask_truncated(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    if "WarpMask" in "".join(facts.lines):
        yield from _warp_mask_in_32bit(facts, target)
    for view in _device_views(fv):
        for call in view.calls(MASK_PRODUCERS):
            parent = _past_mask_combination(view, call)
            if parent is None or parent.kind != "cast" or not is_32bit_int(facts, parent.type):
                continue
            holder = view.parent(parent)
            if holder is not None and holder.kind == "call" and holder.op in BIT_OPS_32:
                continue  # W64-005 reports the 32-bit bit operation itself
            if _mask_never_read(fv, view, holder):
                continue  # the lost lanes are in a value no code reads
            if _launched_within_32(fv, view):
                continue  # lanes 32-63 never exist: the mask's upper half is always zero
            edits: tuple[Edit, ...] = ()
            if holder is not None and holder.kind == "decl":
                where = f"variable '{holder.op}' of type {holder.type}"
                line = facts.byte_line(holder.loc.line)
                m = _DECL_TYPE.match(line[holder.loc.col - 1:])
                if m and parent.op == "implicit" and m.group(2) == holder.op:
                    col = holder.loc.col + m.start(1)
                    edits = (Edit(holder.loc.line, col, holder.loc.line, col + len(m.group(1)),
                                  "unsigned long long"),)
            elif holder is not None and holder.kind == "binop" and holder.op == "=":
                where = f"'{_spell(facts, holder.children[0])}' of type {parent.type}"
            elif holder is not None and holder.kind == "return":
                where = f"the return value of '{view.fn.name}', of type {parent.type}"
            elif parent.op != "implicit":
                where = f"a cast to {parent.type}"
            else:
                where = f"a value of type {parent.type}"
            yield Match(call.loc, {"call": call.op, "where": where, "wave": str(target.wave_size)}, edits=edits)


def _launched_within_32(fv: FileView, view: FunctionView, depth: int = 0) -> bool:
    """Every launch the file makes of the kernels that run this function has a constant block of at most 32
    threads (collision's one 32-thread block): lanes 32-63 of its wavefront are never launched. A kernel the file
    does not launch may be launched with any block: no."""
    if view.fn.kind == "kernel":
        launches = [launch for launch in fv.facts.launches if launch.kernel == view.fn.name]
        return bool(launches) and all(launch.block_dims is not None and
                                      launch.block_dims[0] * launch.block_dims[1] * launch.block_dims[2] <= 32
                                      for launch in launches)
    callers = list(fv.callers(view))
    return depth < 4 and bool(callers) and all(_launched_within_32(fv, c, depth + 1) for c in callers)


def _past_mask_combination(view: FunctionView, call: Node) -> Node | None:
    """What takes a mask producer's result, past the bit operations that combine it with other masks
    (`__ballot(p) & mask`: the 64-bit combination is what is then kept). A `&` with a constant below 2^32 keeps
    lanes 0-31 on purpose and is what takes it."""
    node, parent = call, view.parent(call)
    while parent is not None and parent.kind == "binop" and parent.op in ("&", "|", "^") and not (
            parent.op == "&" and any(isinstance(c := view.const(k), int) and 0 <= c < 1 << 32
                                     for k in parent.children)):
        node, parent = parent, view.parent(parent)
    return parent


def _mask_never_read(fv: FileView, view: FunctionView, holder: Node | None) -> bool:
    """The variable the mask is stored in is only passed on as an argument that the called function's body never
    reads (Paddle's ROCm CudaShuffleDownSync(mask, val, delta) wraps `__shfl_down(val, delta)`): the lanes it
    lost are read by no code. A variable with no use at all is still reported."""
    if holder is not None and holder.kind == "decl":
        var = holder.ref
    elif holder is not None and holder.kind == "binop" and holder.op == "=" and strip(holder.children[0]).kind == "ref":
        var = strip(holder.children[0]).ref
    else:
        return False
    name = next((n.op for n in view.nodes() if n.kind in ("decl", "ref") and n.ref == var), "")
    uses = [n for n in view.nodes() if n.kind == "ref" and n.ref == var]
    writes = {id(strip(n.children[0])) for n in view.nodes() if n.kind == "binop" and n.op == "=" and n.children}
    reads = [n for n in uses if id(n) not in writes]
    dropped = [c for c in view.calls(SHUFFLES) if _drops_argument(fv, c, name, var)]
    return bool(reads or dropped) and all(_ignored_argument(fv, view, n) for n in reads)


def _drops_argument(fv: FileView, call: Node, name: str, var: str) -> bool:
    """A call of a project wrapper that the frontend read as the one shuffle of its body (porter's wrapper
    facts) and that was given `name` as an argument the body does not pass on: the wrapper ignores it."""
    if not name or not call.ref or not any(v.fn.usr == call.ref for v in (*fv.views, *fv.helpers)):
        return False
    text = _text(fv.facts, call.loc)
    return re.search(rf"\b{re.escape(name)}\b", text) is not None and \
        not any(n.kind == "ref" and n.ref == var for n in call.walk())


def _ignored_argument(fv: FileView, view: FunctionView, use: Node) -> bool:
    """`use` is a whole argument of a call of the file's (or a project header's) function whose every candidate
    body leaves that parameter unread."""
    arg: Node = use
    parent = view.parent(arg)
    while parent is not None and parent.kind == "cast":
        arg, parent = parent, view.parent(parent)
    if parent is None or parent.kind != "call" or parent.op in SHUFFLES | MASK_PRODUCERS | SYNC_WITH_MASK:
        return False
    index = next((i for i, a in enumerate(call_args(parent)) if a is arg), None)
    callees = fv.targets(parent)
    if index is None or not callees:
        return False
    for callee in callees:
        params = callee.fn.params
        if index >= len(params) or callee.fn.body is None:
            return False
        name = params[index].name
        if not name or any(n.kind == "ref" and n.op == name for n in callee.nodes()):
            return False
    return True


# --------------------------------------------------------------------------------------------------- W64-005

def _mask_valued(view: FunctionView, node: Node, depth: int = 0) -> bool:
    node = strip(node)
    if node.kind == "call" and node.op in MASK_PRODUCERS:
        return True
    if node.kind == "ref" and depth < 6:
        return any(_mask_valued(view, d, depth + 1) for d in view.defs.get(node.ref, []))
    if node.kind == "binop" and node.op in ("&", "&=") and any(
            isinstance(c := view.const(k), int) and 0 <= c < 1 << 32 for k in node.children):
        return False  # deliberately keeps lanes 0-31 only
    if node.kind == "binop" and node.op in ("&", "|", "^", "&=", "|=") and depth < 6:
        return any(_mask_valued(view, c, depth + 1) for c in node.children)
    return False


def mask_bitop_32(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    for view in _device_views(fv):
        for call in view.calls(set(BIT_OPS_32)):
            if not call.children:
                continue
            arg = call.children[0]
            inner = strip(arg)
            if not (is_64bit(facts, inner.type) or _mask_valued(view, inner)):
                continue
            wide = BIT_OPS_32[call.op]
            if _narrow_width_branch(view, call, wide):
                continue
            yield Match(call.loc, {"call": call.op, "wide": wide, "arg": _spell(facts, inner),
                                   "wave": str(target.wave_size)}, edits=_replace(facts, call, call.op, wide))


def _narrow_width_branch(view: FunctionView, call: Node, wide: str) -> bool:
    """The call sits in the branch that a width template parameter's test picks for 32 lanes, and the other
    branch does the same with the 64-bit form (rocSPARSE's `if (WFSIZE == 32) __popc(...) else __popcll(...)`):
    the parameter is the device's wavefront width, the 32-bit form is the code of wave32 instances."""
    params = set(view.fn.template_params)
    for then, test in _enclosing_ifs(view, call):
        cond = strip(test.children[0])
        if cond.kind != "binop" or cond.op not in ("==", "!=") or len(cond.children) != 2 or len(test.children) < 3:
            continue
        names = {strip(k).op for k in cond.children if strip(k).kind == "ref"}
        if not names & params or 32 not in (view.const(k) for k in cond.children):
            continue
        other = test.children[2 if then else 1]
        if then == (cond.op == "==") and other is not None and \
                any(n.kind == "call" and n.op == wide for n in other.walk()):
            return True
    return False


# --------------------------------------------------------------------------------------------------- W64-006

def lane_shift_32(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    for view in _device_views(fv):
        for node in view.nodes():
            if node.kind != "binop" or node.op != "<<" or len(node.children) != 2:
                continue
            left, right = strip(node.children[0]), node.children[1]
            if left.value is None or is_64bit(facts, node.type) or is_64bit(facts, left.type):
                continue
            if view.lane_class(right) not in (LANEW, TID) and not _wave_lane_getter(fv, right):
                continue
            text = _text(facts, left.loc)
            edits = _replace(facts, left, text, text.rstrip("uUlL") + "ull") if text and not left.macro else ()
            yield Match(node.loc, {"expr": _spell(facts, node), "wave": str(target.wave_size)}, edits=edits)


def _wave_lane_getter(fv: FileView, node: Node) -> bool:
    """A call of a function that returns the wavefront lane id (`unsigned GpuLaneId() { ...; return __lane_id();
    }`): every function it may name returns a value numbered 0-63."""
    node = strip(node)
    targets = fv.targets(node) if node.kind == "call" and not node.children else []
    returns = [(t, r) for t in targets for r in t.nodes() if r.kind == "return" and r.children]
    return bool(returns) and all(t.lane_class(r.children[0]) == LANEW for t, r in returns)


# --------------------------------------------------------------------------------------------------- W64-007

def default_width_groups(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    in_groups = _DEFAULT_IN_GROUPS.format(wave=target.wave_size)
    for view in _device_views(fv):
        for call, param in _narrow_default_widths(view):
            if _group_callers_only(fv, view, param):
                continue
            yield Match(_default_site(facts, view, call, param), {
                "call": call.op, "expr": view.fn.name, "wave": str(target.wave_size),
                "what": f"passes its parameter '{param.name}' as the width of '{call.op}' (line {call.loc.line}) "
                        f"with a default of 32",
                "effect": f"a caller that leaves the width out shuffles within 32-lane groups, not the "
                          f"{target.wave_size}-lane wavefront"}, confidence="medium",
                suggestion=f"Default '{param.name}' to warpSize.")
        yield from _wave_trees_for_32(ctx, view)
        consumers = _consumers(fv, view)
        if not _group_organized(consumers) or _wave_organized(consumers) or _amd_native(consumers):
            continue
        for use in _default_warp_reduces(ctx, view.fn.loc):
            for loc in use.reductions or (use.decl,):
                yield Match(loc, {"call": "WarpReduce", "what": in_groups, "expr": _text(facts, loc) or "WarpReduce",
                                  "effect": f"the reduction declared at line {use.decl.line} without a logical "
                                            f"width adds both 32-lane groups of each wavefront together",
                                  "wave": str(target.wave_size)},
                            confidence="medium", suggestion="Give WarpReduce its logical width: "
                                                            "WarpReduce<T, 32>, or number lanes by warpSize.")
        for call, lane in _undeclared_lane_shuffles(fv, view):
            yield Match(call.loc, {"call": call.op, "what": in_groups, "expr": _spell(facts, call),
                                   "wave": str(target.wave_size),
                                   "effect": f"'{call.op}' is declared nowhere the parse could see (a header not on "
                                             f"the include path) and is read by its name as a shuffle; its source "
                                             f"lane '{_spell(facts, lane)}' is a 32-lane id, so the second group "
                                             f"of each wavefront reads lanes of the first"},
                        confidence="low", suggestion=f"Pass width 32 to '{call.op}' if it takes one (a shuffle "
                                                     f"wrapper's third argument, usually), or number lanes by "
                                                     f"warpSize; with its header's folder on -I porter reads what "
                                                     f"it does.")
        for call in view.calls(SHUFFLES):
            if not _is_default_width(call):
                continue
            base = call.op.removesuffix("_sync")
            if base == "__shfl_up" and _guarded_by_group_lane(view, call):
                continue
            if base not in ("__shfl", "__shfl_up") or (base == "__shfl" and _group_copies(view, call)):
                continue
            if base == "__shfl" and _from_wave_vote(view, shuffle_parts(call)[1]) is not None:
                continue  # the source is a vote's bit position, a lane of the whole wavefront (gc's __ffs(bal) - 1)
            yield Match(call.loc, {"call": call.op, "what": in_groups, "expr": _spell(facts, call),
                                   "wave": str(target.wave_size),
                                   "effect": "the second group of each wavefront reads lanes of the first"},
                        edits=_append_width(facts, call))


def _wave_trees_for_32(ctx: RuleContext, view: FunctionView) -> Iterator[Match]:
    """A shuffle tree that starts at warpSize / 2, in place or in a function called, run only by the first 32
    threads (`if (tid < 32)`: the last step of a block reduction written for 32-lane warps). Its width is the
    default, the whole wavefront, but the group that runs it is 32 threads: on a 64-lane wavefront the first step
    reads lanes 32-63, which are inactive in that branch. A block with a y extent is not judged (threadIdx.x < 32
    may then hold every lane)."""
    facts, wave, fv = ctx.facts, ctx.target.wave_size, ctx.view
    if uses_dim(view.fn, "y"):
        return
    trees = {id(n): n for n in view.nodes() if _wave_tree(view, n)}
    calls = {id(c): (c, t) for c in view.calls() if (t := next((t for t in _tree_callees(fv, c)), None)) is not None}
    for node, callee in [*((n, None) for n in trees.values()), *calls.values()]:
        guard = next(((test, last) for test, last in _thread_bounds(view, node)
                      if isinstance(last, int) and last < 32 and view.lane_class(test.children[0]) == TID), None)
        if guard is None:
            continue
        test, last = guard
        if callee is None:
            shuffle = next(n for n in node.walk() if n.kind in ("call", "mcall") and "shfl" in n.op)
            expr, tree = _spell(facts, shuffle), f"steps a shuffle tree from warpSize / 2 (line {node.loc.line})"
        else:
            expr, tree = _spell(facts, node), f"calls '{callee[0].fn.name}', whose shuffle tree starts at warpSize / 2 " \
                                              f"(line {callee[1].loc.line} of {Path(callee[1].loc.path).name}),"
        yield Match(node.loc, {
            "expr": expr, "wave": str(wave),
            "what": f"{tree} with only threads 0-{last} active ('{_spell(facts, test)}' at line "
                    f"{test.loc.line})",
            "effect": f"the tree spans the {wave}-lane wavefront, so its first step adds values from lanes "
                      f"32-{wave - 1}, which do not run this branch: their registers hold no partial"},
            confidence="medium", suggestion="Start the tree at 16 (or pass width 32) for a 32-thread group, or let "
                                            "the whole first wavefront run it (tid < warpSize).")


def _wave_tree(view: FunctionView, node: Node) -> bool:
    """A halving loop from warpSize / 2 whose body shuffles (a wavefront-wide reduction tree)."""
    parts = _loop_parts(view, node) if node.kind == "for" else None
    return parts is not None and parts[1] == W_HALF and parts[2] == "down" and any(
        n.kind in ("call", "mcall") and "shfl" in n.op for n in parts[3].walk())


def _tree_callees(fv: FileView, call: Node) -> Iterator[tuple[FunctionView, Node]]:
    """(function, loop) for each function a call may run that holds a wavefront-wide reduction tree."""
    for callee in fv.targets(call):
        loop = next((n for n in callee.nodes() if _wave_tree(callee, n)), None)
        if loop is not None:
            yield callee, loop


def _narrow_default_widths(view: FunctionView) -> Iterator[tuple[Node, Param]]:
    """(shuffle, parameter) where a wrapper passes its own parameter as a shuffle's width and that parameter
    defaults to 32."""
    for call in view.calls(SHUFFLES):
        width = shuffle_parts(call)[2]
        ref = strip(width) if width is not None else None
        if ref is None or ref.kind != "ref" or ref.ref in view.decls:
            continue
        param = next((p for p in view.fn.params if p.name == ref.op and p.default == 32), None)
        if param is not None:
            yield call, param


def _group_callers_only(fv: FileView, wrapper: FunctionView, param: Param) -> bool:
    """Every call in the file that leaves the wrapper's width out runs in code organized as 32-lane groups: there
    the default of 32 is the width the callers mean (dpid's float4 __shfl_down tree read at `TX % 32 == 0`,
    a bitonic sort over lanes numbered `threadIdx.x % 32`). A wrapper with no such call here serves other files
    and is judged by its default alone."""
    position = next(i for i, p in enumerate(wrapper.fn.params) if p is param)
    omitting = [v for v in fv.views if v is not wrapper for c in v.calls()
                if _runs(wrapper, c) and _leaves_out(c, position)]
    return bool(omitting) and all(_in_group_code(fv, v) for v in omitting)


def _leaves_out(call: Node, position: int) -> bool:
    """The call does not pass the argument at this position: the frontend fills in a default as a `default` node,
    or, read through a one-shuffle wrapper, as the default's literal with no end position (no text of the call's
    is that literal)."""
    args = call_args(call)
    if len(args) <= position:
        return True
    arg = args[position]
    return arg.kind == "default" or (arg.kind == "int" and arg.loc.end_line == 0)


def _in_group_code(fv: FileView, view: FunctionView) -> bool:
    """The function, the functions that call it (three levels up) and what they all call number lanes in
    32-lane groups and nowhere by the wavefront."""
    chain, todo = [view], [view]
    for _ in range(3):
        todo = [c for t in todo for c in fv.callers(t) if all(c is not x for x in chain)]
        chain += todo
    scope = chain + [c for v in chain for c in fv.callees(v)]
    return _group_organized(scope) and _wave_organized(scope) is None


def _default_site(facts: FileFacts, view: FunctionView, call: Node, param: Param) -> Loc:
    """Where the parameter's default is written (`width = 32` in the signature), else the function."""
    spelled = re.compile(rf"\b{re.escape(param.name)}\s*=\s*\w")
    for line in range(view.fn.loc.line, call.loc.line):
        m = spelled.search(_code(facts.lines[line - 1])) if line <= len(facts.lines) else None
        if m:
            return Loc(facts.path, line, m.start() + 1, line, m.end() + 1)
    return view.fn.loc


_DEFAULT_IN_GROUPS = "uses the default width ({wave}) in code organized as 32-lane groups"


def _undeclared_lane_shuffles(fv: FileView, view: FunctionView) -> Iterator[tuple[Node, Node]]:
    """(call, source lane) of the calls of undeclared shuffle-named functions (fact_queries.undeclared_shuffle)
    that read a 32-lane id's lane with no width. Their signature is not known, so only the two shapes shared by
    every shuffle are read: (value, lane) and (mask, value, lane); a further argument may be a width, and such
    a call is not judged."""
    for call in view.calls():
        if undeclared_shuffle(fv.facts, call) != "lane":
            continue
        args = list(call.children)
        if len(args) == 3 and _mask_like(view, args[0]):
            args = args[1:]
        if len(args) == 2 and view.lane_class(args[1]) == LANE32 and not _low_lanes_only(fv, view, call):
            yield call, args[1]


def _mask_like(view: FunctionView, node: Node) -> bool:
    """A lane-mask argument: a constant of more than 16 bits (0xffffffff, ~0ull), a mask producer's result, or a
    name that says so."""
    node = strip(node)
    value = view.const(node)
    return (isinstance(value, int) and not 0 <= value < 1 << 16) or \
        (node.kind == "call" and node.op in MASK_PRODUCERS) or "mask" in node.op.lower()


def _guarded_by_group_lane(view: FunctionView, call: Node) -> bool:
    """A scan step `if (lane >= offset) v += t` (or `if (lane < offset)` taking the other branch) with a 32-lane
    id: lane 32 + k adds what lane 32 + k - offset held only when k >= offset, so the step never reads across a
    group boundary whatever the shuffle's width, and each 32-lane group is scanned on its own."""
    offset = shuffle_parts(call)[1]
    loop = next((a for a in view.ancestors(call) if a.kind == "for"), None)
    scope = loop if loop is not None else view.fn.body
    if offset is None or scope is None:
        return False
    for n in scope.walk():
        if n.kind != "binop" or len(n.children) != 2 or n.op not in (">=", ">", "<", "<="):
            continue
        lane, bound = n.children if n.op in (">=", "<") else n.children[::-1]
        if view.lane_class(lane) == LANE32 and same_expr(strip(bound), strip(offset)):
            return True
    return False


def _append_width(facts: FileFacts, call: Node) -> tuple[Edit, ...]:
    loc = call.loc
    if loc.end_line != loc.line:
        return ()
    line = facts.byte_line(loc.line)
    close = loc.end_col - 2   # 0-based index of the call's ')'
    if 0 <= close < len(line) and line[close] == ")":
        return (Edit(loc.line, close + 1, loc.line, close + 1, ", 32"),)
    return ()


# --------------------------------------------------------------------------------------------------- W64-008

def per_warp_array_32(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    for view in _device_views(fv):
        for use in _default_warp_reduces(ctx, view.fn.loc):
            for loc, bound in use.storage:
                if re.search(r"/\s*32\b|>>\s*5\b", bound):
                    yield Match(loc, {"what": f"'{_text(facts, loc)}' holds one WarpReduce TempStorage per 32 "
                                              f"threads ([{bound.strip()}]), but the WarpReduce at line "
                                              f"{use.decl.line} has the default logical width, the whole "
                                              f"{target.wave_size}-lane wavefront: the two 32-lane groups of a "
                                              f"wavefront hand one reduction different storage",
                                      "wave": str(target.wave_size)}, confidence="medium")
        shared_decls = {n.ref: n for n in view.nodes() if n.kind == "decl" and n.macro == "shared"}
        counts: dict[str, Node] | None = None
        used: set[str] = set()
        for ref, index, loc, array in _slot_uses(ctx, view, shared_decls):
            if view.lane_class(index) != WARPW:
                continue
            decl = shared_decls[ref]
            extent = _bracket_text(facts, decl)
            if counts is None:
                counts = _warp_count_constants(view)
                used = {n.ref for n in view.nodes() if n.kind == "ref" and n.ref in counts}
            sized_by_32 = re.search(r"/\s*32\b|>>\s*5\b", extent) is not None or any(
                re.search(rf"\b{re.escape(counts[r].op)}\b", extent) for r in used)
            in_decl_bounds = {id(k) for b in view.nodes() if b.kind == "bounds" for k in b.walk()}
            bounds = [n for n in view.nodes() if n.kind == "binop" and n.op in ("/", ">>") and len(n.children) == 2
                      and id(n) not in in_decl_bounds
                      and view.const(n.children[1]) == {"/": 32, ">>": 5}[n.op]
                      and view.lane_class(n.children[0]) is None and not view.depends_on_thread(n.children[0])]
            if not sized_by_32 and not bounds and not used:
                continue
            sized = f"'{decl.op}' is sized [{extent.strip()}] for 32-lane warps"
            detail = sized if sized_by_32 else f"partials are counted with '{_spell(facts, bounds[0])}' " \
                                                f"(line {bounds[0].loc.line})"
            slots = f"'{array}' is indexed by '{_spell(facts, index)}' (one slot per " \
                    f"{target.wave_size}-lane wavefront) but"
            yield Match(loc, {"what": f"{slots} {detail}: half of the slots are never written",
                                  "wave": str(target.wave_size)})
            for b in bounds:
                yield Match(b.loc, {"what": f"{slots} '{_spell(facts, b)}' counts 32-lane warps: half of the slots "
                                            f"are never written", "wave": str(target.wave_size)},
                            confidence="medium")
            for r in sorted(used):   # the constant's definition is the line to change
                yield Match(counts[r].loc, {"what": f"{slots} '{counts[r].op}' is defined here as a count of "
                                                    f"32-lane warps: half of the slots are never written",
                                            "wave": str(target.wave_size)})
        yield from _lanes_past_partials(ctx, view, shared_decls)
        yield from _lane_indexed_scratch(ctx, view)
        for node, twin in _counts_32_lanes(facts, view, _wave_products(ctx, [view])):
            yield Match(node.loc, {"what": f"'{_spell(facts, node)}' sizes for a warp of 32 lanes what the code "
                                           f"covers with '{_spell(facts, twin)}' (line {twin.loc.line}), a "
                                           f"{target.wave_size}-lane wavefront's worth: the lanes past 32 work "
                                           f"beyond the space it rounds to", "wave": str(target.wave_size)},
                        confidence="medium")
        yield from _tile_per_32_lanes(ctx, view)
    yield from _past_the_array_on_the_wave(ctx)


NARROW_WARP = 32          # the warp width code written for NVIDIA sizes its per-warp scratch by


def _product(view: FunctionView, node: Node, depth: int = 0) -> tuple[Node, Node] | None:
    """(factor, constant factor) of `a * K`, read through a variable's single definition."""
    node = strip(node)
    if node.kind == "ref" and depth < 3 and len(view.defs.get(node.ref, [])) == 1:
        return _product(view, view.defs[node.ref][0], depth + 1)
    if node.kind != "binop" or node.op != "*" or len(node.children) != 2:
        return None
    a, b = node.children
    if isinstance(view.const(b), int):
        return strip(a), strip(b)
    return (strip(b), strip(a)) if isinstance(view.const(a), int) else None


def _is_block_x_index(node: Node) -> bool:
    return node.kind == "member" and node.op == "x" and bool(node.children) and strip(node.children[0]).op == "blockIdx"


def _tile_per_32_lanes(ctx: RuleContext, view: FunctionView) -> Iterator[Match]:
    """`blockIdx.x * TILE + lane * V` with lane a wavefront lane id and TILE = 32 * V: each block's tile holds
    a 32-lane warp's V elements per lane, but the 64 lanes of a wavefront cover 2 * TILE, so lanes 32-63 work on
    the next block's tile (and the last block's run past the end). Reported at TILE's definition where it is a
    named constant, else at the sum."""
    wave = ctx.target.wave_size
    for node in view.nodes():
        if node.kind != "binop" or node.op != "+" or len(node.children) != 2:
            continue
        terms = [_product(view, c) for c in node.children]
        if None in terms:
            continue
        for (blk, tile), (lane, per) in (terms, terms[::-1]):   # type: ignore[misc]
            t, v = view.const(tile), view.const(per)
            # a tile that is a template argument is picked per width by the host (tile<64 * 8> for 64 lanes)
            if tile.op == "template" or tile.op in view.fn.template_params or not (
                    _is_block_x_index(blk) and view.lane_class(lane) == LANEW and isinstance(t, int)
                    and isinstance(v, int) and v > 0 and t == NARROW_WARP * v):
                continue
            named = next((d for d in (view.decls.get(tile.ref), *(g for g in view.facts.globals
                                                                    if g.ref == tile.ref)) if d is not None), None)
            yield Match(named.loc if named is not None and tile.kind == "ref" else node.loc, {
                "what": f"'{_spell(ctx.facts, node)}' gives each block a tile of {t} = {NARROW_WARP} lanes x {v}, "
                        f"but '{_spell(ctx.facts, lane)}' is a wavefront lane id (0-{wave - 1}): lanes "
                        f"{NARROW_WARP}-{wave - 1} cover {t}-{wave * v - 1} past the block's start, the next "
                        f"block's tile", "wave": str(wave)}, confidence="medium")


def _past_the_array_on_the_wave(ctx: RuleContext) -> Iterator[Match]:
    """A shared array of constant size that an access (in place, or in a helper it is handed to) stays inside
    when warpSize is 32 but reaches past with the target's wavefront (bscan's `__shared__ int sdata[64]` for
    `2 x 1024 / 32`, handed to a warp scan that writes s_data[warpSize + lane] from the lanes of wavefront 0: up
    to 127 on gfx942). Every thread of each launched block is evaluated under the access's guards, with warpSize
    32 and then the target's width; reported once per array, at its declaration (the line to change)."""
    wave = ctx.target.wave_size
    if wave <= NARROW_WARP:
        return
    worst: dict[str, tuple[int, LdsAccess, str]] = {}   # array ref -> (end, access, block) reaching furthest
    for view in function_views(ctx):
        if not _reached_whole(ctx.view, view):
            continue
        for block in function_blocks(ctx.view, view.fn, (256, 1, 1), wave):
            if block.assumed:
                continue
            past = [(a, end) for a in _walk(ctx, view, block.dims, wave)
                    if (end := _reach(a, block.dims)) is not None and a.decl.total_bytes and end > a.decl.total_bytes]
            if not past:
                continue
            narrow = {(a.node.loc, a.op, a.decl.ref): a for a in _walk(ctx, view, block.dims, NARROW_WARP)}
            for a, end in past:
                twin = narrow.get((a.node.loc, a.op, a.decl.ref))
                fits = _reach(twin, block.dims) if twin is not None else None
                if fits is not None and fits <= a.decl.total_bytes and end > worst.get(a.decl.ref, (0,))[0]:
                    worst[a.decl.ref] = (end, a, block.text())
    for end, a, block_text in worst.values():
        elem = a.decl.elem_bytes or a.width
        where = f" ({a.via})" if a.via else ""
        yield Match(a.decl.loc, {
            "what": f"'{a.decl.name}' holds {a.decl.total_bytes // elem} elements, enough while warpSize is "
                    f"{NARROW_WARP}, but with {wave}-lane wavefronts the {a.op} at line {a.node.loc.line}{where} "
                    f"reaches element {(end - 1) // elem} in blocks of {block_text}: it runs past the array",
            "wave": str(wave)})


_BRANCHING = ("if", "for", "while", "do", "cond")   # statements under which code may not run, or run again


def _exits_early(view: FunctionView) -> bool:
    """A return, break or continue under a branch or loop: threads past it skip accesses after it, which the
    walk of the accesses does not know."""
    return any(n.kind in ("return", "break", "continue") and
               any(a.kind in _BRANCHING for a in view.ancestors(n)) for n in view.nodes())


def _reached_whole(fv: FileView, view: FunctionView, depth: int = 0) -> bool:
    """Every thread of the block runs the function's accesses under the guards its own walk sees: neither it
    nor a device function it calls exits early, and a device function is called only from straight-line code
    (under no branch or loop) of functions that are reached whole in turn, up to kernels."""
    if depth > 4 or any(_exits_early(v) for v in (view, *fv.callees(view))):
        return False
    if view.fn.kind == "kernel":
        return True
    callers = list(fv.callers(view))
    for caller in callers:
        for call in caller.calls():
            if any(t is view for t in fv.targets(call)) and \
                    any(a.kind in _BRANCHING for a in caller.ancestors(call)):
                return False
    return bool(callers) and all(_reached_whole(fv, c, depth + 1) for c in callers)


def _walk(ctx: RuleContext, view: FunctionView, block: tuple[int, int, int], wave: int) -> list[LdsAccess]:
    """The function's shared accesses with warpSize taken as `wave`."""
    try:
        return AccessWalker(ctx, view, block, wave).accesses()[0]
    except Undetermined:
        return []


_THREAD_SYMBOLS = frozenset({"tid.x", "tid.y", "tid.z", "bdim.x", "bdim.y", "bdim.z"})


def _reach(acc: LdsAccess, block: tuple[int, int, int]) -> int | None:
    """One past the last byte any thread of the block touches with the access, where its guards let it run;
    None when the address depends on more than the thread (a loop, a kernel argument) or nothing runs it."""
    if acc.width <= 0 or not symbols(acc.offset) <= _THREAD_SYMBOLS or \
            (acc.predicate is not None and not symbols(acc.predicate) <= _THREAD_SYMBOLS):
        return None
    address, runs = compile_fn(acc.offset), compile_fn(acc.predicate) if acc.predicate is not None else None
    env = {"bdim.x": block[0], "bdim.y": block[1], "bdim.z": block[2]}
    end = None
    for z in range(block[2]):
        for y in range(block[1]):
            for x in range(block[0]):
                env["tid.x"], env["tid.y"], env["tid.z"] = x, y, z
                try:
                    if runs is not None and not runs(env):
                        continue
                    top = address(env) + acc.width
                except (EvalError, ZeroDivisionError):
                    return None
                end = top if end is None else max(end, top)
    return end


def _lanes_past_partials(ctx: RuleContext, view: FunctionView, decls: dict[str, Node]) -> Iterator[Match]:
    """`v = partial[lane]` with lane a wavefront lane id (0-63) from an array of per-warp partials (indexed by
    warp ids elsewhere) that holds fewer slots than the wavefront has lanes (NUM_WARPS = 1024 / warpSize is 16),
    with nothing in the way of the lanes past the last slot: they read beyond the array, and whatever lies there
    enters the reduction that follows."""
    facts, wave = ctx.facts, ctx.target.wave_size
    per_warp = {ref for ref, index, _, _ in _slot_uses(ctx, view, decls) if view.lane_class(index) in (WARPW, WARP32)}
    if not per_warp:
        return
    subscripts = {(n.loc.line, n.loc.col): n for n in view.nodes() if n.kind == "index"}
    for a in facts.shared_accesses:
        node = subscripts.get((a.loc.line, a.loc.col))
        if a.function != view.fn.usr or a.ref not in per_warp or a.is_write or len(a.indices) != 1 or node is None \
                or view.lane_class(a.indices[0]) != LANEW:
            continue
        bounds = next((k for k in decls[a.ref].children if k.kind == "bounds" and k.children), None)
        slots = view.value_at(bounds.children[0], wave) if bounds is not None else None
        if slots is None or slots >= wave or _bounded(view, node, slots, wave):
            continue
        extent = _bracket_text(facts, decls[a.ref]).strip()
        spelled = "" if extent == str(slots) else f" ([{extent}] with warpSize = {wave})"
        yield Match(a.loc, {"what": f"'{_spell(facts, node)}' is read by every lane of the {wave}-lane wavefront "
                                    f"('{_spell(facts, a.indices[0])}' is a wavefront lane id, 0-{wave - 1}), but "
                                    f"'{a.array}' holds {slots} per-warp partials{spelled} and nothing keeps lanes "
                                    f"{slots}-{wave - 1} out: they read past the array", "wave": str(wave)})


def _lane_indexed_scratch(ctx: RuleContext, view: FunctionView) -> Iterator[Match]:
    """`__shared__ T buf[32]` handed to a function (the file's or a project header's, directly or through calls
    that pass the pointer on) that subscripts it at a wavefront lane id (`threadIdx.x % warpSize`, 0-63) with
    nothing keeping the lanes past the array out: lanes 32-63 reach past its end. 32 is both the per-warp slot
    count of a 1024-thread block and the warp width on NVIDIA, so one buffer serves as per-warp partials and as
    one slot per lane there; on a 64-lane wavefront the second use needs 64. Reported at the declaration, the
    line to change; a buffer only ever indexed by warp ids (16 in a 1024-thread block) is not."""
    facts, wave, fv = ctx.facts, ctx.target.wave_size, ctx.view
    arrays = {s.ref: s for s in facts.shared if s.function == view.fn.usr and len(s.dims) == 1
              and isinstance(s.dims[0], int)}
    reported: set[str] = set()
    for call in view.calls():
        for pos, arg in enumerate(call_args(call)):
            base, pointee = _passed_pointer(arg)
            shared = arrays.get(base.ref) if base is not None else None
            if shared is None or shared.ref in reported:
                continue
            slots, cast = shared.dims[0], bool(pointee and shared.elem_bytes and pointee != shared.elem_bytes)
            if cast:   # reinterpret_cast<int64_t*>(words) of uint32_t words[64]: 32 elements of the cast type
                slots = slots * shared.elem_bytes // pointee
            hit = _lane_subscript(fv, call, pos, slots, wave, ()) if slots < wave else None
            if hit is None:
                continue
            reported.add(shared.ref)
            callee, subscript, param, index, through = hit
            via = f" (which passes it on to '{callee.fn.name}')" if through else ""
            held = f"{slots} entries" if not cast else \
                f"{slots} entries of {pointee} bytes as it is cast ({shared.dims[0]} of {shared.elem_bytes} declared)"
            yield Match(shared.loc, {
                "what": f"'{shared.name}' holds {held}, but '{call.op}'{via} subscripts it ('{param}') at {index} "
                        f"(line {subscript.loc.line} of {Path(subscript.loc.path).name}), a wavefront lane id "
                        f"(0-{wave - 1}): lanes {slots}-{wave - 1} of the {wave}-lane wavefront reach past the array",
                "wave": str(wave)})


def _passed_pointer(arg: Node) -> tuple[Node | None, int | None]:
    """The variable an argument passes as a pointer, through casts, and the element size of a pointer cast on
    the way (`reinterpret_cast<double*>(buf)`: 8), if any."""
    node, pointee = arg, None
    while node.kind == "cast" and node.children:
        if node.op not in ("implicit", "functional") and node.ref and node.ref.isdigit() and pointee is None:
            pointee = int(node.ref)
        node = node.children[0]
    return (node, pointee) if node.kind == "ref" else (None, None)


def _lane_subscript(fv: FileView, call: Node, pos: int, slots: int, wave: int,
                    through: tuple[str, ...]) -> tuple[FunctionView, Node, str, str, tuple[str, ...]] | None:
    """(function, subscript, pointer name, index name, functions passed through) of the first subscript of
    argument `pos` of `call` at a wavefront lane id that may reach `slots` or beyond, in the called function or
    in those it passes the pointer on to unchanged (three calls deep)."""
    for callee in fv.targets(call):
        params = callee.fn.params
        if pos >= len(params) or "*" not in params[pos].type or callee.fn.body is None:
            continue
        name = params[pos].name
        for node in callee.nodes():
            if node.kind != "index" or len(node.children) != 2 or not _names_param(callee, node.children[0], name):
                continue
            index = strip(node.children[1])
            if callee.lane_class(index) == LANEW and not _bounded(callee, node, slots, wave) \
                    and not _pinned_below(callee, node, slots, wave):
                return callee, node, name, _spell_name(index), through
        if len(through) >= 2:
            continue
        for inner in callee.calls():
            for inner_pos, arg in enumerate(call_args(inner)):
                base, pointee = _passed_pointer(arg)
                if base is not None and pointee is None and _names_param(callee, base, name):
                    hit = _lane_subscript(fv, inner, inner_pos, slots, wave, (*through, callee.fn.name))
                    if hit is not None:
                        return hit
    return None


def _names_param(view: FunctionView, node: Node, name: str) -> bool:
    """`node` reads the function's parameter `name`, which the body never redeclares or assigns."""
    node = strip(node)
    return node.kind == "ref" and node.op == name and node.ref not in view.decls and node.ref not in view.defs


def _spell_name(node: Node) -> str:
    """A lane-id index as words without the source text (it may be a header's): its variable or getter."""
    if node.kind == "ref" and node.op:
        return f"'{node.op}'"
    return f"'{node.op}()'" if node.kind == "call" and node.op else "an expression"


def _pinned_below(view: FunctionView, node: Node, slots: int, wave: int) -> bool:
    """An enclosing test fixes the lane to one value inside the array: `if (lane == 0)` or `if (threadIdx.x ==
    3)` (a lane test against warpSize - 1 lets lane 63 through and fixes nothing below `slots`)."""
    for cond in _guarding_conditions(view, node):
        for test in cond.walk():
            if test.kind != "binop" or test.op != "==" or len(test.children) != 2:
                continue
            for lane, k in (test.children, test.children[::-1]):
                value = view.value_at(k, wave)
                if view.lane_class(lane) in (LANEW, TID) and value is not None and value % wave < slots:
                    return True
    return False


def _bounded(view: FunctionView, node: Node, slots: int, wave: int) -> bool:
    """The read is guarded by a bound on a thread value (`lane < NUM_WARPS ? s[lane] : 0`, `if (threadIdx.x <
    blockDim.x / warpSize)`), unless that bound is a known number that lets lanes past the array's slots through."""
    for test, _ in _thread_bounds(view, node):
        limit = view.value_at(test.children[1], wave)
        if limit is None or limit - (test.op == "<") < slots:
            return True
    return False


def _slot_uses(ctx: RuleContext, view: FunctionView, decls: dict[str, Node]) -> Iterator[tuple[str, Node, Loc, str]]:
    """(array ref, outermost index, where, name) of the function's subscripts of its shared arrays, written in
    place or made by a header helper through a pointer and an index the call passes (`put(partial, warp, v)`)."""
    fv = ctx.view
    if not decls:
        return
    for a in fv.facts.shared_accesses:
        if a.function == view.fn.usr and a.ref in decls and a.indices:
            yield a.ref, a.indices[0], a.loc, a.array
    for call in view.calls():
        helper = fv.helper(call)
        if helper is None:
            continue
        args = call_args(call)
        for d in param_derefs(ctx, helper):
            if d.index_param is None or max(d.param, d.index_param) >= len(args):
                continue
            base = strip(args[d.param])
            if base.kind == "ref" and base.ref in decls:
                yield base.ref, args[d.index_param], call.loc, base.op


def _warp_count_constants(view: FunctionView) -> dict[str, Node]:
    """Constants (local or file-scope) defined as a thread count divided by 32: NUM_WARPS = 256 / 32."""
    out = {}
    for d in [*view.decls.values(), *view.facts.globals]:
        init = strip(d.children[0]) if d.kind == "decl" and d.children and d.children[0].kind != "bounds" else None
        if init is not None and init.kind == "binop" and init.op in ("/", ">>") and len(init.children) == 2 \
                and view.const(init.children[1]) == {"/": 32, ">>": 5}[init.op] \
                and view.lane_class(init.children[0]) is None and not view.depends_on_thread(init.children[0]):
            out[d.ref] = d
    return out


def _bracket_text(facts: FileFacts, decl: Node) -> str:
    """The array bound as written in the declaration, with integer macros replaced by their values."""
    line = facts.byte_line(decl.loc.line)
    m = re.search(r"\[([^\]]*)\]", line[decl.loc.col - 1:])
    if not m:
        return ""
    values = {mac.name: str(mac.value) for mac in facts.macros if mac.value is not None}
    return from_byte_text(re.sub(r"\b[A-Za-z_]\w*\b", lambda t: values.get(t.group(0), t.group(0)), m.group(1)))


# --------------------------------------------------------------------------------------------------- W64-009

def _wave_ops(views: Iterable[FunctionView]) -> Iterator[Node]:
    """The operations in these functions that see the whole wavefront: a vote, a default-width broadcast or scan
    step (not one whose value is added only where a 32-lane id is at least the offset: it stays in its group), or
    a warpSize-wide loop."""
    for v in views:
        for call in v.calls(SHUFFLES | WAVE_WIDE):
            base = call.op.removesuffix("_sync")
            if base == "__shfl_up" and _guarded_by_group_lane(v, call):
                continue
            if call.op in WAVE_WIDE or (base in ("__shfl", "__shfl_up") and _is_default_width(call)):
                yield call
        for loop in (n for n in v.nodes() if n.kind == "for"):
            parts = _loop_parts(v, loop)
            if parts and parts[1] in (W_HALF, W):
                yield loop


def _needs_wave(views: Iterable[FunctionView]) -> Node | None:
    """The first operation in these functions that sees the whole wavefront (_wave_ops)."""
    return next(_wave_ops(views), None)


def _row_spanning_ops(fv: FileView, name: str, target: Target) -> list[Node]:
    """The operations of kernel `name` (or its callees) that see the whole wavefront, the cooperative-groups
    tiles it makes as wide as the wavefront (`tiled_partition<W>` with W 64 on the target: their collectives
    span it), and its calls of a warp reduction from a header not on the include path (PyTorch's
    cuda_utils::WarpReduceSum: C10_WARP_SIZE wide)."""
    ops: list[Node] = []
    for kernel in fv.kernel_by_name(name):
        views = [kernel, *fv.callees(kernel)]
        ops += [op for op in _wave_ops(views) if all(op is not o for o in ops)]
        ops += [t for v in views if (t := _wave_tile(v, target)) is not None and all(t is not o for o in ops)]
        ops += [c for v in views for c in v.nodes()
                if undeclared_warp_reduce(fv, v, c) and all(c is not o for o in ops)]
    return sorted(ops, key=lambda n: (n.loc.line, n.loc.col))


def _block_site(fv: FileView, launch: Launch) -> Loc:
    """Where a reviewer changes a launch's block: the definition of a named x extent
    (`constexpr int kThreadX = kReduceTileSize; ... dim3(kThreadX, kThreadY)`) or of the block variable the launch
    names (`const dim3 threads = {32u, rows, 1}; ... <<<blocks, threads>>>`), else the block as written."""
    block = strip(launch.block) if launch.block is not None else None
    if block is None or not block.loc.line:
        return launch.loc
    host = next((v for v in fv.views if v.fn.usr == launch.caller), None)
    if block.kind == "ref" and host is not None and block.ref in host.decls:
        block = host.decls[block.ref]
        init = strip(block.children[0]) if block.children else None
        if init is None or init.kind != "call" or init.op != "dim3":
            return block.loc
        block = init
    x = strip(block.children[0]) if block.kind == "call" and block.op == "dim3" and block.children else None
    decl = host.decls.get(x.ref) if host is not None and x is not None and x.kind == "ref" else None
    return decl.loc if decl is not None else block.loc


def _rows_words(n: int) -> str:
    return "one row" if n <= 1 else "two rows" if n == 2 else f"{n} rows"


def _op_words(op: Node) -> str:
    if op.op == "tiled_partition":
        return f"a tile of the wavefront's width ('{op.type}')"
    return f"'{op.op}'" if op.op else "a warpSize-wide loop"


def _reads_above(op: Node) -> bool:
    """The operation reads lanes above the caller's (a tree or butterfly from warpSize / 2, a wavefront-wide
    tile's collectives), rather than only lower lanes or a vote, to which lanes that do not run add nothing."""
    return op.kind == "for" or op.op == "tiled_partition"


def _one_block_grid(fv: FileView, launch: Launch) -> bool:
    """The launch's grid is a single block (`1`, `dim3(1)`, `dim3(1, 1)`)."""
    host = next((v for v in fv.views if v.fn.usr == launch.caller), None)
    grid = strip(launch.grid) if launch.grid is not None else None
    if host is None or grid is None:
        return False
    dims = grid.children if grid.kind == "call" and grid.op == "dim3" else (grid,)
    # dim3(1)'s y and z are the constructor's defaults, 1
    return bool(dims) and all(d.kind == "default" or host.const(d) == 1 for d in dims)


def _narrow_block(fv: FileView, launch: Launch, ops: list[Node], reported: set[tuple[int, int]],
                  wave: int) -> Iterator[Match]:
    """A one-row block narrower than a wavefront (32 threads, a warp on NVIDIA) for a kernel whose operations
    span the wavefront: the lanes past the block are never launched. An operation that reads above its lane
    (a butterfly's first step) then reads lanes that hold nothing: a wrong result. One that reads only lower lanes
    (a broadcast of lane 0, a shfl_up scan) or votes is right, and the block only leaves half of each wavefront
    idle: a note, with low confidence; not for a grid of one block, whose work (one block's) fits one wavefront
    either way, so no launch of fuller wavefronts would finish sooner."""
    x = launch.block_dims[0]   # type: ignore[index]
    wrong = [op for op in ops if _reads_above(op)]
    if not wrong and (x < 32 or _one_block_grid(fv, launch)):
        return   # a block narrower than 32 threads idles part of an NVIDIA warp too: nothing the port changed
    first = (wrong or ops)[0]
    effect = "reads lanes that hold no value" if wrong else "runs right, but those lanes idle in every wavefront"
    severity, confidence = (None, "medium") if wrong else ("note", "low")
    yield Match(_block_site(fv, launch),
                {"what": f"a block of {x} threads fills {x} of a wavefront's lanes, but '{launch.kernel}' uses "
                         f"{_op_words(first)} (line {first.loc.line}), which spans the whole wavefront: lanes "
                         f"{x}-{wave - 1} are never launched, so it {effect}", "wave": str(wave)},
                confidence=confidence, severity=severity)
    for op in wrong:
        if (op.loc.line, op.loc.col) not in reported:
            reported.add((op.loc.line, op.loc.col))
            yield Match(op.loc, {"what": f"{_op_words(op)} reads lanes {x}-{wave - 1}, which the {x}-thread "
                                         f"block that line {launch.loc.line} launches '{launch.kernel}' with "
                                         f"does not have", "wave": str(wave)}, confidence="medium")


def host_launch_32(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    fv = ctx.view
    reported: set[tuple[int, int]] = set()
    spanning: dict[str, list[Node]] = {}   # per kernel name: a file launches the same kernel many times
    for launch in facts.launches:
        # a block whose x extent is known (its y may be a template parameter's value: dim3(32, N / 16))
        dims, wave = launch.block_dims or launch.block_partial, target.wave_size
        # rows of x < wave threads: a wavefront holds wave / x of them (two of a dim3(32, k) block); a block of
        # several rows and at most 32 threads is one warp and one wavefront alike, every row in it on both
        if dims is None or not dims[0] or not 0 < dims[0] < wave or wave % dims[0] \
                or None not in dims and dims[1] * dims[2] > 1 and dims[0] * dims[1] * dims[2] <= 32:
            continue
        if launch.kernel not in spanning:
            spanning[launch.kernel] = _row_spanning_ops(fv, launch.kernel, target)
        ops = spanning[launch.kernel]
        if not ops:
            continue
        known = launch.block_dims is not None
        if known and dims[1] * dims[2] < 2:
            yield from _narrow_block(fv, launch, ops, reported, wave)
            continue
        rows = _rows_words(wave // dims[0])
        warp = "each row of 32 threads a warp" if dims[0] == 32 else f"{_rows_words(32 // dims[0])} of {dims[0]} " \
                                                                      f"threads a warp"
        block = "(" + ", ".join("?" if d is None else str(d) for d in dims) + ")"
        # with its row count open the block may have one row, whose wavefront then only half runs
        if_rows = "" if known else " when the block has more than one row (the row count is not a constant)"
        confidence = "high" if known else "medium"
        yield Match(_block_site(fv, launch),
                    {"what": f"block {block} makes {warp}, but '{launch.kernel}' uses {_op_words(ops[0])} (line "
                             f"{ops[0].loc.line}), which spans {rows} in one {wave}-lane wavefront{if_rows}",
                     "wave": str(wave)}, confidence=confidence)
        # ... and where the kernel does it, each place once however many launches share it
        for op in ops:
            if (op.loc.line, op.loc.col) not in reported:
                reported.add((op.loc.line, op.loc.col))
                yield Match(op.loc, {"what": f"{_op_words(op)} spans {rows} of the {block} block that line "
                                             f"{launch.loc.line} launches '{launch.kernel}' with, where a 32-lane "
                                             f"warp spans {_rows_words(32 // dims[0])}", "wave": str(wave)},
                            confidence=confidence)
    yield from _grid_per_32(fv, target)
    yield from _width_mismatch(fv, target)
    yield from _partial_wave_blocks(fv, target)
    yield from _launch_bounds_per_32(fv, target)
    yield from _wave_count_divisors(fv, target)
    yield from _block_sizes_stepped_by_32(fv.facts, target)
    hosts = {v.fn.usr: v for v in fv.views}
    wave_of: dict[str, dict[tuple[str, ...], Node]] = {}
    for launch in facts.launches:
        if (view := hosts.get(launch.caller)) is None:
            continue
        if launch.kernel not in wave_of:
            wave_of[launch.kernel] = _wave_products(ctx, fv.kernel_by_name(launch.kernel))
        if not wave_of[launch.kernel]:
            continue
        inputs = _launch_inputs(view, launch)
        for node, twin in _counts_32_lanes(facts, view, wave_of[launch.kernel], within=inputs):
            yield Match(node.loc, {"what": f"'{_spell(facts, node)}' sizes for a warp of 32 lanes what the "
                                           f"kernel covers with '{_spell(facts, twin)}' (line {twin.loc.line}), "
                                           f"one wavefront's worth", "wave": str(target.wave_size)},
                        confidence="medium")
    # A host count of 32-thread warps is wrong only against device code that works in hardware wavefronts;
    # next to kernels built on deliberate 32-lane logical warps (width 32, WARP_SIZE = 32) it is consistent. So it
    # is where device code that numbers its lanes in 32-lane groups only makes a wavefront-wide call: that call is
    # the device rules' finding (W64-002/004/007), and its fix keeps the groups the host counts.
    device = list(_device_views(fv))
    if _wave_organized(device) is None and (_needs_wave(device) is None or _group_organized(device)):
        return
    warpish = re.compile(params.get("name_pattern", r"(?i)warp|wave|lane"))
    for view in (v for v in fv.views if v.fn.kind in ("host", "host_device")):
        for node in view.nodes():
            if node.kind != "binop" or node.op not in ("/", "*", ">>") or len(node.children) != 2:
                continue
            if view.const(node.children[1]) != {"/": 32, "*": 32, ">>": 5}[node.op]:
                continue
            left = strip(node.children[0])
            names = [n.op for n in node.walk() if n.kind == "ref"]
            parent = view.parent(node)
            # `blocks_per_warp = DIVIDE(dim, NUM_WARPS * WARP_SIZE)`: the name is the quotient's, not its divisor's
            # (nor the divisor's copy in the round-up `(dim + d - 1) / d`)
            divisor = False
            while parent is not None and parent.kind in ("cast", "binop"):
                divisor |= parent.kind == "binop" and parent.op in ("/", ">>") and len(parent.children) == 2 \
                    and same_expr(strip(node), strip(parent.children[1]))
                nxt = view.parent(parent)
                if nxt is None:
                    break
                parent = nxt
            if parent is not None and parent.kind == "decl" and not divisor:
                names.append(parent.op)
            ceil_div = left.kind == "binop" and left.op == "+" and view.const(left.children[1]) == 31
            if not (any(warpish.search(n) for n in names) or (ceil_div and node.op == "/"
                                                             and any(warpish.search(n) for n in names))):
                continue
            yield Match(node.loc, {"what": f"'{_spell(facts, node)}' counts warps of 32 threads",
                                   "wave": str(target.wave_size)}, confidence="medium")


def _wave_count_divisors(fv: FileView, target: Target) -> Iterator[Match]:
    """`regs_per_sm / (regs_per_wave * (block_size / WarpSize))` in host occupancy math (Kokkos' HIP block-size
    deduction before c86224128): a thread count divided by the wavefront's width, truncated, as a factor of a
    divisor. A block of whole 32-lane warps is not one of whole wavefronts: 96 threads count one wavefront, not
    two (the block is credited half its registers), and a block under 64 threads none, a division by zero."""
    for view in (v for v in fv.views if v.fn.kind in ("host", "host_device")):
        for node in view.nodes():
            if node.kind != "binop" or node.op != "/" or len(node.children) != 2 \
                    or not _is_wave_width(view, node.children[1]) or view.const(node.children[0]) is not None:
                continue
            left = strip(node.children[0])
            if left.kind != "ref" or not _THREAD_COUNT.search(left.op):
                continue
            top, parent = node, view.parent(node)
            while parent is not None and (parent.kind == "cast" or parent.kind == "binop" and parent.op == "*"):
                top, parent = parent, view.parent(parent)
            if parent is None or parent.kind != "binop" or parent.op not in ("/", "%") \
                    or len(parent.children) != 2 or parent.children[1] is not top:
                continue
            yield Match(node.loc, {"what": f"'{_spell(fv.facts, node)}' counts whole wavefronts and divides by the "
                                           f"count: a block of 32-lane warps that is no multiple of "
                                           f"{target.wave_size} threads counts one too few, none under "
                                           f"{target.wave_size} threads (a division by zero)",
                                   "wave": str(target.wave_size)}, confidence="medium")


_BOUNDS = re.compile(r"__launch_bounds__\s*\(")
_PER_32 = re.compile(r"^\(?(.*?)\)?\s*(?:/\s*32|>>\s*5)$")


def _bound_args(text: str) -> list[str]:
    """The top-level arguments of the first `__launch_bounds__(...)` in `text`; [] without one."""
    m = _BOUNDS.search(text)
    if m is None:
        return []
    args, depth, start = [], 1, m.end()
    for i in range(m.end(), len(text)):
        depth += (text[i] == "(") - (text[i] == ")")
        if depth == 0 or (depth == 1 and text[i] == ","):
            args.append(" ".join(text[start:i].split()))
            start = i + 1
        if depth == 0:
            return args
    return []


def _launch_bounds_per_32(fv: FileView, target: Target) -> Iterator[Match]:
    """`__launch_bounds__(T, (T * B) / 32)`: HIP reads the second argument as the minimum of wavefronts per
    execution unit (a SIMD, four to a gfx942 CU), and CUDA code ported by counting 32-thread warps in B blocks of T
    threads (RAJA's `(BlockSize * BlocksPerSM) / 32`) asks for twice the wavefronts the blocks have, and four
    times that per SIMD: the compiler caps registers for an occupancy the launch never reaches. Read from the
    text, the template patterns' bounds being dependent."""
    seen: set[int] = set()
    for view in fv.views:
        loc = view.fn.loc
        if view.fn.kind != "kernel" or loc.line in seen:
            continue
        seen.add(loc.line)
        lines = fv.facts.lines[loc.line - 1:loc.line + 11]
        head = "\n".join(_code(line) for line in lines).split("{", 1)[0]
        args = _bound_args(head)
        m = _PER_32.match(args[1]) if len(args) == 2 else None
        if m is None or "*" not in m.group(1) or not re.search(rf"\b{re.escape(args[0])}\b", m.group(1)) \
                or not args[0].isidentifier():
            continue
        at = _BOUNDS.search(head)
        line = loc.line + head.count("\n", 0, at.start()) if at is not None else loc.line
        yield Match(Loc(fv.facts.path, line, 1, line, 1),
                    {"what": f"'{args[1]}' in __launch_bounds__ counts the block's warps of 32 threads, but HIP "
                             f"reads that argument as the least wavefronts per execution unit (SIMD, 4 per CU): "
                             f"{target.wave_size // 32 * 4} times the wavefronts per SIMD the blocks have",
                     "wave": str(target.wave_size)}, confidence="medium")


def _is_block_x(view: FunctionView, ref: str) -> bool:
    """The variable is the x extent of a block: `dim3 threads(w, ...)` or a launch's block."""
    for node in view.nodes():
        if node.kind == "call" and node.op == "dim3" and node.children and strip(node.children[0]).ref == ref:
            return True
        if node.kind == "launch" and len(node.children) > 1 and strip(node.children[1]).ref == ref:
            return True
    return False


def _becomes_block_x(fv: FileView, view: FunctionView, var: Node) -> bool:
    """`var` (assigned in `view`) is a block's x extent there, or it is a reference parameter whose argument
    a caller uses as one (`pick(log2, warp_size, kernel); dim3 threads(warp_size, ...)`)."""
    if _is_block_x(view, var.ref):
        return True
    index = next((i for i, p in enumerate(view.fn.params) if p.name == var.op and "&" in p.type), None)
    if index is None:
        return False
    for caller in fv.callers(view):
        for call in caller.calls({view.fn.name}):
            args = call_args(call)
            if index < len(args) and strip(args[index]).kind == "ref" and _is_block_x(caller, strip(args[index]).ref):
                return True
    return False


def _logical_width_params(kernel: FunctionView) -> dict[str, Node]:
    """Template parameters of a kernel pattern that are the width of its shuffles (its logical warp), when the
    kernel takes threadIdx.x as the lane without reducing it by that width: such a kernel is written for blocks
    exactly that wide. Parameter name -> the shuffle."""
    params = set(kernel.fn.template_params)
    out: dict[str, Node] = {}
    for call in kernel.calls(SHUFFLES):
        width = shuffle_parts(call)[2]
        if width is not None and strip(width).kind == "ref" and strip(width).op in params:
            out.setdefault(strip(width).op, call)
    if not out:
        return out
    reads_x = any(n.kind == "member" and n.op == "x" and n.children and strip(n.children[0]).op == "threadIdx"
                  for n in kernel.nodes())
    for node in kernel.nodes():   # `threadIdx.x % WARP_SIZE`: the lanes past the width repeat a group; correct
        if node.kind == "binop" and node.op in ("%", "&") and len(node.children) == 2 and \
                kernel.lane_class(node.children[0]) == TID:
            for name in _names_read(kernel, node.children[1]) & set(out):
                del out[name]
    return out if reads_x else {}


def _case_env(view: FunctionView, node: Node) -> tuple[dict[str, int], str]:
    """The value the enclosing `switch` variable has in the `case` holding `node` ({} outside one), and as words."""
    case = next((a for a in view.ancestors(node) if a.kind == "case"), None)
    switch = next((a for a in view.ancestors(case) if a.kind == "switch"), None) if case else None
    if case is None or switch is None or not case.children or not switch.children or \
            case.children[0].value is None or strip(switch.children[0]).kind != "ref":
        return {}, ""
    var, value = strip(switch.children[0]), case.children[0].value
    return {var.ref: value}, f" (for {var.op} = {value})"


def _names_read(view: FunctionView, node: Node, depth: int = 0) -> set[str]:
    """Names an expression reads, through the definitions of the locals it reads (`kLanes = WARP_SIZE`)."""
    names: set[str] = set()
    for n in node.walk():
        if n.kind == "ref":
            names.add(n.op)
            if depth < 4:
                for d in view.defs.get(n.ref, []):
                    names |= _names_read(view, d, depth + 1)
    return names


def _kernel_pointer_picks(view: FunctionView) -> Iterator[tuple[Node, str, tuple[Node, ...]]]:
    """`kernel = &k<T, 2, 32>` in a host pattern: (the assignment, kernel name, its explicit template arguments)."""
    for node in view.nodes():
        if node.kind != "binop" or node.op != "=" or len(node.children) != 2:
            continue
        rhs = strip(node.children[1])
        if rhs.kind == "unop" and rhs.op == "&" and rhs.children:
            rhs = strip(rhs.children[0])
        if rhs.kind == "ref" and rhs.children and rhs.op:
            yield node, rhs.op, rhs.children


def _wave_sized(view: FunctionView, filled: frozenset[str]) -> Iterator[tuple[Node, Node, Node]]:
    """(statement, variable, value) for each variable defined or assigned from the device's wavefront width."""
    for n in view.nodes():
        if n.kind == "binop" and n.op == "=" and len(n.children) == 2 and strip(n.children[0]).kind == "ref":
            var, value = strip(n.children[0]), n.children[1]
        elif n.kind == "decl" and n.children and n.children[0].kind != "bounds":
            var, value = n, n.children[0]
        else:
            continue
        if any(is_device_wave_query(k, filled) for k in value.walk()):
            yield n, var, value


def _mismatch_words(var: str, width: int, case: str, kernel: str, line: int, found: tuple[str, int, Node]) -> str:
    param, value, shuffle = found
    return (f"{var} is {width} here{case}, the device's wavefront width asked at run time, and is blockDim.x of "
            f"'{kernel}', which line {line} instantiates with {param} = {value}: that kernel takes threadIdx.x as "
            f"its lane and shuffles with width {param} (line {shuffle.loc.line}), so threads {value}-{width - 1} of "
            f"each row index past its {value}-lane group and reduce apart from it")


# A host tuner's block-size candidates 32, 64, 96, ... up to a bound: a counted loop from 32 stepping by 32
# (`for (b = 32; b <= 1024; b += 32)`) or a (start, end, step) argument triple (`Autotuner(32, 1024, 32, ...)`).
_STEP_32_LOOP = re.compile(r"\bfor\s*\((?:[\w:]+\s+)*(\w+)\s*=\s*32\s*;\s*\1\s*<=?\s*(\d+)\s*;\s*\1\s*\+=\s*32\s*\)")
_STEP_32_RANGE = re.compile(r"\(\s*32\s*,\s*(\d+)\s*,\s*32\s*[,)]")
_NEAR_QUERY = 40   # lines either side: the query and the candidates are one constructor's tuner set-up


def _block_sizes_stepped_by_32(facts: FileFacts, target: Target) -> Iterator[Match]:
    """Host code that asks the device for its wavefront width (HOOMD's dev_prop.warpSize for the tuner's
    threads-per-particle list) and next to it steps block-size candidates by a hard-coded 32: the odd multiples of
    32 (32, 96, 160, ...) are partial 64-lane wavefronts, and a 32-thread block holds no group of the 64 lanes
    the same tuner pairs it with. Read from the text: such set-up code is often a constructor the parse lost (its
    parameter types are declared in headers not read). Device code and skipped branches are left out; a bound
    of at most 64 (a (32, 32, 32) tile shape) is no range of block sizes."""
    wave = target.wave_size
    device = {i for fn in facts.functions if fn.kind in ("kernel", "device") and fn.loc.path == facts.path
              for i in range(fn.loc.line, fn.loc.end_line + 1)}
    skipped = set(facts.inactive_lines)
    code = {i: text for i, text in _code_lines(facts) if i not in skipped and i not in device}
    queries = [i for i, text in code.items() if DEVICE_WAVE_TEXT.search(text)]
    for i, text in code.items():
        for m in [*_STEP_32_LOOP.finditer(text), *_STEP_32_RANGE.finditer(text)]:
            bound = int(m.group(m.re.groups))
            near = next((q for q in queries if abs(q - i) <= _NEAR_QUERY), None)
            if bound <= wave or bound % wave or near is None:
                continue
            yield Match(Loc(facts.path, i, m.start() + 1, i, m.end() + 1),
                        {"what": f"block sizes step by a hard-coded 32 up to {bound} ('{m.group(0).strip()}'), next "
                                 f"to the device's width asked at run time (line {near}): every other candidate "
                                 f"(32, 96, 160, ...) is a partial wavefront", "wave": str(wave)},
                        confidence="medium")


def _width_mismatch(fv: FileView, target: Target) -> Iterator[Match]:
    """A block as wide as the device's wavefront (asked at run time: 64 on gfx942) for a kernel instantiated with
    a narrower compile-time warp width: apex's `warp_size = min(next_power_of_two, at::cuda::warp_size())` next to
    `kernel = &softmax_warp_forward<..., WARP_SIZE = 32, ...>`, or `k<T, 32><<<grid, dim3(w, 4)>>>` with w asked
    from the device. Threads past the kernel's width take lane ids it never expects, alias the first group's
    elements and reduce on their own."""
    wave = target.wave_size
    for view in (v for v in fv.views if v.fn.kind == "host"):
        filled = device_wave_vars(view)
        sized = [(n, var, value) for n, var, value in _wave_sized(view, filled) if _becomes_block_x(fv, view, var)]
        picks = list(_kernel_pointer_picks(view)) if sized else []
        for stmt, var, value in sized:
            for pick, name, args in picks:
                env, case = _case_env(view, pick)
                width = host_wave_value(view, value, env, filled, wave)
                found = _narrower_kernel(fv, name, [view.const(a) for a in args], width)
                if found is not None:
                    yield Match(stmt.loc, {"what": _mismatch_words(f"'{var.op}'", width or 0, case, name,
                                                                   pick.loc.line, found), "wave": str(wave)},
                                confidence="medium")
                    break
        yield from _launch_width_mismatch(fv, view, filled, wave)


def _launch_width_mismatch(fv: FileView, view: FunctionView, filled: frozenset[str], wave: int) -> Iterator[Match]:
    """The direct form: `k<T, 2, 32><<<grid, dim3(w, 4)>>>` with w the device's width."""
    launches = {(n.loc.line, n.loc.col): n for n in view.nodes() if n.kind == "launch"}
    for launch in fv.facts.launches:
        node = launches.get((launch.loc.line, launch.loc.col))
        if launch.caller != view.fn.usr or not launch.template_args or launch.block is None or node is None:
            continue
        block = strip(launch.block)
        if block.kind == "ref" and view.definition(block.ref) is not None:
            block = strip(view.definition(block.ref))   # type: ignore[arg-type]
        x = strip(block.children[0]) if block.kind == "call" and block.op == "dim3" and block.children else block
        if not involves_device_wave(view, x, filled):
            continue
        env, case = _case_env(view, node)
        width = host_wave_value(view, x, env, filled, wave)
        values = [int(a) if re.fullmatch(r"-?\d+", a) else None for a in launch.template_args]
        found = _narrower_kernel(fv, launch.kernel, values, width)
        if found is not None:
            yield Match(launch.block.loc if launch.block.loc.line else launch.loc,
                        {"what": _mismatch_words("the block's x extent", width or 0, case, launch.kernel,
                                                 launch.loc.line, found), "wave": str(wave)}, confidence="medium")


def _narrower_kernel(fv: FileView, name: str, values: list[int | str | None],
                     width: int | None) -> tuple[str, int, Node] | None:
    """(parameter, its value, a shuffle of that width) where the template arguments `values` give kernel `name` a
    logical warp narrower than a block `width` threads wide."""
    if width is None:
        return None
    for kernel in fv.kernel_by_name(name):
        if not kernel.fn.is_template:
            continue
        for param, shuffle in _logical_width_params(kernel).items():
            position = kernel.fn.template_params.index(param)
            value = values[position] if position < len(values) else None
            if isinstance(value, int) and 0 < value < width:
                return param, value, shuffle
    return None


def _truncated_wave_count(view: FunctionView, wave: int) -> Node | None:
    """`blockDim.x / WARP_SIZE` with the wavefront's width: a count of wavefronts that drops a partial one."""
    for node in view.nodes():
        if node.kind == "binop" and node.op == "/" and len(node.children) == 2 and view.const(node.children[1]) \
                in (W, wave):
            left = strip(node.children[0])
            if left.kind == "member" and left.op == "x" and left.children and strip(left.children[0]).op == "blockDim":
                return node
    return None


def _wave_butterfly(view: FunctionView, wave: int) -> Node | None:
    """A default-width shuffle loop whose offsets start at half the wavefront: it reads every lane of the wave."""
    for loop in (n for n in view.nodes() if n.kind == "for"):
        parts = _loop_parts(view, loop)
        if parts is None or parts[1] not in (W_HALF, wave // 2) or parts[2] != "down":
            continue
        for call in (c for c in parts[3].walk() if c.kind == "call" and c.op in SHUFFLES):
            offset = shuffle_parts(call)[1]
            if _is_default_width(call) and offset is not None and _uses_var(offset, parts[0]):
                return call
    return None


def _unrounded_quotient(view: FunctionView, node: Node, wave: int) -> bool:
    """`K * 2 / 16`: a run-time size divided by a constant with nothing rounding it (no call, no round-up), whose
    constant factors do not make it a multiple of the wavefront."""
    node = strip(node)
    if node.kind != "binop" or node.op != "/" or len(node.children) != 2:
        return False
    divisor = view.const(node.children[1])
    if not isinstance(divisor, int) or divisor < 2 or view.const(node.children[0]) is not None:
        return False
    factor, stack = 1, [strip(node.children[0])]
    while stack:
        n = stack.pop()
        if n.kind in ("call", "mcall", "cond") or (n.kind == "binop" and n.op != "*"):
            return False   # a clamp, a round-up or a nested division: leave it
        for k in n.children if n.kind == "binop" else ():
            c = view.const(k)
            factor *= c if isinstance(c, int) else 1
            stack += [] if c is not None else [strip(k)]
    return factor % (divisor * wave) != 0


def _partial_wave_blocks(fv: FileView, target: Target) -> Iterator[Match]:
    """A block x extent computed from a data size (vllm's NUM_THREADS = K * 2 / 16) and never rounded to a
    multiple of the wavefront, for a kernel that counts its wavefronts as blockDim.x / width (dropping a partial
    one) and reduces across a whole wavefront: the partial last wavefront's sums are never read and its butterfly
    reads lanes that do not exist. A multiple of 32 is not one of 64."""
    wave, hosts = target.wave_size, {v.fn.usr: v for v in fv.views}
    facts = fv.facts
    reported: set[int] = set()
    for launch in facts.launches:
        host = hosts.get(launch.caller)
        if host is None or launch.block is None or launch.block_dims is not None:
            continue
        x = strip(launch.block)
        if x.kind == "call" and x.op == "dim3" and x.children:
            x = strip(x.children[0])
        place = x
        if x.kind == "ref" and host.definition(x.ref) is not None:
            place, x = host.decls.get(x.ref, x), strip(host.definition(x.ref))   # type: ignore[arg-type]
        if id(place) in reported or not _unrounded_quotient(host, x, wave):
            continue
        for kernel in fv.kernel_by_name(launch.kernel):
            views = [kernel, *fv.callees(kernel)]
            count = next((c for v in views if (c := _truncated_wave_count(v, wave)) is not None), None)
            tree = next((t for v in views if (t := _wave_butterfly(v, wave)) is not None), None)
            if count is None or tree is None:
                continue
            reported.add(id(place))
            words = (f"'{_spell(facts, x)}' threads per block is not rounded to a multiple of {wave}, but "
                     f"'{launch.kernel}' counts wavefronts as '{_spell(facts, count)}' (line {count.loc.line}) and "
                     f"reduces across a whole one (line {tree.loc.line}): a partial last wavefront is dropped and "
                     f"its shuffles read lanes that do not exist")
            yield Match(place.loc, {"what": words, "wave": str(wave)}, confidence="medium")
            yield Match(count.loc, {"what": f"'{_spell(facts, count)}' drops the partial last wavefront of the "
                                            f"block that line {place.loc.line} sizes as '{_spell(facts, x)}', "
                                            f"not a multiple of {wave}", "wave": str(wave)}, confidence="medium")
            break


def _block_wave_stride(view: FunctionView) -> Node | None:
    """`blockIdx.x * warpSize`: each block of this kernel owns one wavefront's width of elements."""
    for node in view.nodes():
        if node.kind == "binop" and node.op == "*" and len(node.children) == 2:
            for a, b in (node.children, node.children[::-1]):
                a = strip(a)
                if a.kind == "member" and a.children and strip(a.children[0]).op == "blockIdx" \
                        and view.const(b) == W:
                    return node
    return None


def _item_per_wave(view: FunctionView) -> Node | None:
    """`blockIdx.x * warpsPerBlock + threadIdx.x / warpSize`: each wavefront of this kernel owns one item."""
    for node in view.nodes():
        if node.kind == "binop" and node.op == "+" and len(node.children) == 2:
            for a, b in (node.children, node.children[::-1]):
                if view.lane_class(b) == WARPW and any(n.kind == "member" and n.children and
                                                       strip(n.children[0]).op == "blockIdx" for n in a.walk()):
                    return node
    return None


def _grid_per_32(fv: FileView, target: Target) -> Iterator[Match]:
    """A grid of n / 32 blocks for a kernel whose blocks each cover warpSize elements (on gfx942 the blocks
    reach twice as far as n), or of n * 32 threads for a kernel that gives each wavefront one item (the grid
    covers n / 2 items)."""
    facts = fv.facts
    hosts = {v.fn.usr: v for v in fv.views}
    # what each kernel does per block or wavefront, asked only where the grid has the shape and read once per
    # kernel (a file launches the same kernels many times: causal-conv1d's bwd, 120 launches of 888 instances)
    strides: dict[int, Node | None] = {}
    items: dict[int, Node | None] = {}

    def first(memo: dict[int, Node | None], find: Callable[[FunctionView], Node | None], name: str) -> Node | None:
        for k in fv.kernel_by_name(name):
            if id(k) not in memo:
                memo[id(k)] = find(k)
            if memo[id(k)] is not None:
                return memo[id(k)]
        return None

    for launch in facts.launches:
        host = hosts.get(launch.caller)
        if host is None or launch.grid is None:
            continue
        grid = strip(launch.grid)
        if grid.kind == "call" and grid.op == "dim3" and grid.children:
            grid = strip(grid.children[0])   # the x extent
        if grid.kind == "ref" and host.definition(grid.ref) is not None:
            grid = host.definition(grid.ref)
        divs = [n for n in grid.walk() if n.kind == "binop" and len(n.children) == 2
                and {"/": 32, ">>": 5}.get(n.op) == host.const(n.children[1])]
        stride = first(strides, _block_wave_stride, launch.kernel) if divs else None
        if stride is not None:
            yield Match(divs[0].loc, {"what": f"'{_spell(facts, divs[0])}' launches one block per 32 elements, "
                                              f"but '{launch.kernel}' gives each block '{_spell(facts, stride)}' "
                                              f"(line {stride.loc.line}), {target.wave_size} elements on gfx942: "
                                              f"half of the blocks run past the end", "wave": str(target.wave_size)},
                        confidence="high")
        muls = [n for n in grid.walk() if n.kind == "binop" and n.op == "*" and len(n.children) == 2
                and 32 in (host.const(n.children[0]), host.const(n.children[1]))]
        item = first(items, _item_per_wave, launch.kernel) if muls else None
        if item is not None:
            yield Match(muls[0].loc, {"what": f"'{_spell(facts, muls[0])}' counts 32 threads per item, but "
                                              f"'{launch.kernel}' gives each wavefront one item "
                                              f"('{_spell(facts, item)}', line {item.loc.line}), "
                                              f"{target.wave_size} threads on gfx942: the grid covers half of "
                                              f"the items", "wave": str(target.wave_size)}, confidence="high")


# --------------------------------------------------------------------------------------------------- W64-010

_NOT_CONSTANT = re.compile(r"variable length array|constant expression|not an integral constant|"
                           r"non-type template argument|constexpr")


def warpsize_constant(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    """Clang itself decides what needs a constant: report its constant-expression diagnostics that fall on a
    use of warpSize (spelled directly or through a macro whose body mentions it)."""
    facts, target = ctx.facts, ctx.target
    via_macro = {m.name for m in facts.macros if re.search(r"\bwarpSize\b", m.body)}
    # a function that returns warpSize (QUDA's device::warp_size()) is warpSize wherever it is called
    calls = sorted({re.escape(f.name) for f in facts.value_functions if f.reads_width})
    names = "|".join(["warpSize", *sorted(via_macro), *(rf"{c}(?=\s*[<(])" for c in calls)])
    constant = _constant_width_calls(facts)
    rocm = {m.name for m in facts.macros if re.search(_ROCM_WAVE, m.body) and not constant(m.body)}
    seen: set[tuple[int, int]] = set()
    spelled: set[str] = set()
    for d in facts.diagnostics:
        if not _NOT_CONSTANT.search(d.message) or not 0 < d.loc.line <= len(facts.lines):
            continue
        code = _code(facts.lines[d.loc.line - 1])
        spots = [m for m in re.finditer(rf"\b(?:{_width_call_in_notes(d) or names})\b", code)]
        if not spots:
            continue
        spot = min(spots, key=lambda m: abs(m.start() + 1 - d.loc.col))
        key = (d.loc.line, spot.start() + 1)
        if key in seen:
            continue
        seen.add(key)
        spelled.add(spot.group(0))
        yield Match(Loc(facts.path, d.loc.line, spot.start() + 1, d.loc.line, spot.end() + 1),
                    {"use": d.message.split(";")[0], "wave": str(target.wave_size)})
    use = re.compile(rf"\b(?:{'|'.join([names, *sorted(rocm)])})\b|{_ROCM_WAVE}")
    # a width function's own name where it is defined (`constexpr int bx() { return warpSize * 2; }`) is no use
    # of it: the warpSize its body reads is, and is reported on its line
    defined = {(f.name, f.where) for f in facts.value_functions if f.reads_width}
    base = Path(facts.path).name
    found: list[Match] = []
    for m in [*_torch_width_constant(facts, target),
              *_warpsize_constant_in_lost_lines(facts, target, use),
              *_warpsize_bound_in_templates(facts, target, use),
              *_warpsize_constant_in_uninstantiated(facts, target, use),
              *_warpsize_in_constexpr_text(facts, target, use)]:
        if _text(facts, m.loc) == "warpSize" and width_shadowed_at(facts, facts.path, m.loc.line):
            continue   # a project constant of that name (`const int warpSize = 64;`), not the builtin
        if constant(_text(facts, m.loc)):
            continue   # rocPRIM's width function whose definition the parse saw returns a constant
        if (_text(facts, m.loc), f"{base}:{m.loc.line}") in defined:
            continue
        if (m.loc.line, m.loc.col) not in seen:   # a template's line libclang could not parse comes twice
            seen.add((m.loc.line, m.loc.col))
            found.append(m)
    yield from found
    # a macro standing for the width (WARP_SIZE -> warpSize) is the line to change: report its definition too
    used = spelled | {_text(facts, m.loc) for m in found}
    for m in facts.macros:
        if m.name in used and m.name in (via_macro | rocm) and m.loc.path == facts.path and m.loc.line:
            yield Match(m.loc, {"use": f"'{m.name}' is defined here as '{m.body.strip()}' and used where a "
                                       f"constant is required", "wave": str(target.wave_size)})
    yield from _width_macro_with_constant_twin(facts, target, (via_macro | rocm) - used)


_NOTE_CALL = re.compile(r"in call to '(?:[\w:]*::)?(\w+)(?:<[^']*>)?\(")


def _width_call_in_notes(d: Diagnostic) -> str:
    """The function called on the diagnostic's line through which, clang's notes say, the constant reads
    warpSize (`initializer of 'warpSize' is unknown` ... `in call to 'warp_size()'`): a use the file's own text
    cannot show, its definition in a declaration libclang dropped (QUDA's `using array_type =
    PowerOfTwoArray<device::warp_size(), ...>`). '' when the notes name no such call."""
    if not any("'warpSize'" in text for text, _ in d.notes):
        return ""
    return next((m.group(1) for text, line in d.notes if line == d.loc.line and (m := _NOTE_CALL.match(text))), "")


def _constant_width_calls(facts: FileFacts) -> Callable[[str], bool]:
    """Whether a text ends in a call of a function without parameters whose definition the parse saw and that
    returns an integer constant: rocPRIM's device_warp_size() returns ROCPRIM_WAVEFRONT_SIZE, a number in the
    device pass, so the ROCm 7 claim made for its name when the definition is not seen does not hold."""
    names = {f.name for f in facts.value_functions if f.value is not None}

    def ends_in_constant(text: str) -> bool:
        call = re.search(r"(\w+)\s*\(\s*\)\s*$", text)
        return call is not None and call.group(1) in names
    return ends_in_constant


def _used_macros(facts: FileFacts) -> set[str]:
    """Macros this file expands, directly or inside the body of a macro it expands (NUM_THREADS -> WARP_SIZE)."""
    bodies = {m.name: m.body for m in facts.macros}
    used: set[str] = set()
    todo = [u.name for u in facts.macro_uses]
    while todo:
        name = todo.pop()
        if name not in used:
            used.add(name)
            todo += [w for w in re.findall(r"\b[A-Za-z_]\w*\b", bodies.get(name, "")) if w in bodies]
    return used


_INT_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+\(?\s*(\d+)[uUlL]*\s*\)?\s*$")


def _width_macro_with_constant_twin(facts: FileFacts, target: Target, names: set[str]) -> Iterator[Match]:
    """`#ifndef USE_ROCM / #define WARP_SIZE 32 / #else / #define WARP_SIZE warpSize`: the other branch makes
    the macro an integer constant, so the code it serves (often in other files) uses it as one, and ROCm 7's
    warpSize is not. Reported at the definition, the line to change, when this file does not use it: where it
    does, its uses show whether anything needs a constant (those clang rejects are reported at the use), and
    uses at run time (`threadIdx.x / WARP_SIZE`) are correct."""
    names = names - _used_macros(facts)
    if not names:
        return
    literal: dict[str, tuple[int, str]] = {}
    for i, line in enumerate(facts.lines, 1):
        if (m := _INT_DEFINE.match(line)) and m.group(1) in names:
            literal.setdefault(m.group(1), (i, m.group(2)))
    for mac in facts.macros:
        if mac.name in literal and mac.loc.path == facts.path and mac.loc.line:
            line, value = literal[mac.name]
            yield Match(mac.loc, {"use": f"'{mac.name}' is defined here as '{mac.body.strip()}', and as the "
                                         f"constant {value} in the other branch (line {line}): code written "
                                         f"against it uses it where a constant is required (array bounds, "
                                         f"constexpr, template arguments)", "wave": str(target.wave_size)},
                        confidence="medium")


# A template argument list of a declared type (typedef / using / `X<...>::` / `X<...> name` / a temporary
# `X<...>{}`), of a function template's call (`reduce<warpSize>(v)`, the name against its `<` and no logical
# operator inside, which a comparison chain would have), a template's parameter list (its defaults: `int
# numLanes = WARP_SIZE`) or an array bound in a declaration: all must be constant expressions.
_TEMPLATE_ARG = re.compile(r"\b\w+\s*<([^;<>]*)>\s*(?:::|\w|\{)|\b[A-Za-z_]\w*<([^;<>()&|]*)>\s*\(")
_TEMPLATE_PARAMS = re.compile(r"\btemplate\s*<([^;<>]*)>")
_DEFAULT = re.compile(r"=([^,]*)")   # in a template parameter list: one parameter's default (its names are none)
_CONSTEXPR_INIT = re.compile(r"\b(?:constexpr|static_assert)\b[^;=(]*[=(]([^;]*)")
# (A declaration's last line may start inside its type: `alignof(T)>::type buf[N];`.)
_ARRAY_DECL = re.compile(r"^\s*(?:[^;={}]*>::\w+\s+|(?:(?:__shared__|static|const|typename|unsigned|[A-Za-z_][\w:]*)"
                         r"\s+)+)[A-Za-z_]\w*\s*\[([^\]]*)\]")


def _constant_spans(code: str) -> list[tuple[int, int, str]]:
    """(start, end, what) of the parts of a line that C++ evaluates at compile time."""
    spans = [(m.start(k), m.end(k), "a template argument") for m in _TEMPLATE_ARG.finditer(code)
             for k in (1, 2) if m.group(k) is not None]
    spans += [(d.start(1), d.end(1), "a template parameter's default") for m in _TEMPLATE_PARAMS.finditer(code)
              for d in _DEFAULT.finditer(code, m.start(1), m.end(1))]
    spans += [(m.start(1), m.end(1), "an array bound") for m in [_ARRAY_DECL.match(code)] if m]
    spans += [(m.start(1), m.end(1), "a constant expression") for m in _CONSTEXPR_INIT.finditer(code)]
    return spans


def _torch_width_constant(facts: FileFacts, target: Target) -> Iterator[Match]:
    """C10_WARP_SIZE where C++ needs a constant (an array bound, a constexpr initializer, a template argument)
    outside device-only code, when PyTorch's headers are not on the include path: clang's undeclared-identifier
    report gives the use's exact column, the text around it says whether a constant is required there. Every
    ROCm definition since 2021 fails there (porter/parse_headers/fallback/porter_torch.h): warpSize from ROCm 7,
    at::cuda::warp_size() in the later releases' host pass. In device-only code the newer releases give a
    constant, so the release decides: a real PyTorch on -I, or -D C10_WARP_SIZE=warpSize for the 2021-2025
    headers, lets the warpSize checks above judge those uses."""
    device_only = {i for f in facts.functions if f.kind in ("kernel", "device")
                   for i in range(f.loc.line, f.loc.end_line + 1)}
    for d in facts.diagnostics:
        line, col = d.loc.line, d.loc.col
        if undeclared_identifier(d) != TORCH_WAVE or d.loc.path != facts.path or line in device_only or \
                not 0 < line <= len(facts.lines):
            continue
        code = _code(facts.lines[line - 1])
        what = next((w for start, end, w in _constant_spans(code) if start < col <= end), None)
        if what is not None:
            yield Match(Loc(facts.path, line, col, line, col + len(TORCH_WAVE)),
                        {"use": f"'{TORCH_WAVE}' in {what} outside device code; PyTorch's headers are not on the "
                                f"include path, and on ROCm it is warpSize in their 2021-2025 releases "
                                f"(pytorch#64302) and at::cuda::warp_size() outside device code in later ones "
                                f"(pytorch#158271)", "wave": str(target.wave_size)}, confidence="medium")


def _warpsize_constant_in_lost_lines(facts: FileFacts, target: Target, use: re.Pattern[str]) -> Iterator[Match]:
    """Where a statement has a parse error (an unknown hipcub type, say) clang gives up before it checks the
    constant: read those lines from the text, for warpSize (`use`: it and the macros that stand for it) and
    hipCUB/rocPRIM's width."""
    for i in sorted({d.loc.line for d in facts.diagnostics if d.severity in ("error", "fatal")}):
        if 0 < i <= len(facts.lines):
            code = _code(facts.lines[i - 1])
            for start, end, what in _constant_spans(code):
                for u in use.finditer(code, start, end):
                    yield Match(Loc(facts.path, i, u.start() + 1, i, u.end() + 1),
                                {"use": f"'{u.group(0)}' in {what}, in a statement libclang could not parse",
                                 "wave": str(target.wave_size)}, confidence="medium")


def _warpsize_bound_in_templates(facts: FileFacts, target: Target, use: re.Pattern[str]) -> Iterator[Match]:
    """A `__shared__` array of a template never instantiated in the file, whose bound mentions warpSize: the bound
    depends on a template parameter, so clang defers the constant check to an instantiation the file lacks."""
    patterns = {f.usr for f in facts.functions if f.is_template}
    for decl in facts.shared:
        if decl.function not in patterns or None not in decl.dims or not 0 < decl.loc.line <= len(facts.lines):
            continue
        code = _code(facts.lines[decl.loc.line - 1])
        if (m := _ARRAY_DECL.match(code)) is None:
            continue
        for u in use.finditer(code, m.start(1), m.end(1)):
            yield Match(Loc(facts.path, decl.loc.line, u.start() + 1, decl.loc.line, u.end() + 1),
                        {"use": f"'{u.group(0)}' in the bound of __shared__ '{decl.name}' in a template the file "
                                f"never instantiates", "wave": str(target.wave_size)}, confidence="medium")


def _warpsize_constant_in_uninstantiated(facts: FileFacts, target: Target, use: re.Pattern[str]
                                         ) -> Iterator[Match]:
    """A function template the file never instantiates (a header's warpReduceSum<T, numLanes = WARP_SIZE>):
    clang checks what depends on its parameters, and even a parameter's default, only at an instantiation,
    so the compile-time parts of its text are read instead (parameter defaults, static_assert, if constexpr,
    constexpr initializers, template arguments, array bounds)."""
    instantiated = {f.name for f in facts.functions if f.template_args}
    for fn in facts.functions:
        if not fn.is_template or fn.name in instantiated or fn.loc.path != facts.path:
            continue
        for i in range(max(fn.loc.line, 1), min(max(fn.loc.end_line, fn.loc.line), len(facts.lines)) + 1):
            code = _code(facts.lines[i - 1])
            for start, end, what in _constant_spans(code):
                for u in use.finditer(code, start, end):
                    yield Match(Loc(facts.path, i, u.start() + 1, i, u.end() + 1),
                                {"use": f"'{u.group(0)}' in {what} in template '{fn.name}', which the file never "
                                        f"instantiates", "wave": str(target.wave_size)}, confidence="medium")


# A constexpr variable's initializer or a static_assert's condition: what follows is constant to its `;`.
_OPEN_CONSTANT = re.compile(r"\bconstexpr\b[^;=(){}]*=(?!=)|\bstatic_assert\s*\(")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_CONSTEXPR_FUNCTION = re.compile(r"\bconstexpr\b[^;=]*\b[A-Za-z_]\w*\s*\(")


def _warpsize_in_constexpr_text(facts: FileFacts, target: Target, use: re.Pattern[str]) -> Iterator[Match]:
    """What clang leaves unchecked outside templates: a constexpr variable or static_assert in a scope libclang
    dropped (a class whose base is declared in a header not read) and the body of a constexpr function (clang
    checks a call only where a constant is needed, often in another file). A constexpr initializer or a value a
    constexpr function returns built from the run-time width cannot be constant in ROCm 7, nor on the host pass,
    which has no warpSize at all. Preprocessor branches the parse skipped are left out."""
    skipped = set(facts.inactive_lines)
    constexpr_bodies = {i for fn in facts.functions if fn.loc.path == facts.path and 0 < fn.loc.line <= len(facts.lines)
                        and _CONSTEXPR_FUNCTION.search(_code(" ".join(facts.lines[fn.loc.line - 1:fn.loc.line + 1])))
                        for i in range(fn.loc.line, min(fn.loc.end_line, len(facts.lines)) + 1)}
    continued = 0   # lines left of a constexpr initializer that did not end on its line
    for i, line in enumerate(facts.lines, 1):
        code = _code(line)
        if i in skipped or code.lstrip().startswith("#"):
            continue
        if i in constexpr_bodies:
            spans = [(0, len(code), "the body of a constexpr function")]
        elif continued:
            code = _STRING.sub('""', code)   # a static_assert's message is no use
            end = code.find(";")
            spans = [(0, len(code) if end < 0 else end, "a constant expression")]
            continued = 0 if end >= 0 else continued - 1
        else:
            spans = [(m.start(1), m.end(1), "a constant expression") for m in _CONSTEXPR_INIT.finditer(code)]
            if (m := _OPEN_CONSTANT.search(code)) and ";" not in code[m.end():]:
                continued = 8   # `constexpr auto step =` / `static_assert(` going on below
        for start, end, what in spans:
            for u in use.finditer(code, start, end):
                yield Match(Loc(facts.path, i, u.start() + 1, i, u.end() + 1),
                            {"use": f"'{u.group(0)}' in {what}, which clang did not check here",
                             "wave": str(target.wave_size)}, confidence="medium")


def _code(line: str) -> str:
    """A line without its // comment (good enough for token searches)."""
    return line.split("//", 1)[0]


# --------------------------------------------------------------------------------------------------- W64-011

# Macros only the device compilation defines, that say how wide the wavefront is.
_ARCH_MACRO = re.compile(r"\b(__AMDGCN_WAVEFRONT_SIZE(?:__)?|__GFX\d+__|__gfx\d+\w*__)\b")
# hipCUB/rocPRIM's wavefront width: a value of the compilation pass (the host pass does not know the GPU), and
# since ROCm 7 not a constant expression.
_ROCM_WAVE = r"\bHIPCUB_(?:DEVICE_)?WARP_THREADS\b|\brocprim::(?:device_)?warp_size\s*\(\s*\)"
# Macros that one compilation pass defines and the other does not: a branch they decide differs between passes.
_PASS_MACRO = re.compile(rf"{_ARCH_MACRO.pattern}|\b__HIP_DEVICE_COMPILE__\b|\b__AMDGCN__\b|\b__AMDGPU__\b")
_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define)\b\s*(\w*)")
# GPU architecture macros the host pass never defines (__AMDGCN_WAVEFRONT_SIZE it does: a fixed 64).
_GPU_ARCH = re.compile(r"\b(__GFX\d+__|__gfx\d+\w*__)\b")
# A test that only such macros decide (`#if defined(__GFX8__) || defined(__GFX9__)`): false in the host pass.
_HOST_FALSE_TEST = re.compile(rf"^\s*#\s*(?:(?:if|elif)(?:[\s()|]|\bdefined\b|{_GPU_ARCH.pattern})+|ifdef\s+{_GPU_ARCH.pattern}\s*)$")
# A line that stops the compilation that reaches it.
_BUILD_STOP = re.compile(r"^\s*#\s*error\b|\bstatic_assert\s*\(\s*(?:false|0)\s*[,)]")


def _code_lines(facts: FileFacts) -> Iterator[tuple[int, str]]:
    """(line number, text without comments) of every line."""
    in_block_comment = False
    for i, line in enumerate(facts.lines, 1):
        code = line
        if in_block_comment:
            end = code.find("*/")
            if end < 0:
                continue
            code, in_block_comment = code[end + 2:], False
        code = re.sub(r"/\*.*?\*/", "", _code(code))
        if "/*" in code:
            code, in_block_comment = code.split("/*", 1)[0], True
        yield i, code


def _host_inactive(facts: FileFacts, lines: list[tuple[int, str]]) -> set[int]:
    """Lines the host pass does not compile either: in a preprocessor branch the (device) parse skipped whose
    #if chain tests no macro that only one pass defines (`#ifndef USE_ROCM` is skipped in both passes; the
    `#else` of `#if __GFX9__` only in the device pass). The chain that decides is the outermost one whose branch
    was skipped: the ones inside it were never evaluated."""
    skipped = set(facts.inactive_lines)
    if not skipped:
        return set()
    out: set[int] = set()
    chains: list[tuple[list[str], int]] = []   # per #if nesting level: its conditions so far, its branch's line
    for i, code in lines:
        d = _DIRECTIVE.match(code)
        word = d.group(1) if d else ""
        if word in ("if", "ifdef", "ifndef"):
            chains.append(([code], i))
        elif word in ("elif", "else") and chains:
            chains[-1] = (chains[-1][0] + [code], i)
        if i in skipped:
            deciding = next((conds for conds, start in chains if start in skipped), [])
            if not any(_PASS_MACRO.search(c) for c in deciding):
                out.add(i)
        if word == "endif" and chains:
            chains.pop()
    return out


def _arch_selected_macros(facts: FileFacts, lines: list[tuple[int, str]],
                          inactive: set[int]) -> list[tuple[Loc, str, set[str]]]:
    """Preprocessor lines that read a device-only architecture macro, with the macros whose definition they
    choose: the #defines inside an `#if __GFX9__ ... #endif` chain, or X in `#define X __AMDGCN_WAVEFRONT_SIZE`.
    A test on a line neither pass compiles chooses nothing."""
    out: list[tuple[Loc, str, set[str]]] = []
    open_chains: list[list[tuple[Loc, str, set[str]]]] = []   # per #if nesting level: arch tests seen so far
    for i, code in lines:
        d = _DIRECTIVE.match(code)
        if d is None:
            continue
        word, name = d.group(1), d.group(2)
        arch = _ARCH_MACRO.search(code) if i not in inactive else None
        if word in ("if", "ifdef", "ifndef"):
            open_chains.append([])
        if word in ("if", "ifdef", "ifndef", "elif") and arch and open_chains:
            open_chains[-1].append((Loc(facts.path, i, arch.start() + 1, i, arch.end() + 1), arch.group(1), set()))
        elif word == "endif" and open_chains:
            out += open_chains.pop()
        elif word == "define" and name:
            for chain in open_chains:
                for _, _, chosen in chain:
                    chosen.add(name)
            if arch and not _ARCH_MACRO.fullmatch(name):
                out.append((Loc(facts.path, i, arch.start() + 1, i, arch.end() + 1), arch.group(1), {name}))
    for chain in open_chains:
        out += chain
    return out


def _torch_width_in_host(facts: FileFacts, in_host: Callable[[int], bool], wave: str) -> Iterator[Match]:
    """C10_WARP_SIZE in host code when PyTorch's headers are not on the include path. clang's report of the
    undeclared identifier is the evidence: it is a use compiled in this pass (no comment, string or inactive #if)
    that nothing declares, at its column, or at the host use of a file macro that expands to it. With the headers
    the macro expands and the function views see what it is. Low confidence: which definition the build gets
    depends on the PyTorch release, which porter cannot see; -I PyTorch's include folder settles it."""
    seen: set[tuple[int, int]] = set()
    for d in facts.diagnostics:
        line, col = d.loc.line, d.loc.col
        if undeclared_identifier(d) != TORCH_WAVE or d.loc.path != facts.path or (line, col) in seen or \
                not in_host(line):
            continue
        seen.add((line, col))
        spelled = re.match(r"\w+", facts.byte_line(line)[col - 1:], re.ASCII)
        name = spelled.group(0) if spelled else TORCH_WAVE
        via = "" if name == TORCH_WAVE else f" (expanding to {TORCH_WAVE})"
        yield Match(Loc(facts.path, line, col, line, col + len(name)),
                    {"what": f"host code uses {name}{via}, which PyTorch's ROCm headers (not on the include path) "
                             f"define for device code only: host code is to call at::cuda::warp_size()",
                     "wave": wave},
                    confidence="low", suggestion="in host code ask at::cuda::warp_size(); C10_WARP_SIZE stays "
                                                 "right in device code")


@dataclass
class _ArchChain:
    """One #if chain, as the host pass sees it."""
    test: Loc | None        # the first test, while every test so far is false in the host pass
    arch: str = ""
    in_else: bool = False
    stop: int = 0           # the first stopping line of its #else


def _host_branch_stops(facts: FileFacts, lines: list[tuple[int, str]], inactive: set[int],
                       wave: str) -> Iterator[Match]:
    """An #if chain that only GPU architecture macros decide, whose #else stops the build (`#error`,
    `static_assert(false)`): the host pass defines no architecture, takes that #else and fails, on gfx942 too.
    Reported at the first test, the line to change."""
    chains: list[_ArchChain] = []   # per #if nesting level
    for i, code in lines:
        d = _DIRECTIVE.match(code)
        word = d.group(1) if d else ""
        arch = _GPU_ARCH.search(code) if word and _HOST_FALSE_TEST.match(code) and i not in inactive else None
        if word in ("if", "ifdef", "ifndef"):
            chains.append(_ArchChain(Loc(facts.path, i, arch.start() + 1, i, arch.end() + 1) if arch else None,
                                arch.group(1) if arch else ""))
        elif word == "elif" and chains and arch is None:
            chains[-1].test = None
        elif word == "else" and chains:
            chains[-1].in_else = True
        elif word == "endif" and chains:
            chain = chains.pop()
            if chain.test is not None and chain.stop:
                yield Match(chain.test, {"what": f"'{chain.arch}' is never defined in the host pass, which takes "
                                                 f"the #else branch and stops at line {chain.stop}", "wave": wave})
        elif chains and chains[-1].in_else and not chains[-1].stop and i not in inactive and _BUILD_STOP.search(code):
            chains[-1].stop = i


def _host_uses(facts: FileFacts, chosen: set[str], bodies: dict[str, str],
               in_host: Callable[[int], bool], printed: Callable[[Loc], bool]) -> list[MacroUse]:
    """Uses in host code, in order, of the macros `chosen` or of a macro of `bodies` whose body names one of them;
    a use that is only printed (an argument of printf) changes no launch and is left out."""
    names = set(chosen) | {n for n, body in bodies.items()
                           if any(re.search(rf"\b{re.escape(c)}\b", body) for c in chosen)}
    return sorted((u for u in facts.macro_uses if u.name in names and in_host(u.loc.line) and not printed(u.loc)),
                  key=lambda u: (u.loc.line, u.loc.col))


_PRINTS = frozenset({"printf", "fprintf", "sprintf", "snprintf", "puts", "fputs"})


def _printer(fv: FileView) -> Callable[[Loc], bool]:
    """Whether a place lies inside a call of printf & co. in host code (rsmt's `printf("... %d threads per
    block\n", blocks, 24 * WS)`)."""
    spans = [c.loc for v in fv.views if v.fn.kind == "host" for c in v.calls(_PRINTS) if c.loc.end_line]
    return lambda loc: any((s.line, s.col) <= (loc.line, loc.col) <= (s.end_line, s.end_col) for s in spans)


def _header_arch_macros_in_host(facts: FileFacts, in_host: Callable[[int], bool], printed: Callable[[Loc], bool],
                                wave: str) -> Iterator[Match]:
    """A header's macro whose definition an architecture test picks (`#ifdef __GFX9__ / #define BNB_WARP_SIZE 64
    / #else / ... 32`), used in this file's host code, directly or through a file macro: the host pass defines no
    GPU architecture, so host code gets the other branch. The test is in the header; the use is reported here."""
    bodies = {m.name: m.body for m in facts.macros if m.loc.path == facts.path}
    for mac in facts.macros:
        arch = next((a.group(1) for c in mac.conditions if (a := _ARCH_MACRO.search(c))), None)
        if arch is None or mac.loc.path == facts.path:
            continue
        where = f"{Path(mac.loc.path).name}:{mac.loc.line}"
        for u in _host_uses(facts, {mac.name}, bodies, in_host, printed):
            yield Match(u.loc, {"what": f"host code uses {u.name}, chosen by '{arch}' in {where}", "wave": wave})


def wavefront_macro_host(ctx: RuleContext, params: dict[str, Any]) -> Iterator[Match]:
    facts, target = ctx.facts, ctx.target
    wave = str(target.wave_size)
    lines_of = {kind: {i for a, b in {(f.loc.line, f.loc.end_line) for f in facts.functions if f.kind in kinds}
                       for i in range(a, b + 1)}
                for kind, kinds in (("device", ("kernel", "device")), ("host", ("host",)))}
    host_lines = lines_of["host"] - lines_of["device"]

    def in_host(line: int) -> bool:
        return line in host_lines

    lines = list(_code_lines(facts))
    inactive = _host_inactive(facts, lines)
    for i, code in lines:
        if _DIRECTIVE.match(code) or not in_host(i) or i in inactive:
            continue
        for m in [*_ARCH_MACRO.finditer(code), *re.finditer(_ROCM_WAVE, code)]:
            yield Match(Loc(facts.path, i, m.start() + 1, i, m.end() + 1),
                        {"what": f"host code reads {m.group(0)}", "wave": wave})
    yield from _torch_width_in_host(facts, in_host, wave)
    # a macro chosen by an architecture test, used in host code: report the test (the line to change) and the use
    bodies = {m.name: m.body for m in facts.macros}
    printed = _printer(ctx.view)
    for loc, arch, chosen in _arch_selected_macros(facts, lines, inactive):
        uses = _host_uses(facts, chosen, bodies, in_host, printed)
        if not uses:
            continue   # the macros it picks feed device code only: correct
        yield Match(loc, {"what": f"'{arch}' picks {', '.join(sorted(chosen))}, which host code uses "
                                  f"(line {uses[0].loc.line})", "wave": wave})
        for u in uses:
            yield Match(u.loc, {"what": f"host code uses {u.name}, chosen by '{arch}' (line {loc.line})",
                                "wave": wave})
    yield from _header_arch_macros_in_host(facts, in_host, printed, wave)
    yield from _host_branch_stops(facts, lines, inactive, wave)
    for view in (v for v in ctx.view.views if v.fn.kind == "host" or _host_called_only(ctx.view, v)):
        for node in view.nodes():
            if node.kind == "ref" and node.op == "warpSize" and view.const(node) == W:
                yield Match(node.loc, {"what": "host code reads the device variable warpSize", "wave": wave})
    yield from _width_calls_in_host(facts, in_host, inactive, printed, wave)


def _host_called_only(fv: FileView, view: FunctionView) -> bool:
    """A __host__ __device__ function that only host code of this file calls (rocSOLVER's cal_wave_size picking
    a launch's block x): it runs on the host, where warpSize is not the device's width."""
    callers = list(fv.callers(view)) if view.fn.kind == "host_device" else []
    return bool(callers) and all(c.fn.kind == "host" for c in callers)


def _width_calls_in_host(facts: FileFacts, in_host: Callable[[int], bool], inactive: set[int],
                         printed: Callable[[Loc], bool], wave: str) -> Iterator[Match]:
    """Host calls of another file's function that returns warpSize, itself or through another (QUDA's constexpr
    device::warp_size(), its max_block_size()): each reads the device variable. A function of this file that
    reads it is reported where it does."""
    own = {f.usr for f in facts.functions}
    for f in facts.value_functions:
        if not f.reads_width or f.id in own:
            continue
        for line, col in f.calls:
            loc = Loc(facts.path, line, col, line, col + len(f.name))
            if in_host(line) and line not in inactive and not printed(loc):
                yield Match(loc, {"what": f"host code calls {f.name}() ({f.where}), which reads the device "
                                          f"variable warpSize", "wave": wave})
