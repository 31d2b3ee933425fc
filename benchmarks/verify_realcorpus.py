"""`porter verify --original` on the real kernels `benchmarks/convert_corpus.py` converts (device step).

    python3 benchmarks/verify_realcorpus.py DIR OUT.json [--deadline 420]

DIR holds the converted modules (`convert_corpus.py --out DIR`) and `originals/<project>/...`: each original with
the files its `#include "..."` closure reaches, copied from the pinned snapshot. Each module runs as
`porter verify MODULE --no-compile --original FILE -I ...` would (porter.verify.report.verify_module), with the
project's include folders. The originals' files also define host functions that call their project's libraries
(llm.c's common.h: cuBLAS; ggml's scale.cu: libggml), which are not built here: LINK_FLAGS hide every symbol but
porter's entry points and let the linker drop the unused ones, so the shim loads without those libraries.
Writes OUT.json after every module and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LINK_FLAGS = ["-Xcompiler", "-fvisibility=hidden,-ffunction-sections,-fdata-sections", "-Xlinker", "--gc-sections"]
# module, original (under DIR/originals), include folders (under DIR/originals)
MODULES = [
    ("softmax_forward_kernel1.py", "llmc/dev/cuda/softmax_forward.cu", []),
    ("softmax_forward_kernel7.py", "llmc/dev/cuda/softmax_forward.cu", []),
    ("softmax_forward_online_kernel1.py", "llmc/dev/cuda/softmax_forward.cu", []),
    ("softmax_forward_online_kernel8.py", "llmc/dev/cuda/softmax_forward.cu", []),
    ("scale_f32.py", "ggml/src/ggml-cuda/scale.cu", ["ggml/include", "ggml/src"]),
]


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--deadline", type=float, default=420.0)
    a = ap.parse_args()
    from porter.verify.numerics import gpu
    from porter.verify.perf import Timer, measure_peaks
    from porter.verify.report import verify_module

    t0 = time.time()
    timer = Timer(reps=100)
    res = {"date": time.strftime("%Y-%m-%d"), "gpu": gpu(), "command": " ".join(sys.argv), "link_flags": LINK_FLAGS,
           "peaks": measure_peaks(timer), "modules": {}}
    for name, orig, incs in MODULES:
        if time.time() - t0 > a.deadline:
            res["modules"][name] = {"status": "not run", "reason": "deadline"}
            continue
        flags = [f for d in incs for f in ("-I", str((a.dir / "originals" / d).resolve()))] + LINK_FLAGS
        t1 = time.time()
        rep = verify_module(a.dir / name, original=str(a.dir / "originals" / orig), compile_gfx942=False,
                            timer=timer, peaks=res["peaks"], original_flags=flags)
        res["modules"][name] = {"summary": summary(rep), "seconds": round(time.time() - t1, 1), "report": rep}
        print(name, json.dumps(res["modules"][name]["summary"], default=str), flush=True)
        res["elapsed_s"] = round(time.time() - t0, 1)
        a.out.write_text(json.dumps(res, indent=1, default=str))
    print("| module | generated vs reference | generated vs original | first failure | generated ms | "
          "original ms | original / generated |\n|---|---|---|---|---|---|---|")
    for name, m in res["modules"].items():
        s = m.get("summary") or {}
        print(f"| {name[:-3]} | {s.get('generated_vs_reference')} | {s.get('original_status')} "
              f"{s.get('agree')}/{s.get('cases')} | {s.get('first_failure') or s.get('original_reason') or '-'} | "
              f"{s.get('generated_ms')} | {s.get('original_ms')} | {s.get('original_over_generated')} |")


if __name__ == "__main__":
    main()
