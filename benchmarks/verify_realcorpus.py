"""Every converted real kernel (corpus/convert.toml) and every bundled sample against its original, on a GPU.

    python benchmarks/verify_realcorpus.py prepare DIR            # here (CPU): convert and collect the originals
    python3 benchmarks/verify_realcorpus.py run DIR OUT.json [--part all|corpus|samples] [--deadline 480]
                                            [--only NAME ...] [--list]                   # on the GPU

`prepare` converts the corpus into DIR (`convert_corpus.py --out DIR`), copies each converted kernel's original with
the files its `#include "..."` closure reaches (from the pinned snapshot, into DIR/originals/<snapshot>/...) and
writes DIR/manifest.json: module, original, include folders. Third-party files stay in DIR (keep it ignored, e.g.
under .carry/); nothing of them is committed.

`run` verifies, for each corpus module of the manifest and each sample's golden module
(porter/families/*/samples/golden/*.py, against the .hip beside its folder), what
`porter verify MODULE --no-compile --original FILE -I ...` verifies (porter.verify.report.verify_module): the
original built for this GPU and launched from the module's ORIGINAL mapping, the generated kernel on the same inputs,
every output compared; the module's float64 reference as the second check; then the timing of both at the module's
BENCH_SHAPE. No link flags are passed: porter builds the original dropping what the launched kernel does not reach
(porter/verify/gpu_original.py). Writes OUT.json after every module and prints a markdown table: pass/fail, first
differing element, original ms / generated ms.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "corpus"))
_QUOTED = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def include_closure(file: Path, root: Path, include_dirs: list[Path]) -> list[Path]:
    """`file` and every file its quoted includes reach (looked up beside the includer, then in include_dirs),
    all inside `root`."""
    seen: list[Path] = []
    todo = [file.resolve()]
    while todo:
        f = todo.pop()
        if f in seen or not f.is_file() or not f.is_relative_to(root):
            continue
        seen.append(f)
        for name in _QUOTED.findall(f.read_text(errors="replace")):
            for base in (f.parent, *include_dirs):
                cand = (base / name).resolve()
                if cand.is_file() and cand.is_relative_to(root):
                    todo.append(cand)
                    break
    return seen


def prepare(out: Path) -> None:
    from convert_corpus import convert_one, load_entries
    from corpusdata import load_corpus
    from materialize import DEFAULT_CACHE, DEFAULT_MIRRORS, DEFAULT_STORE, materialize

    corpus = load_corpus()
    entries = load_entries()
    m = materialize(corpus, DEFAULT_CACHE, DEFAULT_MIRRORS, DEFAULT_STORE, only={e["snapshot"] for e in entries})
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for e in entries:
        if e["expect"] == "refuse" or e["snapshot"] not in m.roots:
            continue
        snap, root = corpus.snapshots[e["snapshot"]], m.roots[e["snapshot"]].resolve()
        incs = [root / i for i in snap.includes]
        rep = convert_one(root / e["path"], e["kernel"], incs, out)
        if rep.get("status") != "converted":
            print(f"{e['kernel']}: not converted ({rep.get('reason') or rep.get('status')}), left out")
            continue
        for f in include_closure(root / e["path"], root, incs):
            dest = out / "originals" / e["snapshot"] / f.relative_to(root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dest)
        kept = [f"{e['snapshot']}/{i}" for i in snap.includes if (out / "originals" / e["snapshot"] / i).is_dir()]
        manifest.append({"module": Path(rep["output"]).name, "original": f"{e['snapshot']}/{e['path']}",
                         "includes": kept})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} converted kernels and their originals in {out}")


def samples() -> list[tuple[Path, Path]]:
    from porter import families

    out = []
    for original in sorted(families.samples()):
        golden = families.golden(original)
        if golden.is_file():
            out.append((golden, original))
    return out


def summary(rep: dict) -> dict:
    num = rep.get("numerics") or {}
    orig = num.get("original") or {}
    cases = orig.get("cases") or []
    first = next((c for c in cases if not c.get("ok")), None)
    rows = (rep.get("performance") or {}).get("rows") or []
    row = rows[0] if rows else {}
    g, o = (row.get("generated") or {}).get("median_ms"), (row.get("original") or {}).get("median_ms")
    return {"generated_vs_reference": num.get("status"), "original_status": orig.get("status"),
            "original_reason": orig.get("reason"), "agree": sum(bool(c.get("ok")) for c in cases),
            "cases": len(cases), "first_failure": first and (first.get("first_difference") or first.get("detail")),
            "bench_shape": row.get("shape"), "generated_ms": g, "original_ms": o,
            "original_over_generated": round(o / g, 2) if g and o else None, "verdict": rep.get("verdict")}


def jobs_of(d: Path, part: str, only: list[str]) -> list[tuple[str, Path, Path, list[str]]]:
    """(name, module, original, -I flags) for the corpus modules of DIR's manifest and/or the samples."""
    jobs = []
    if part in ("all", "corpus"):
        if not (d / "manifest.json").is_file():
            raise SystemExit(f"{d}/manifest.json: not found; run `verify_realcorpus.py prepare {d}` first")
        for m in json.loads((d / "manifest.json").read_text()):
            flags = [f for i in m["includes"] for f in ("-I", str((d / "originals" / i).resolve()))]
            jobs.append((m["module"][:-3], d / m["module"], d / "originals" / m["original"], flags))
    if part in ("all", "samples"):
        jobs += [(f"sample:{g.parents[2].name}/{g.stem}", g, o, []) for g, o in samples()]   # families/<f>/samples/golden/x.py
    return [j for j in jobs if not only or any(s in j[0] for s in only)]


def run(jobs: list[tuple[str, Path, Path, list[str]]], out: Path, deadline: float) -> None:
    from porter.verify.numerics import gpu
    from porter.verify.perf import Timer, measure_peaks
    from porter.verify.report import verify_module

    t0 = time.time()
    timer = Timer(reps=100)
    res = {"date": time.strftime("%Y-%m-%d"), "gpu": gpu(), "command": " ".join(sys.argv),
           "peaks": measure_peaks(timer), "modules": {}}
    for name, module, original, flags in jobs:
        if time.time() - t0 > deadline:
            res["modules"][name] = {"summary": {"original_status": "not run", "original_reason": "deadline"}}
            continue
        t1 = time.time()
        rep = verify_module(module, original=str(original), compile_for=None, timer=timer, peaks=res["peaks"],
                            original_flags=flags)
        res["modules"][name] = {"summary": summary(rep), "seconds": round(time.time() - t1, 1), "report": rep}
        print(name, json.dumps(res["modules"][name]["summary"], default=str), flush=True)
        res["elapsed_s"] = round(time.time() - t0, 1)
        out.write_text(json.dumps(res, indent=1, default=str))
    print("| module | generated vs reference | generated vs original | first differing element | generated ms | "
          "original ms | original / generated |\n|---|---|---|---|---|---|---|")
    for name, m in res["modules"].items():
        s = m.get("summary") or {}
        first = s.get("first_failure")
        first = first.get("detail") if isinstance(first, dict) else first
        print(f"| {name} | {s.get('generated_vs_reference')} | {s.get('original_status')} "
              f"{s.get('agree')}/{s.get('cases')} | {first or s.get('original_reason') or 'none'} | "
              f"{s.get('generated_ms')} | {s.get('original_ms')} | {s.get('original_over_generated')} |")
    out.write_text(json.dumps(res, indent=1, default=str))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="convert the corpus and collect the originals into DIR (CPU)")
    p.add_argument("dir", type=Path)
    r = sub.add_parser("run", help="verify every module of DIR and every sample on the GPU")
    r.add_argument("dir", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--deadline", type=float, default=480.0, help="seconds after which no further module starts")
    r.add_argument("--only", nargs="*", default=[], help="only modules whose name contains one of these")
    r.add_argument("--part", choices=("all", "corpus", "samples"), default="all",
                   help="the corpus modules of DIR, the bundled samples, or both")
    r.add_argument("--list", action="store_true", help="print what would run and exit (no GPU needed)")
    a = ap.parse_args()
    if a.cmd == "prepare":
        prepare(a.dir)
        return
    jobs = jobs_of(a.dir, a.part, a.only)
    if a.list:
        for name, module, original, flags in jobs:
            print(f"{name}: {module} vs {original} {' '.join(flags)}")
        return
    run(jobs, a.out, a.deadline)


if __name__ == "__main__":
    main()
