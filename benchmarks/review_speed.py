"""Time a pull-request review: a 500-file tree in git, 5 files changed, `porter analyze --diff` with SARIF output.

The precompiled header is built before timing (it is built once per machine and porter version).
Usage: python benchmarks/review_speed.py [--files 500] [--changed 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze_speed import build_corpus  # noqa: E402

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@e", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@e"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--changed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "porter")
    with tempfile.TemporaryDirectory(prefix="porter-review-") as tmp:
        repo = Path(tmp)
        files = build_corpus(repo, args.files)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
        subprocess.run(["git", "add", "."], cwd=repo, check=True)
        subprocess.run(["git", "commit", "-qm", "base"], cwd=repo, check=True, env=ENV)
        for f in files[:: max(1, len(files) // args.changed)][: args.changed]:
            f.write_text(f.read_text() + "\n__global__ void added(unsigned* o) { o[0] = __activemask(); }\n")
        # warm: the precompiled header exists on a machine that has run porter before
        subprocess.run([exe, "analyze", str(files[0]), "-q", "--fail-on", "never"], check=True, capture_output=True)
        start = time.perf_counter()
        res = subprocess.run([exe, "analyze", ".", "--diff", "main", "-q", "-j", str(args.jobs), "--format", "sarif",
                              "-o", "review.sarif"], cwd=repo, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if res.returncode not in (0, 1):
            sys.exit(f"porter failed ({res.returncode}): {res.stderr[-2000:]}")
        results = (repo / "review.sarif").read_text().count('"ruleId"')
        lines = sum(1 for _ in files[0].read_text().splitlines())
    print(f"tree: {args.files} files x {lines} lines, {args.changed} changed, {args.jobs} workers")
    print(f"{'run':<34}{'seconds':>9}")
    print(f"{'porter analyze --diff main (SARIF)':<34}{elapsed:>9.2f}")
    print(f"results on changed lines: {results}")


if __name__ == "__main__":
    main()
