"""Benchmark of `porter verify` on an NVIDIA GPU (CUDA target): correctness of every generated kernel for the
sample kernels, speed against torch and against the hipified original (nvcc + porter/hip_for_nvcc/hip2cuda.h), and
the headline workloads (GEMM 4096^3 fp16/bf16, attention 4x32x4096 d128 fp16 causal and not, softmax / rmsnorm /
layernorm 8192x8192 fp16) against torch and the copy bandwidth measured in the same run.

Two steps, because the GPU machine has no libclang or gfx942 toolchain:

  here:    python benchmarks/verify_bench.py prepare DIR     # porter convert every sample + render headline
                                                             # modules into DIR, gfx942 code-object facts
           (--originals-only: the converted samples alone, no headline modules, no gfx942 facts; --extra FILE.json:
            also modules converted elsewhere, [{"module": PATH, "original": PATH}], e.g. real-corpus kernels)
  device:  python3 benchmarks/verify_bench.py run DIR OUT.json [--tune] [--workers 12] [--deadline 500]

`run` checks every module in parallel worker processes (this also fills TileLang's kernel cache and porter's
nvcc cache), then times everything sequentially in one process; results are written after every step.
`table IN.json` prints the markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# (name, family, params, timing shapes) rendered with their sm_90a default config
HEADLINE = [
    ("hl_gemm_f16", "gemm", {"dtype": "float16", "epilogue": "overwrite"}, [{"M": 4096, "N": 4096, "K": 4096}]),
    ("hl_gemm_bf16", "gemm", {"dtype": "bfloat16", "epilogue": "overwrite"}, [{"M": 4096, "N": 4096, "K": 4096}]),
    ("hl_attention_f16", "attention", {"dtype": "float16", "head_dim": 128, "causal": False},
     [{"batch": 4, "heads": 32, "seq_q": 4096, "seq_kv": 4096}]),
    ("hl_attention_causal_f16", "attention", {"dtype": "float16", "head_dim": 128, "causal": True},
     [{"batch": 4, "heads": 32, "seq_q": 4096, "seq_kv": 4096}]),
    ("hl_softmax_f16", "softmax", {"dtype": "float16"}, [{"M": 8192, "N": 8192}]),
    ("hl_rmsnorm_f16", "rmsnorm", {"dtype": "float16"}, [{"M": 8192, "N": 8192}]),
    ("hl_layernorm_f16", "layernorm", {"dtype": "float16"}, [{"M": 8192, "N": 8192}]),
]
TARGETS = {"gemm": ("torch", 0.95), "attention": ("torch", 0.90), "softmax": ("copy", 0.85),
           "rmsnorm": ("copy", 0.85), "layernorm": ("copy", 0.85)}


# ------------------------------------------------------------------------------------------------- prepare

def prepare(out_dir: Path, originals_only: bool = False, extra: Path | None = None) -> None:
    from porter import families
    from porter.convert.render import render, write_module
    from porter.verify.compile import compile_generated, compile_original
    from porter.verify.modules import import_module, read_header

    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = {"modules": []}
    for sample in sorted(families.samples()):
        proc = subprocess.run([sys.executable, "-c", "from porter.cli import main; main()", "convert", str(sample), "-o", str(out_dir),
                               "--format", "json", "--force"], capture_output=True, text=True, cwd=ROOT)
        try:
            reports = json.loads(proc.stdout)
        except json.JSONDecodeError:
            reports = [{"kernel": sample.stem, "status": "error", "error": proc.stderr.strip()[-300:]}]
        for r in reports:
            entry = {"sample": str(sample.relative_to(ROOT)), "kernel": r.get("kernel"), "status": r.get("status")}
            if r.get("status") == "converted":
                entry["module"] = Path(r["output"]).name
            else:
                entry["why"] = r.get("error") or r.get("closest") or proc.stderr.strip().splitlines()[-1:]
            manifest["modules"].append(entry)
    if extra is not None:
        # modules converted elsewhere: copied next to the others, their originals into DIR/originals
        import shutil
        (out_dir / "originals").mkdir(exist_ok=True)
        for e in json.loads(extra.read_text()):
            src, orig = Path(e["module"]), Path(e["original"])
            shutil.copy(src, out_dir / src.name)
            dest = out_dir / "originals" / orig.name
            shutil.copy(orig, dest)
            manifest["modules"].append({"sample": str(dest.resolve().relative_to(ROOT)), "module": src.name,
                                        "kernel": e.get("kernel"), "status": "converted", "corpus": True})
    for name, family, params, shapes in ([] if originals_only else HEADLINE):
        text = render(family, dict(params, kernel_name=name), target="sm_90a",
                      source_info={"file": "<headline>", "kernel": name})
        write_module(text, out_dir / f"{name}.py", force=True)
        manifest["modules"].append({"headline": True, "module": f"{name}.py", "family": family, "params": params,
                                    "shapes": shapes, "status": "converted"})
    # gfx942 code objects (no GPU needed; the device has no gfx942 toolchain)
    for entry in manifest["modules"]:
        if entry.get("status") != "converted" or originals_only:
            continue
        path = out_dir / entry["module"]
        mod = import_module(path)
        entry["family"] = read_header(path).family
        comp = compile_generated(mod)
        if entry.get("sample"):
            comp["original"] = compile_original(ROOT / entry["sample"])
        entry["compile"] = _clean(comp)
        k = comp.get("kernel") or {}
        print(f"{entry['module']:32s} gfx942 {comp['status']:4s} vgpr={k.get('vgpr_count')} "
              f"lds={k.get('lds_bytes')} mfma={(k.get('instructions') or {}).get('mfma')} "
              f"spills={k.get('vgpr_spills')}", flush=True)
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))


def _clean(x):
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items() if not k.startswith("_")}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


# ----------------------------------------------------------------------------------------------------- run

def _check_worker(args):
    """One module: numerics (generated + original) and a first build of every kernel timing/tuning will use."""
    path, entry, tune = args
    from porter.verify import numerics
    from porter.verify.modules import import_module, read_header

    t0 = time.time()
    info = read_header(path)
    mod = import_module(path)
    target = numerics.gpu()["native_target"]
    original = str(ROOT / entry["sample"]) if entry.get("sample") else None
    res = numerics.run(mod, info.family, info.params, target=target, seeds=5, original=original)
    warm = []
    import torch
    shapes = entry.get("shapes") or [mod.BENCH_SHAPE]
    configs = [(None, None)]
    if tune and entry.get("headline"):
        from porter.verify.tune import config_space
        configs = [(n, c) for n, c in config_space(info.family, info.params, target)]
    for name, cfg in configs:
        with numerics.config_target(mod, target, cfg):
            for shape in shapes + ([mod.TEST_SHAPES[0]] if cfg is not None else []):
                try:
                    case = mod.make_case(shape, 0, "cuda")
                    mod.run_kernel(case)
                    torch.cuda.synchronize()
                    warm.append({"config": name, "shape": shape, "ok": True})
                    del case
                except Exception as exc:
                    warm.append({"config": name, "shape": shape, "ok": False, "error": str(exc)[:300]})
    torch.cuda.empty_cache()
    return entry["module"], {"numerics": res, "warm": warm, "seconds": round(time.time() - t0, 1)}


def run(mod_dir: Path, out_path: Path, tune: bool, workers: int, deadline: float) -> None:
    import multiprocessing as mp

    import torch

    from porter.verify import numerics
    from porter.verify.modules import import_module, read_header
    from porter.verify.perf import Timer, bench, measure_peaks

    t_start = time.time()
    manifest = json.loads((mod_dir / "manifest.json").read_text())
    entries = [e for e in manifest["modules"] if e.get("status") == "converted"]
    entries.sort(key=lambda e: not e.get("headline"))  # headline workloads are timed first
    results = {"date": time.strftime("%Y-%m-%d"), "gpu": numerics.gpu(), "torch": torch.__version__,
               "command": " ".join(sys.argv), "manifest": manifest, "modules": {}}

    def save():
        results["elapsed_s"] = round(time.time() - t_start, 1)
        out_path.write_text(json.dumps(results, indent=1, default=str))

    timer = Timer(reps=100)
    results["peaks"] = measure_peaks(timer)
    print("peaks", json.dumps(results["peaks"]), flush=True)
    save()
    # 1. correctness in parallel (compiles dominate; the GPU is shared, nothing is timed here)
    ctx = mp.get_context("spawn")
    t1 = time.time()
    jobs = [(str(mod_dir / e["module"]), e, tune) for e in entries]
    with ctx.Pool(min(workers, len(jobs))) as pool:
        for name, res in pool.imap_unordered(_check_worker, jobs):
            results["modules"].setdefault(name, {}).update(res)
            o = res["numerics"].get("original") or {}
            print(f"check {name:30s} {res['numerics']['status']:5s} original={o.get('status')} "
                  f"{res['seconds']}s", flush=True)
            save()
    results["check_phase_s"] = round(time.time() - t1, 1)
    # 2. timing, one process, sequential
    for e in entries:
        if time.time() - t_start > deadline:
            results["modules"][e["module"]]["performance"] = {"status": "not run", "reason": "deadline"}
            continue
        path = mod_dir / e["module"]
        info = read_header(path)
        mod = import_module(path)
        target = numerics.gpu()["native_target"]
        original = str(ROOT / e["sample"]) if e.get("sample") else None
        try:
            perf = bench(mod, info.family, info.params, target=target, shapes=e.get("shapes"), original=original,
                         timer=timer, peaks=results["peaks"])
        except Exception as exc:
            perf = {"status": "error", "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        results["modules"][e["module"]]["performance"] = perf
        for r in perf.get("rows", []):
            g, t, o = r.get("generated", {}), r.get("torch", {}), r.get("original", {})
            print(f"time {e['module']:30s} gen={g.get('median_ms')} torch={t.get('median_ms')} "
                  f"orig={o.get('median_ms')} recheck={r['recheck']['ok']}", flush=True)
        save()
    # 3. tuning of the headline modules (configs already built in step 1)
    if tune:
        from porter.verify.tune import tune as run_tune
        for e in entries:
            if not e.get("headline") or time.time() - t_start > deadline:
                continue
            path = mod_dir / e["module"]
            info = read_header(path)
            mod = import_module(path)
            res = run_tune(mod, info.family, info.params, target=numerics.gpu()["native_target"],
                           shapes=e.get("shapes"), timer=timer)
            results["modules"][e["module"]]["tune"] = res
            print(f"tune {e['module']:30s} best={[(b['config_name'], round(b['median_ms'], 4)) for b in res['best']]}",
                  flush=True)
            save()
    save()
    print(table(results))
    print(originals_table(results))


# --------------------------------------------------------------------------------------------------- table

def _fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def table(results: dict) -> str:
    pk = results["peaks"]
    lines = [f"GPU: {pk['device']} (torch {pk['torch']}); measured copy {pk['copy_gbps']:.0f} GB/s (read+write, "
             f"1 GiB), torch.matmul 8192^3 fp16 {pk['matmul_float16_tflops']:.0f} / bf16 "
             f"{pk['matmul_bfloat16_tflops']:.0f} TFLOP/s", ""]
    lines += ["| module | family | numerics (5 seeds x 3 shapes) | original numerics | shape | generated ms | rate | "
              "of peak | torch ms | vs torch | original ms | vs original | re-check |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    families = {e.get("module"): e.get("family", "") for e in results.get("manifest", {}).get("modules", [])}
    for name, m in results["modules"].items():
        m.setdefault("family", families.get(name, ""))
        num = m.get("numerics", {})
        cases = num.get("cases", [])
        ns = f"{num.get('status')} {sum(c['ok'] for c in cases)}/{len(cases)}"
        o = num.get("original") or {}
        ocases = [c for c in o.get("cases", []) if c["ok"] is not None]
        os_ = f"{o.get('status')} {sum(c['ok'] for c in ocases)}/{len(ocases)}" if o else "-"
        rows = (m.get("performance") or {}).get("rows") or [{}]
        for r in rows:
            g, t, og = r.get("generated", {}), r.get("torch", {}), r.get("original", {})
            shape = "x".join(str(v) for v in r.get("shape", {}).values()) or "-"
            rate = f"{g['rate']:.1f} {g['unit']}" if "rate" in g else "-"
            frac = f"{100 * g['fraction_of_peak']:.0f}%" if g.get("fraction_of_peak") is not None else "-"
            sp_t = f"{r['speedup_vs_torch']:.2f}x" if "speedup_vs_torch" in r else "-"
            sp_o = f"{r['speedup_vs_original']:.1f}x" if "speedup_vs_original" in r else "-"
            rc = ("ok" if r["recheck"]["ok"] else "FAIL") if "recheck" in r else "-"
            lines.append(f"| {name[:-3]} | {m.get('family', '')} | {ns} | {os_} | {shape} | {_fmt(g.get('median_ms'), '.4f')} | "
                         f"{rate} | {frac} | {_fmt(t.get('median_ms'), '.4f')} | {sp_t} | "
                         f"{_fmt(og.get('median_ms'), '.3f')} | {sp_o} | {rc} |")
    tuned = [(n, m["tune"]) for n, m in results["modules"].items() if m.get("tune")]
    if tuned:
        lines += ["", "| module | config | check | median ms |", "|---|---|---|---|"]
        for n, tn in tuned:
            best = {b["config_name"] for b in tn.get("best", [])}
            for e in tn.get("results", []):
                ms = ", ".join(_fmt(t.get("median_ms"), ".4f") for t in e["times"]) or "-"
                lines.append(f"| {n[:-3]} | {e['config_name']}{' (best)' if e['config_name'] in best else ''} | "
                             f"{'ok' if e['check']['ok'] else 'FAIL'} | {ms} |")
    return "\n".join(lines)


def originals_table(results: dict) -> str:
    """Every module with an original: generated vs original on the GPU (cases, first failure), and speed."""
    lines = ["| module | original kernel | generated vs original | original vs reference | generated ms | "
             "original ms | original / generated |", "|---|---|---|---|---|---|---|"]
    for e in results["manifest"]["modules"]:
        res = results["modules"].get(e.get("module"), {})
        o = (res.get("numerics") or {}).get("original")
        if not o:
            continue
        ran = [c for c in o.get("cases", []) if c.get("ok") is not None]
        verdict = f"{o['status']} {sum(c['ok'] for c in ran)}/{len(ran)}" if ran else f"{o['status']} ({o.get('reason', '')[:80]})"
        bad = next((c for c in ran if not c["ok"]), None)
        if bad:
            verdict += f"; first: {bad['detail'][:90]}"
        ref = sum(1 for c in ran if c.get("original_vs_reference") == "agree")
        row = ((res.get("performance") or {}).get("rows") or [{}])[0]
        g, og = row.get("generated", {}), row.get("original", {})
        ratio = f"{row['speedup_vs_original']:.2f}x" if "speedup_vs_original" in row else "-"
        lines.append(f"| {e['module'][:-3]} | {o.get('kernel', '-')} | {verdict} | {ref}/{len(ran)} agree | "
                     f"{_fmt(g.get('median_ms'), '.4f')} | {_fmt(og.get('median_ms'), '.4f')} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir", type=Path)
    p.add_argument("--originals-only", action="store_true")
    p.add_argument("--extra", type=Path, default=None)
    r = sub.add_parser("run")
    r.add_argument("dir", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--tune", action="store_true")
    r.add_argument("--workers", type=int, default=12)
    r.add_argument("--deadline", type=float, default=500.0)
    t = sub.add_parser("table")
    t.add_argument("json", type=Path)
    t.add_argument("--originals", action="store_true", help="the generated-vs-original table")
    a = ap.parse_args()
    if a.cmd == "prepare":
        prepare(a.dir, a.originals_only, a.extra)
    elif a.cmd == "run":
        run(a.dir, a.out, a.tune, a.workers, a.deadline)
    else:
        data = json.loads(a.json.read_text())
        print(originals_table(data) if a.originals else table(data))


if __name__ == "__main__":
    main()
