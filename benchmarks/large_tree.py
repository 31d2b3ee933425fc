"""Analyze a large generated source tree and print files, lines, wall time and peak memory.

    python benchmarks/large_tree.py [--files 2000] [--lines 800000] [-j 2] [--keep DIR]

The tree is built from samples/**/*.hip with renamed kernels (and every identifier suffixed, so no two files are
the same text), each file padded by repeating its own kernels until the tree holds about --lines lines. Then
`porter analyze TREE -j J --format json -q -o report.json` runs in a subprocess; peak memory is the largest
resident set of any child process (getrusage(RUSAGE_CHILDREN).ru_maxrss: the parent or one worker)."""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def build_tree(root: Path, files: int, lines: int) -> tuple[int, int]:
    samples = [p.read_text() for p in sorted((REPO / "samples").rglob("*.hip"))]
    per_file = max(1, lines // files)
    total_lines = 0
    for i in range(files):
        text = samples[i % len(samples)]
        # rename every __global__/__device__ function so that each file defines its own kernels
        names = set(re.findall(r"(?:__global__|__device__)[^(;{]*?\b([A-Za-z_]\w*)\s*\(", text))
        body = text
        copies = []
        k = 0
        while sum(c.count("\n") for c in copies) < per_file:
            copy = body
            for n in names:
                copy = re.sub(rf"\b{re.escape(n)}\b", f"{n}_f{i}_c{k}", copy)
            # only the first copy keeps #includes and top-level #defines, later ones would redefine them
            if k:
                copy = "\n".join(ln for ln in copy.splitlines() if not ln.lstrip().startswith(("#include", "#define",
                                                                                                  "#pragma once")))
            copies.append(copy + "\n")
            k += 1
        out = "".join(copies)
        path = root / f"pkg{i // 100:02d}" / f"mod{i % 100:02d}" / f"kernel_{i:05d}.hip"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out)
        total_lines += out.count("\n")
    return files, total_lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--lines", type=int, default=800_000)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep", type=Path, default=None, help="build the tree here and keep it")
    args = ap.parse_args()

    root = args.keep or Path(tempfile.mkdtemp(prefix="porter-large-"))
    try:
        t0 = time.perf_counter()
        files, lines = build_tree(root / "tree", args.files, args.lines)
        built = time.perf_counter() - t0
        report = root / "report.json"
        cmd = [sys.executable, "-c", "import sys; from porter.cli import main; sys.exit(main())", "analyze",
               str(root / "tree"), "-j", str(args.jobs), "--timeout", str(args.timeout), "--format", "json", "-q",
               "--fail-on", "never", "-o", str(report)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        doc = json.loads(report.read_text()) if report.exists() else {}
        findings = doc.get("findings", doc if isinstance(doc, list) else [])
        errors = doc.get("errors", []) if isinstance(doc, dict) else []
        print(f"command: porter analyze TREE -j {args.jobs} --timeout {args.timeout:g} --format json -q "
              f"--fail-on never -o report.json")
        print(f"{'files':<22}{files:>12,}")
        print(f"{'lines':<22}{lines:>12,}")
        print(f"{'tree built in':<22}{built:>11.1f}s")
        print(f"{'analyze wall time':<22}{wall:>11.1f}s")
        print(f"{'files per second':<22}{files / wall:>12.1f}")
        print(f"{'lines per second':<22}{lines / wall:>12,.0f}")
        print(f"{'peak RSS (one proc)':<22}{peak_mb:>10.0f} MB")
        print(f"{'findings':<22}{len(findings):>12,}")
        print(f"{'per-file errors':<22}{len(errors):>12,}")
        print(f"{'exit code':<22}{proc.returncode:>12}")
        for e in errors[:5]:
            print(f"  error: {e}")
        if proc.returncode not in (0, 1):
            print(proc.stderr[-2000:], file=sys.stderr)
        return 0 if proc.returncode in (0, 1) else 1
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
