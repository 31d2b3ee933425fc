"""Every bundled sample original, launched by porter from its converted module's ORIGINAL mapping and run as gfx942
would run it (64-lane wavefronts, porter's CPU emulator) on the module's cases, against the module's float64
reference: what `porter verify --original` reports on a machine without a GPU. Prints a table (and writes JSON
with --json FILE).

Usage: python benchmarks/emulated_originals.py [--seeds 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--json", default=None, help="also write the per-sample results here")
    args = ap.parse_args()
    from porter import families
    from porter.verify.modules import import_module, read_header
    from porter.verify.differential import emulated

    rows = []
    for original in sorted(families.samples()):
        golden = families.golden(original)
        if not golden.exists():
            continue
        info, mod = read_header(golden), import_module(golden)
        start = time.perf_counter()
        res = emulated(mod, str(original.relative_to(ROOT)), seeds=args.seeds, shapes=list(mod.TEST_SHAPES))
        ran = [c for c in res["cases"] if c["ok"] is not None]
        first = next((c["detail"] for c in ran if not c["ok"]), res.get("reason", res.get("wave64_broken", "")))
        rows.append({"sample": str(original.relative_to(ROOT)), "family": info.family,
                     "dtype": info.params.get("dtype"), "status": res["status"],
                     "passed": sum(c["ok"] for c in ran), "cases": len(ran),
                     "seconds": round(time.perf_counter() - start, 1), "first_failure": first})
    print(f"CPU: {platform.processor() or platform.machine()}, Python {sys.version.split()[0]}; wave size 64, "
          f"{args.seeds} seeds x the module's TEST_SHAPES")
    print(f"{'sample':<55}{'dtype':<9}{'result':<10}{'cases':>7}{'s':>7}  first failure")
    for r in rows:
        print(f"{r['sample']:<55}{r['dtype']:<9}{r['status']:<10}{r['passed']:>3}/{r['cases']:<3}"
              f"{r['seconds']:>7.1f}  {r['first_failure'][:60]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
