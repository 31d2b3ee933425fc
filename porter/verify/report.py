"""Build a verify report (one per module) and render it as JSON or a readable table."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any, Sequence

from porter import __version__
from porter.targets import DEFAULT_TARGET, amd_targets, config_key, known_targets, load_target

SCHEMA = "porter.verify/1"
TARGET_CHOICES = ("auto", *known_targets())
COMPILE_CHOICES = tuple(t.name for t in amd_targets())


def verify_module(path: str | Path, *, target: str = "auto", seeds: int = 5, shapes: list[dict] | None = None,
                  tune: bool = False, original: str | None = None, compile_for: str | None = DEFAULT_TARGET,
                  timer=None, peaks: dict | None = None, perf: bool = True,
                  original_flags: Sequence[str] = ()) -> dict[str, Any]:
    """Everything `porter verify` reports about one generated module (JSON-ready, see SCHEMA).

    target: whose tile config numerics and timing use ("auto": the GPU's own, else the module's rendered one);
    compile_for: the AMD target the code objects are built for (None: no code object); original_flags: the -I/-D
    flags every build of the original gets."""
    from porter.verify import numerics
    from porter.verify.modules import ModuleError, import_module, read_header

    rep: dict[str, Any] = {"schema": SCHEMA, "porter": __version__, "module": str(path),
                           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        info = read_header(path)
        mod = import_module(path)
    except ModuleError as exc:
        rep.update(verdict="error", error=str(exc), exit_code=2)
        return rep
    rep.update(family=info.family, params=info.params, source_file=info.source_file,
               source_kernel=info.source_kernel, original=original,
               original_flags=list(original_flags))
    g = numerics.gpu()
    rep["gpu"] = g
    if target == "auto":
        target = g.get("native_target") if g["present"] else info.rendered_target
        if target not in mod.CONFIGS:
            target = mod.TARGET
    else:
        target = config_key(target)
    rep["target"] = target

    # 1. the AMD code object
    if compile_for:
        from porter.verify.compile import compile_generated, compile_original
        comp = compile_generated(mod, target=compile_for)
        if original:
            comp["original"] = compile_original(original, extra_flags=original_flags, target=compile_for)
        rep["compile"] = comp
    else:
        rep["compile"] = {"target": DEFAULT_TARGET, "status": "not run", "reason": "skipped (--no-compile)"}

    # 2. numerics, 3. performance, 4. tuning: only where a GPU is present
    num = numerics.run(mod, info.family, info.params, target=target, seeds=seeds, original=original,
                        original_flags=original_flags)
    rep["numerics"] = num
    if not g["present"]:
        rep["performance"] = {"status": "not run", "reason": "no GPU", "text": "performance: not run (no GPU)"}
        if tune:
            rep["tune"] = {"status": "not run", "reason": "no GPU", "text": "tune: not run (no GPU)"}
    else:
        from porter.verify.perf import Timer, bench, measure_peaks
        if perf:
            timer = timer or Timer()
            if peaks is None:
                peaks = measure_peaks(timer)
            rep["peaks"] = peaks
            rep["performance"] = bench(mod, info.family, info.params, target=target, shapes=shapes,
                                       original=original, timer=timer, peaks=peaks, original_flags=original_flags)
        else:
            rep["performance"] = {"status": "not run", "reason": "skipped"}
        if tune:
            from porter.verify.tune import tune as run_tune
            rep["tune"] = run_tune(mod, info.family, info.params, target=target, shapes=shapes, timer=timer)
    rep["verdict"], rep["exit_code"] = verdict(rep)
    return rep


def verdict(rep: dict[str, Any]) -> tuple[str, int]:
    comp, num = rep.get("compile", {}), rep.get("numerics", {})
    perf, orig = rep.get("performance", {}), num.get("original") or {}
    vs = "generated vs original" if num.get("status") != "not run" else "original vs the module's reference"
    amd = comp.get("target", DEFAULT_TARGET)
    failed = [name for name, sec in ((f"{amd} compile", comp), ("numerics", num), (vs, orig),
                                     ("performance re-check", perf)) if sec.get("status") == "fail"]
    if failed:
        return "failed: " + ", ".join(failed), 1
    ran = [c for c in orig.get("cases", []) if c.get("ok") is not None]
    if num.get("status") == "pass":
        where = f"{num.get('config_target')} config on {num.get('device')}"
        if orig.get("status") != "pass":
            why = orig.get("reason", "no --original given") if orig else "no --original given"
            return (f"numerics pass against the module's own reference only ({where}); not compared with the "
                    f"original: {why}"), 0
        where += f"; generated = original ({orig.get('runner')}) on {len(ran)} cases"
        on_it = rep.get("gpu", {}).get("arch") == load_target(amd).toolchain_arch
        hw = "" if on_it else f"; not run on {amd} hardware"
        if comp.get("status") == "ok":
            return f"verified ({where}; {amd} code object ok{hw})", 0
        # DESIGN.md: verified only when it also compiled for the target
        return f"numerics pass ({where}); {amd} compile {comp.get('status')}: not verified for {amd}", 0
    text = num.get("text", "numerics: not run")
    if orig.get("runner") == "emulator" and orig.get("status") == "pass":
        text += (f"; original on the wave64 emulator = the module's reference on {len(ran)}/{len(ran)} cases"
                 + (" (wave64-broken original: compared with its wave32 run)" if orig.get("wave64_broken") else ""))
    if comp.get("status") == "ok":
        return f"compiled only ({amd} code object ok; " + text + ")", 0
    return "not verified (" + text + ")", 0


def to_json(reports: list[dict[str, Any]]) -> str:
    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if not k.startswith("_")}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x
    return json.dumps({"schema": SCHEMA, "reports": [clean(r) for r in reports]}, indent=2, default=str)


def _shape(s: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in s.items())


def to_text(rep: dict[str, Any]) -> str:
    from porter.verify.compile import side_by_side

    lines = [f"porter verify {rep['module']}"]
    if rep.get("verdict") == "error":
        return "\n".join(lines + [f"  error: {rep['error']}"])
    p = ", ".join(f"{k}={v}" for k, v in rep.get("params", {}).items() if k != "kernel_name")
    lines.append(f"  {rep['family']} ({p}); numerics/timing config target: {rep['target']}")
    comp = rep.get("compile", {})
    head = f"compile {comp.get('target', DEFAULT_TARGET)}: {comp.get('status')}"
    if comp.get("status") == "not run":
        head += f" ({comp.get('reason')})"
    elif "config_name" in comp:
        head += f" [config {comp['config_name']}, shape {_shape(comp['shape'])}]"
    lines.append(head)
    if comp.get("kernel") or (comp.get("original") or {}).get("kernel"):
        lines += ["  " + ln for ln in side_by_side(comp, comp.get("original")).splitlines()]
        k = comp.get("kernel")
        if k:
            kinds = ", ".join(f"{n} x{c}" for n, c in k["instructions"]["mfma_kinds"].items()) or "none"
            lines.append(f"  MFMA kinds: {kinds}; scratch instructions: {k['instructions']['scratch']}")
    for sec in (comp, comp.get("original") or {}):
        for e in sec.get("errors", []):
            lines.append(f"  error: {e}")
        for w in sec.get("warnings", []):
            lines.append(f"  warning: {w}")
    num = rep.get("numerics", {})
    lines.append(num.get("text", f"numerics: {num.get('status')}"))
    if num.get("note"):
        lines.append(f"  note: {num['note']}")
    for c in num.get("cases", []):
        if not c["ok"]:
            lines.append(f"  FAIL {_shape(c['shape'])} seed={c['seed']}: {c['detail']}")
    if num.get("tile_multiple_shapes"):
        lines.append(f"  warning: shapes that are tile multiples: {num['tile_multiple_shapes']}")
    o = num.get("original")
    if o:
        ran = [c for c in o.get("cases", []) if c["ok"] is not None]
        where = {"emulator": " on the wave64 CPU emulator vs the module's reference",
                 "nvcc": f" (nvcc, {o.get('arch')}) vs the generated kernel",
                 "hipcc": f" (hipcc, {o.get('arch')}) vs the generated kernel"}.get(o.get("runner", ""), "")
        lines.append(f"  original {o['file']} [{o.get('kernel', '?')}]{where}: {o['status']}"
                     + (f" ({sum(c['ok'] for c in ran)}/{len(ran)} cases)" if ran else f" ({o.get('reason')})"))
        if ran:
            lines.append(f"    shapes {'; '.join(_shape(s) for s in o.get('shapes', []))}, {o.get('seconds')} s; "
                         f"launch {ran[0].get('launch', '?')}")
        failed = [c for c in ran if not c["ok"]]
        if failed:
            c = failed[0]
            lines.append(f"    first failure {_shape(c['shape'])} seed={c['seed']}: {c['detail']}")
        if o.get("wave64_broken"):
            lines.append(f"    {o['wave64_broken']}")
        if o.get("note") and ran:  # the note says how the original ran: nothing to say when it did not
            lines.append(f"    note: {o['note']}")
    perf = rep.get("performance", {})
    if perf.get("status") in (None, "not run"):
        lines.append(perf.get("text", f"performance: not run ({perf.get('reason')})"))
    else:
        lines.append(f"performance ({perf['config_name']}, median of {perf['reps']} reps, cache flushed):")
        rows = [("shape", "impl", "median ms", "rate", "of peak", "speedup")]
        rechecks = []
        for r in perf["rows"]:
            for label in ("generated", "torch", "original"):
                t = r.get(label)
                if not t:
                    continue
                if "error" in t:
                    rows.append((_shape(r["shape"]), label, "error", t["error"][:40], "", ""))
                    continue
                frac = f"{100 * t['fraction_of_peak']:.0f}%" if t.get("fraction_of_peak") is not None else "-"
                sp = "" if label == "generated" else f"{r.get(f'speedup_vs_{label}', 0):.2f}x"
                rows.append((_shape(r["shape"]), label, f"{t['median_ms']:.4f}", f"{t['rate']:.1f} {t['unit']}",
                             frac, sp))
            rechecks.append(f"  re-check after timing at {_shape(r['shape'])}: "
                         f"{'ok' if r['recheck']['ok'] else 'FAIL'} ({r['recheck']['detail']})")
        widths = [max(len(x[i]) for x in rows) for i in range(len(rows[0]))]
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines += rechecks
        if rep.get("peaks"):
            pk = rep["peaks"]
            lines.append(f"  peaks measured: copy {pk['copy_gbps']:.0f} GB/s, matmul fp16 "
                         f"{pk['matmul_float16_tflops']:.0f} / bf16 {pk['matmul_bfloat16_tflops']:.0f} TFLOP/s")
        lines.append("  (speedup: the other's time over the generated kernel's)")
    tn = rep.get("tune")
    if tn:
        if tn.get("status") == "not run":
            lines.append(tn.get("text", "tune: not run"))
        else:
            lines.append(f"tune ({len(tn['results'])} {tn['target']} configs):")
            for e in tn["results"]:
                ts = ", ".join(f"{t['median_ms']:.4f} ms" if "median_ms" in t else "error" for t in e["times"])
                lines.append(f"  {e['config_name']}: {'ok' if e['check']['ok'] else 'FAIL'} {ts}")
            for b in tn["best"]:
                lines.append(f"  best at {_shape(b['shape'])}: {b['config_name']} ({b['median_ms']:.4f} ms)")
            if tn.get("file"):
                lines.append(f"  written to {tn['file']}")
    lines.append(f"verdict: {rep['verdict']}")
    return "\n".join(lines)
