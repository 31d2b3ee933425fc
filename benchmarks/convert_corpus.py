"""Score `porter convert` on the convert corpus (corpus/convert.toml): real kernels from the pinned public snapshots,
each expected to convert to a family or to be refused. Prints expected vs got per kernel and the share that
matches; with --out DIR also writes the converted modules there (for `porter verify` against their originals).

Usage: python benchmarks/convert_corpus.py [--out DIR] [--json FILE] [--cache DIR] [--mirrors DIR] [--store DIR]

The files are extracted by corpus/materialize.py into its ignored cache and checked against the sha256 recorded
in convert.toml; a file that is missing or differs is listed as unavailable and not scored. Each kernel is
converted by this checkout's `porter convert --kernel NAME --format json` with its snapshot's include folders
(the snapshot's defines are not passed: convert.toml lists kernels in the configuration their files default to).
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
sys.path.insert(0, str(CORPUS))
sys.path.insert(0, str(ROOT))     # this checkout's porter
from corpusdata import file_hash, load_corpus  # noqa: E402
from materialize import add_location_args, materialize  # noqa: E402


def load_entries(path: Path = CORPUS / "convert.toml") -> list[dict]:
    entries = tomllib.loads(path.read_text())["kernel"]
    for i, e in enumerate(entries):
        missing = {"snapshot", "commit", "path", "sha256", "kernel", "expect", "why"} - set(e)
        if missing:
            raise SystemExit(f"{path}: kernel #{i + 1}: missing {', '.join(sorted(missing))}")
    return entries


def convert_one(file: Path, kernel: str, includes: list[Path], out: Path | None) -> dict:
    from click.testing import CliRunner

    from porter.cli import main as porter_main

    argv = ["convert", str(file), "--kernel", kernel, "--format", "json",
            *(["-o", str(out), "--force"] if out else ["--dry-run"])]
    for inc in includes:
        argv += ["-I", str(inc)]
    res = CliRunner().invoke(porter_main, argv)
    try:
        (report,) = json.loads(res.stdout[res.stdout.index("["):])
    except (ValueError, json.JSONDecodeError):
        return {"status": "error", "error": (res.stderr.strip().splitlines() or ["no output"])[-1]}
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="write the converted modules here")
    ap.add_argument("--json", type=Path, default=None, help="also write the per-kernel results here")
    add_location_args(ap)
    args = ap.parse_args()
    entries = load_entries()
    corpus = load_corpus()
    needed = {e["snapshot"] for e in entries}
    unknown = needed - set(corpus.snapshots)
    if unknown:
        raise SystemExit(f"convert.toml names snapshots not in sources.toml: {', '.join(sorted(unknown))}")
    m = materialize(corpus, args.cache, args.mirrors, args.store, only=needed)
    rows = []
    for e in entries:
        snap = corpus.snapshots[e["snapshot"]]
        row = {"kernel": e["kernel"], "file": f"{e['snapshot']}:{e['path']}", "expected": e["expect"]}
        root = m.roots.get(e["snapshot"])
        file = root / e["path"] if root else None
        if snap.commit != e["commit"]:
            row.update(got="unavailable", detail=f"commit {e['commit']} is not the snapshot's {snap.commit}")
        elif file is None or not file.is_file():
            row.update(got="unavailable", detail=m.unavailable.get(e["snapshot"], "not in the snapshot"))
        elif file_hash(file.read_bytes()) != e["sha256"]:
            row.update(got="unavailable", detail="sha256 differs from convert.toml")
        else:
            rep = convert_one(file, e["kernel"], [root / inc for inc in snap.includes], args.out)
            status = rep.get("status")
            row["got"] = rep["family"] if status == "converted" else ("refuse" if status in (
                "refused", "not recognized", "ambiguous") else f"error")
            row["detail"] = rep.get("reason") or rep.get("error") or (
                f"closest {rep.get('closest')}: missing {'; '.join(rep.get('missing', []))}"
                f"{'; conflict ' + '; '.join(rep['conflicts']) if rep.get('conflicts') else ''}"
                if status == "not recognized" else rep.get("output", ""))
        row["pass"] = row["got"] == row["expected"]
        rows.append(row)
    scored = [r for r in rows if r["got"] != "unavailable"]
    print(f"{'kernel':<34}{'file':<44}{'expected':<13}{'got':<13}result  detail")
    for r in rows:
        result = "n/a" if r["got"] == "unavailable" else ("pass" if r["pass"] else "FAIL")
        print(f"{r['kernel']:<34}{r['file'][-43:]:<44}{r['expected']:<13}{r['got']:<13}{result:<8}"
              f"{str(r['detail'])[:150]}")
    passed = sum(r["pass"] for r in scored)
    conv = [r for r in scored if r["expected"] != "refuse"]
    ref = [r for r in scored if r["expected"] == "refuse"]
    print(f"\nshare matching the expectation: {passed}/{len(scored)}"
          f" ({100 * passed / max(len(scored), 1):.0f}%); expected conversions {sum(r['pass'] for r in conv)}"
          f"/{len(conv)}, expected refusals {sum(r['pass'] for r in ref)}/{len(ref)}; "
          f"unavailable {len(rows) - len(scored)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
