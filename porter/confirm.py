"""`porter analyze --confirm`: check wave64 findings dynamically with the CPU emulator (porter.emulate).

For every kernel that holds a W64 finding (directly, through a __device__ function it calls, or at the launch
that a host-side finding sits on) a launch is synthesized from the Facts: the block of a constant launch, else
`__launch_bounds__`, else the default block; a grid of GRID blocks; integer scalars set to one value n (the
number of threads launched, halved until the buffers fit); each pointer argument sized to what the kernel's index
expressions reach at that launch (porter.emulate.sizing; ARRAY_FACTOR x threads where an index cannot be bounded)
and filled with seeded random values. Two input sets are tried in turn (INPUTS): floats uniform in [-1, 1),
integers in [0, 10), float scalars 1.0; then, when the first shows no difference, data that reaches
data-dependent code (ballot/popc and vote predicates, id matches): float scalars 0.25 and integers spanning
[0, n). The launch is a porter.emulate.launch.Launch, the mechanism `porter verify` runs originals with; it runs
at warp sizes 32 and 64 (`porter.emulate.differential`) and every W64 finding of that kernel gets one line in
`Finding.confirmed`:

    confirmed: ...       outputs (or the run itself: a deadlock, an out-of-bounds access) differ by warp size
    not confirmed: ...   identical outputs for this one launch; a clean run does not prove the code correct
    not run: ...         inputs could not be synthesized, the kernel could not be built, or it failed at both sizes

Nothing is compiled or run unless this module is called: plain `porter analyze` never imports it. Only the
kernel is executed (in the emulator's runner, a separate process), never `main()` or other host code.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from porter.emulate.sizing import walk
from porter.findings import Finding
from porter.targets import DEFAULT_TARGET, Target, load_target

GRID = 2                     # blocks per synthesized launch
ARRAY_FACTOR = 4             # pointer arguments hold ARRAY_FACTOR * threads elements (x4 more on the retry)
MAX_ELEMENTS = 1 << 20       # cap per buffer, whatever the block size
INT_RANGE = (0, 10)          # integer buffers: small non-negative values (safe as indices and counts)
# input sets, in order: (label, float scalar value, integer buffer range: None = INT_RANGE, "n" = [0, n))
INPUTS = (("default inputs", 1.0, None), ("inputs reaching data-dependent code", 0.25, "n"))
DEFAULT_TIMEOUT = 20.0       # seconds per kernel (both warp sizes together)


@dataclass(frozen=True)
class Trial:
    """One kernel launch to try: the spelling the emulator compiles (`k`, `k<256>`, `k<float>`) and its block."""
    kernel: str
    block: tuple[int, int, int]
    block_from: str               # where the block came from, for the message
    shared_bytes: int = 0


@dataclass
class Outcome:
    status: str                   # confirmed | not confirmed | not run
    text: str                     # the line after the status

    def line(self) -> str:
        return f"{self.status}: {self.text}"


@dataclass
class _Plan:
    targets: list[Trial] = field(default_factory=list)
    reason: str = ""              # why nothing can be run, when targets is empty


# ------------------------------------------------------------------------------------------------ public API

def confirm(findings: list[Finding], results: Iterable[Any], *, config: Any, target: str = DEFAULT_TARGET,
            default_block: tuple[int, int, int] = (256, 1, 1), timeout: float = DEFAULT_TIMEOUT,
            jobs: int | None = None, seed: int = 0,
            progress: Callable[[int, int, str], None] | None = None) -> list[Finding]:
    """Return `findings` with `confirmed` set on every unsuppressed W64 finding (others are returned unchanged).

    results: the FileResults of the analysis: the files that parsed and their Facts (kept by the worker when the
    analysis was asked to confirm, porter.analysis.Request.confirm); config: the ParseConfig the files were
    analyzed with (a file whose Facts were not kept is parsed once more, in a worker process)."""
    wanted = [f for f in findings if f.rule_id.startswith("W64") and not f.suppressed]
    if not wanted:
        return findings
    results = list(results)
    parsed = {r.path for r in results if not getattr(r, "error", "")}
    kept = {r.path: r.facts for r in results if getattr(r, "facts", None) is not None}
    paths = sorted({f.path for f in wanted if f.path in parsed})
    facts = {p: kept[p] for p in paths if p in kept}
    facts.update(_facts_for([p for p in paths if p not in kept], config, target, jobs))

    plans: dict[int, _Plan] = {}
    for i, f in enumerate(findings):
        if not (f.rule_id.startswith("W64") and not f.suppressed):
            continue
        ff = facts.get(f.path)
        if ff is None:
            plans[i] = _Plan(reason=f"the file could not be parsed again for its kernels ({f.path})")
        elif (why := load_time_code(ff)):
            plans[i] = _Plan(reason=why)
        else:
            plans[i] = _plan(f, ff, default_block)

    todo = sorted({(f.path, t) for i, f in enumerate(findings) if i in plans for t in plans[i].targets},
                  key=lambda pt: (pt[0], pt[1].kernel, pt[1].block))
    outcomes: dict[tuple[str, Trial], Outcome] = {}
    if todo:
        _prepare_runtime(outcomes, todo)
    pending = [pt for pt in todo if pt not in outcomes]
    if pending:
        workers = max(1, min(len(pending), jobs or os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pt: pool.submit(run_target, pt[0], pt[1], timeout=timeout, seed=seed,
                                       fn=kernel_function(facts.get(pt[0], {}), pt[1].kernel)) for pt in pending}
            for n, (pt, fut) in enumerate(futures.items(), 1):
                outcomes[pt] = fut.result()
                if progress is not None:
                    progress(n, len(pending), f"{pt[0]}:{pt[1].kernel}")

    out = list(findings)
    for i, plan in plans.items():
        f = findings[i]
        if not plan.targets:
            out[i] = dataclasses.replace(f, confirmed=f"not run: {plan.reason}")
            continue
        out[i] = dataclasses.replace(f, confirmed=_combine([outcomes[(f.path, t)] for t in plan.targets]))
    return out


def summary(findings: list[Finding]) -> str:
    """One line: how many findings were confirmed, refuted (identical outputs on the synthesized launch) and not
    run, with the reasons for the last, most frequent first."""
    states = [f.confirmed.split(": ", 1) for f in findings if f.confirmed]
    count = {s: sum(1 for st in states if st[0] == s) for s in ("confirmed", "not confirmed", "not run")}
    reasons: dict[str, int] = {}
    for st in states:
        if st[0] == "not run" and len(st) > 1:
            why = st[1].split(" (")[0].split("; ")[0]
            reasons[why] = reasons.get(why, 0) + 1
    why = "; ".join(f"{n} x {r}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:5])
    return (f"porter: --confirm: {count['confirmed']} confirmed, {count['not confirmed']} not confirmed (refuted on "
            f"the synthesized launch: identical outputs at warp size 32 and 64), {count['not run']} not run"
            + (f" ({why})" if why else ""))


# ------------------------------------------------------------------------------------------- facts, planning

def _facts_for(paths: list[str], config: Any, target: str, jobs: int | None) -> dict[str, dict]:
    """Facts (as JSON dicts) of each path, extracted in worker processes like `porter analyze` itself."""
    if not paths:
        return {}
    from porter.analysis import Request, run

    reqs = [Request(path=p, config=config, target=target, select=("NONE",), dump_facts=True) for p in paths]
    out = {}
    for r in run(reqs, max(1, min(len(reqs), jobs or os.cpu_count() or 1)), 300.0):
        if r.facts is not None and not r.error:
            out[r.path] = r.facts
    return out


def load_time_code(facts: dict) -> str:
    """Why loading the file's code would run host code, or ''. The emulator links the whole file into a library;
    a file-scope variable initialized by a call (a constructor, `atoi(...)`) would run when it is loaded."""
    for g in facts.get("globals", ()):
        path = g.get("loc", {}).get("path", "")
        if path.startswith("/usr/") or "/porter/parse_headers/" in path:
            continue
        call = next((n for n in walk(g) if n.get("kind") in ("call", "mcall")), None)
        if call is not None:
            return (f"file-scope '{g.get('op', '?')}' (line {g.get('loc', {}).get('line', '?')}) is initialized by "
                    f"calling '{call.get('op', '?')}', host code that would run when the kernel's library is loaded; "
                    f"--confirm runs kernels only")
    return ""


def _contains(loc: dict, line: int) -> bool:
    return loc.get("line", 0) <= line <= (loc.get("end_line") or loc.get("line", 0))


def _same_file(a: str, b: str) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def _base(name: str) -> str:
    return name.split("<", 1)[0].strip().split("::")[-1]


def _plan(f: Finding, facts: dict, default_block: tuple[int, int, int]) -> _Plan:
    functions = [fn for fn in facts.get("functions", ()) if _same_file(fn["loc"]["path"], f.path)]
    enclosing = [fn for fn in functions if _contains(fn["loc"], f.line)]
    if not enclosing:
        return _Plan(reason="the finding is not inside a function (nothing to run)")
    span = min(fn["loc"].get("end_line", 0) - fn["loc"]["line"] for fn in enclosing)
    inner = [fn for fn in enclosing if fn["loc"].get("end_line", 0) - fn["loc"]["line"] == span]
    fn = inner[0]
    if fn["kind"] == "host":
        launches = [ln for ln in facts.get("launches", ()) if _same_file(ln["loc"]["path"], f.path)
                    and _contains(ln["loc"], f.line)]
        if not launches:
            return _Plan(reason="the finding is in host code outside a kernel launch; only kernels are run")
        plan = _Plan()
        for ln in launches:
            t = _target_for_launch(ln, facts, default_block)
            if isinstance(t, str):
                plan.reason = t
            else:
                plan.targets.append(t)
        return plan
    if fn["kind"] == "kernel":
        kernels = {_base(fn["name"])}
    else:
        kernels = _calling_kernels(_base(fn["name"]), facts)
        if not kernels:
            return _Plan(reason=f"no kernel in this file calls the __device__ function '{_base(fn['name'])}'")
    plan = _Plan()
    reasons = []
    for k in sorted(kernels):
        t = _target_for_kernel(k, facts, default_block)
        if isinstance(t, str):
            reasons.append(t)
        else:
            plan.targets.extend(t)
    plan.reason = "; ".join(reasons)
    return plan


def _calling_kernels(device_fn: str, facts: dict) -> set[str]:
    """Kernels that call `device_fn` directly or through other functions."""
    callers: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    for fn in facts.get("functions", ()):
        name = _base(fn["name"])
        kinds[name] = "kernel" if fn["kind"] == "kernel" or kinds.get(name) == "kernel" else fn["kind"]
        for n in walk(fn.get("body")):
            if n.get("kind") == "call" and n.get("op"):
                callers.setdefault(_base(n["op"]), set()).add(name)
    seen, frontier, kernels = {device_fn}, [device_fn], set()
    while frontier:
        for caller in callers.get(frontier.pop(), ()):
            if caller in seen:
                continue
            seen.add(caller)
            if kinds.get(caller) == "kernel":
                kernels.add(caller)
            elif kinds.get(caller) in ("device", "host_device"):
                frontier.append(caller)
    return kernels


def _emulated() -> Target:
    """The target whose launch limits the emulator enforces (porter.emulate.EMULATED_TARGET)."""
    from porter.emulate import EMULATED_TARGET
    return load_target(EMULATED_TARGET)


def _shared_bytes(facts: dict, launch: dict | None) -> int:
    sb = (launch or {}).get("shared_bytes") or {}
    if isinstance(sb.get("value"), int) and sb["value"] > 0:
        return int(sb["value"])
    if any(s.get("is_extern") for s in facts.get("shared", ())):
        return _emulated().lds_bytes_per_workgroup   # dynamic shared memory of unknown size: all a workgroup may have
    return 0


def _block_of(kernel: str, facts: dict, default_block: tuple[int, int, int],
              launch: dict | None = None) -> tuple[tuple[int, int, int], str, dict | None]:
    launches = [launch] if launch else [ln for ln in facts.get("launches", ()) if _base(ln["kernel"]) == kernel]
    for ln in launches:
        if ln.get("block_dims"):
            return tuple(ln["block_dims"]), f"the launch at line {ln['loc']['line']}", ln  # type: ignore[return-value]
    for fn in facts.get("functions", ()):
        if _base(fn["name"]) == kernel and fn.get("launch_bounds"):
            return (int(fn["launch_bounds"][0]), 1, 1), "__launch_bounds__", (launches or [None])[0]
    return default_block, "the default block", (launches or [None])[0]


def _spellings(kernel: str, facts: dict, launch: dict | None = None) -> list[str] | str:
    fns = [fn for fn in facts.get("functions", ()) if fn["kind"] == "kernel" and _base(fn["name"]) == kernel]
    if not fns:
        return f"'{kernel}' is not a kernel defined in this file"
    if launch is not None and launch.get("template_args"):
        return [f"{kernel}<{', '.join(launch['template_args'])}>"]
    if not any(fn.get("is_template") for fn in fns):
        return [kernel]
    inst = sorted({f"{kernel}<{', '.join(v for _, v in fn['template_args'])}>" for fn in fns
                   if fn.get("template_args") and not fn.get("is_template")})
    if not inst:
        inst = sorted({f"{kernel}<{', '.join(ln['template_args'])}>" for ln in facts.get("launches", ())
                       if _base(ln["kernel"]) == kernel and ln.get("template_args")})
    if not inst:
        return f"template kernel '{kernel}' has no instantiation in this file to take its template arguments from"
    return inst[:2]


def _target_for_kernel(kernel: str, facts: dict, default_block: tuple[int, int, int]) -> list[Trial] | str:
    names = _spellings(kernel, facts)
    if isinstance(names, str):
        return names
    block, why, launch = _block_of(kernel, facts, default_block)
    return [Trial(n, block, why, _shared_bytes(facts, launch)) for n in names]


def _target_for_launch(launch: dict, facts: dict, default_block: tuple[int, int, int]) -> Trial | str:
    kernel = _base(launch["kernel"])
    names = _spellings(kernel, facts, launch)
    if isinstance(names, str):
        return names
    block, why, _ = _block_of(kernel, facts, default_block, launch)
    return Trial(names[0], block, why, _shared_bytes(facts, launch))


# ------------------------------------------------------------------------------------------------- running

def _prepare_runtime(outcomes: dict, todo: list) -> None:
    """Build the emulator runtime once before the worker threads start (its build is not thread-safe)."""
    from porter.emulate.build import CompileError, runtime_artifacts

    try:
        runtime_artifacts()
    except (CompileError, OSError) as e:
        for pt in todo:
            outcomes[pt] = Outcome("not run", f"the emulator runtime could not be built: {_first_line(str(e))}")


def _first_line(text: str, limit: int = 300) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
    return first if len(first) <= limit else first[:limit - 3] + "..."


def kernel_function(facts: dict, spelling: str) -> dict | None:
    """The kernel's Facts function for a spelling (`k<256>` prefers the instantiation with those arguments)."""
    base = _base(spelling)
    fns = [fn for fn in facts.get("functions", ()) if fn["kind"] == "kernel" and _base(fn["name"]) == base]
    args = spelling.partition("<")[2].rstrip(">").replace(" ", "")
    for fn in fns:
        if args and ",".join(v for _, v in fn.get("template_args", ())).replace(" ", "") == args:
            return fn
    return fns[0] if fns else None


def synthesize(params: Iterable[Any], threads: int, seed: int, factor: int = ARRAY_FACTOR,
               sizes: dict[str, int | None] | None = None, n: int | None = None, inputs: int = 0,
               ) -> tuple[dict[str, Any], list[str]] | str:
    """Arguments for one launch of `threads` threads, drawn the way `porter emulate --inputs` draws them (same
    generator, same order), with the matching --inputs specs. sizes: elements per buffer from porter.emulate.sizing
    (None or absent: factor x threads); n: the integer scalars' value (default: threads); inputs: index into
    INPUTS. A string says why it cannot be done."""
    import numpy as np

    from porter.emulate import param_dtype

    rng = np.random.default_rng(seed)
    n = threads if n is None else n
    _, float_scalar, int_range = INPUTS[inputs]
    fallback = min(MAX_ELEMENTS, max(64, factor * threads))
    args: dict[str, Any] = {}
    specs: list[str] = []
    for p in params:
        dt = param_dtype(p)
        if p.kind == "ptr":
            if dt is None:
                what = "void" if p.code == "v0" else "a pointer" if p.code == "p8" else f"a {p.nbytes}-byte struct"
                return f"parameter '{p.name}' points to {what}; porter cannot synthesize its contents"
            bounded = (sizes or {}).get(p.name)
            size = min(MAX_ELEMENTS, max(1, bounded)) if bounded else fallback
            if dt.kind == "f":
                args[p.name] = rng.uniform(-1.0, 1.0, (size,)).astype(dt)
                specs.append(f"{p.name}=rand:{size}")
            else:
                hi = 2 if dt.kind == "b" else (max(2, n) if int_range == "n" else INT_RANGE[1])
                hi = min(hi, int(np.iinfo(dt).max) + 1) if dt.kind in "iu" else hi
                args[p.name] = rng.integers(INT_RANGE[0], hi, (size,)).astype(dt)
                specs.append(f"{p.name}=randint:{size}:{INT_RANGE[0]}:{hi}")
        else:
            if dt is None:
                return f"parameter '{p.name}' is a {p.nbytes}-byte struct or class passed by value; porter " \
                       f"cannot synthesize it"
            if dt.kind == "f":
                args[p.name] = float_scalar
            elif dt.kind == "b":
                args[p.name] = 1
            else:
                args[p.name] = min(n, int(np.iinfo(dt).max))
            specs.append(f"{p.name}={args[p.name]}")
    return args, specs


def _fmt3(d: tuple[int, int, int]) -> str:
    return ",".join(str(x) for x in d) if d[1:] != (1, 1) else str(d[0])


def run_target(path: str, t: Trial, *, timeout: float = DEFAULT_TIMEOUT, seed: int = 0,
               fn: dict | None = None) -> Outcome:
    """Compile `t.kernel` from `path` for the emulator and run it at warp sizes 32 and 64. fn: the kernel's Facts
    function, whose index expressions size the buffers (without it every buffer gets the fallback size)."""
    from porter.emulate import (CompileError, KernelTimeout, MemoryFault, differential,
                                kernel_signature)
    from porter.emulate.launch import Launch
    from porter.emulate.sizing import choose_scalar

    threads = t.block[0] * t.block[1] * t.block[2]
    limit = _emulated().max_threads_per_block
    if threads > limit:
        return Outcome("not run", f"block {_fmt3(t.block)} ({t.block_from}) has more than {limit} threads")
    try:
        params = kernel_signature(path, t.kernel)
    except CompileError as e:
        return Outcome("not run", f"the emulator could not compile '{t.kernel}': {_first_line(str(e))}")
    except OSError as e:
        return Outcome("not run", f"the emulator could not build '{t.kernel}': {e}")
    grid = (GRID, 1, 1)
    n, sizes = choose_scalar(fn, t.block, grid, GRID * threads, MAX_ELEMENTS) if fn else (GRID * threads, {})
    per_run = max(1.0, timeout / 4)
    rep = None
    launch = ""
    for inputs in range(len(INPUTS)):
        for factor in (ARRAY_FACTOR, ARRAY_FACTOR * 4):
            synth = synthesize(params, GRID * threads, seed, factor, dict(sizes), n, inputs)
            if isinstance(synth, str):
                return Outcome("not run", f"'{t.kernel}': {synth}")
            args, specs = synth
            names = tuple(p.name for p in params)
            the_launch = Launch(t.kernel, grid, t.block, t.shared_bytes, names, tuple(args[x] for x in names),
                                tuple(p.name for p in params if p.kind == "ptr" and not p.const))
            sized = ", ".join(f"{k} {v}" for k, v in sizes.items() if v) or "none"
            launch = (f"{the_launch.describe()} (block from {t.block_from}; {INPUTS[inputs][0]}, integer "
                      f"arguments {n}, buffers sized from the index expressions: {sized}; "
                      f"reproduce: porter emulate {path} -k '{t.kernel}' --grid {GRID} "
                      f"--block {','.join(map(str, t.block))}"
                      + (f" --shared {t.shared_bytes}" if t.shared_bytes else "")
                      + f" --diff --seed {seed} -i {','.join(specs)})")
            try:
                rep = differential(path, t.kernel, grid, t.block, dict(zip(names, the_launch.args)),
                                   shared_bytes=t.shared_bytes, timeout=per_run, rtol=1e-4, atol=1e-5)
            except CompileError as e:
                return Outcome("not run", f"the emulator could not compile '{t.kernel}': {_first_line(str(e))}")
            except (TypeError, ValueError) as e:
                return Outcome("not run", f"'{t.kernel}': the synthesized arguments were refused: {e}")
            # Out of bounds at both sizes: the unbounded buffers may be too small; retry them larger once.
            if not (len(rep.errors) == 2 and all(isinstance(e, MemoryFault) for e in rep.errors.values())):
                break
        if rep is not None and (rep.diffs or rep.errors):
            break  # a difference or a failure to report; otherwise try inputs that reach more code
    assert rep is not None
    if rep.diffs:
        d = rep.diffs[0]
        first = ", ".join(f"{d.name}[{ix[0] if len(ix) == 1 else list(ix)}]: {_num(a)} vs {_num(b)}"
                          for ix, a, b in list(zip(d.indices, d.values_32, d.values_64))[:2])
        more = f"; also {', '.join(x.name for x in rep.diffs[1:])}" if len(rep.diffs) > 1 else ""
        return Outcome("confirmed", f"outputs differ at warp size 32 vs 64 ({first}; {d.n_differ} of {d.total} "
                                    f"elements of '{d.name}' differ{more}) in {launch}")
    if len(rep.errors) == 1:
        (w, e), = rep.errors.items()
        if isinstance(e, KernelTimeout):
            return Outcome("not run", f"the kernel timed out at warp size {w} only ({_first_line(str(e))}) in "
                                      f"{launch}; the emulator cannot run spin-waits between lanes")
        return Outcome("confirmed", f"the kernel fails at warp size {w} but not at {96 - w}: {type(e).__name__}: "
                                    f"{_first_line(str(e))} in {launch}")
    if rep.errors:
        e = rep.errors[64]
        return Outcome("not run", f"the kernel failed at both warp sizes with synthesized inputs "
                                  f"({type(e).__name__}: {_first_line(str(e))}) in {launch}; the synthesized "
                                  f"launch may not match how the kernel is really launched")
    names = ", ".join(sorted(rep.outputs.get(64, {}))) or "no outputs"
    warned = _wave64_warnings(rep)
    extra = f"; the emulator warned at warp size 64: {warned}" if warned else ""
    return Outcome("not confirmed", f"outputs ({names}) identical at warp size 32 and 64 in {launch}{extra}; "
                                    f"a clean run on one synthesized input does not prove the code correct")


def _num(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _wave64_warnings(rep: Any) -> str:
    w32 = {str(w.get("message", "")) for w in getattr(rep.outputs.get(32), "warnings", [])}
    w64 = [str(w.get("message", "")) for w in getattr(rep.outputs.get(64), "warnings", [])]
    new = [m for m in dict.fromkeys(w64) if m and m not in w32]
    return _first_line(new[0]) if new else ""


def _combine(outcomes: list[Outcome]) -> str:
    """One line for a finding reached through several kernels: the strongest evidence wins."""
    for status in ("confirmed", "not confirmed", "not run"):
        hits = [o for o in outcomes if o.status == status]
        if hits:
            line = hits[0].line()
            if len(outcomes) > 1:
                line += f" [{len(hits)} of {len(outcomes)} kernels reaching this code: {status}]"
            return line
    return "not run: no kernel reaches this code"
