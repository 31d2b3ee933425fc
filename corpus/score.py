"""Score porter's analysis against the labelled real-world corpus.

    python corpus/score.py [--json] [-j N] [--cache DIR] [--mirrors DIR] [--store DIR]
    python corpus/score.py --trees [--json] [-j N]       crashes and time per file over whole trees
    python corpus/score.py --snapshot ID [--snapshot ID]  only some snapshots
    python corpus/score.py --set heldout2                only one label set (tuning, heldout, heldout2, ...)

Scoring (see corpus/README.md): porter's analysis (this checkout's code, every confidence, LDS-000 notes left out)
runs on each labelled file with its snapshot's flags. A finding counts for the category of its rule id (W64-* =
wave64, LDS-* = lds) and is scored only in a category the file is labelled completely for, inside the file's
labelled regions. Findings are counted per site (file, line, category): a site on a line of a hazard label of
that category (its line or also_lines) is a true positive, any other site is a false positive. A hazard label
that no finding of its category touches is a miss. Per rule: precision over the sites that rule reported,
recall over the hazard labels that name the rule (found by that rule).
Label sets: files marked with a set other than "tuning" (heldout, heldout2, ...) are batches labelled blind and never
tuned against; by default the tuning set is scored first (the numbers the rules were developed on) and each blind
batch in a block of its own.
Without the mirrors (CI) it prints "corpus not available" with the reasons and exits 0."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))            # this checkout's porter, not an installed one
from corpusdata import (CATEGORIES, TUNING_SET, Corpus, LabelledFile, Snapshot, label_sets,  # noqa: E402
                        load_corpus, rule_category)
from materialize import Materialized, add_location_args, materialize  # noqa: E402

SKIPPED_RULES = ("LDS-000",)     # a note that the mapping is unknown, not a claim of a hazard


def _analyze(snap: Snapshot, root: Path, paths: list[Path], jobs: int, timeout: float) -> list:
    from porter.analysis import Request, run
    from porter.frontend_config import make_config

    config = make_config(target="gfx942", include_dirs=[str(root / d) for d in snap.includes],
                         defines=list(snap.defines))
    return run([Request(path=str(p), config=config, target="gfx942") for p in paths], jobs, timeout)


@dataclass
class Site:
    key: str            # snapshot:path
    line: int
    category: str
    rules: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)


@dataclass
class Score:
    files: int = 0
    crashed: list[str] = field(default_factory=list)         # file: internal error / no analysis
    parse_errors: dict[str, int] = field(default_factory=dict)
    tp: dict[str, int] = field(default_factory=lambda: defaultdict(int))     # per category, sites
    fp: list[dict] = field(default_factory=list)
    hazards: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    found: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misses: list[dict] = field(default_factory=list)
    rule_sites: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # [tp, all]
    rule_recall: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # [found, labels]
    ok_labels: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ok_tripped: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    unscored_findings: int = 0


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def score_file(lf: LabelledFile, result, sc: Score) -> None:
    sc.files += 1
    if result.error:
        sc.crashed.append(f"{lf.key}: {result.error}")
    if result.parse_errors:
        sc.parse_errors[lf.key] = result.parse_errors
    sites: dict[tuple[int, str], Site] = {}
    for f in result.findings:
        cat = rule_category(f.rule_id)
        if f.rule_id in SKIPPED_RULES or cat not in lf.complete or not lf.in_scope(f.line):
            sc.unscored_findings += 1
            continue
        s = sites.setdefault((f.line, cat), Site(lf.key, f.line, cat))
        s.rules.add(f.rule_id)
        s.messages.append(f"{f.rule_id}: {f.message}")
    hazard_at: dict[tuple[int, str], object] = {}
    ok_at: dict[tuple[int, str], object] = {}
    for lab in lf.labels:
        target = hazard_at if lab.kind == "hazard" else ok_at
        for n in lab.lines:
            target[(n, lab.category)] = lab
    for (line, cat), s in sorted(sites.items()):
        hit = (line, cat) in hazard_at
        if hit:
            sc.tp[cat] += 1
        else:
            lab = ok_at.get((line, cat))
            sc.fp.append({"file": lf.key, "line": line, "category": cat, "rules": sorted(s.rules),
                          "label": "ok" if lab else "unlabelled",
                          "reason": lab.reason if lab else "", "message": s.messages[0]})
        for r in s.rules:
            sc.rule_sites[r][1] += 1
            sc.rule_sites[r][0] += hit
    for lab in lf.labels:
        if lab.kind == "ok":
            sc.ok_labels[lab.category] += 1
            sc.ok_tripped[lab.category] += any((n, lab.category) in sites for n in lab.lines)
            continue
        sc.hazards[lab.category] += 1
        touching = [sites[(n, lab.category)] for n in lab.lines if (n, lab.category) in sites]
        if touching:
            sc.found[lab.category] += 1
        else:
            sc.misses.append({"file": lf.key, "line": lab.line, "category": lab.category, "rule": lab.rule,
                              "reason": lab.reason})
        if lab.rule:
            sc.rule_recall[lab.rule][1] += 1
            sc.rule_recall[lab.rule][0] += any(lab.rule in s.rules for s in touching)


def not_available(m: Materialized, corpus: Corpus, as_json: bool) -> int:
    reasons = sorted({why for key, why in m.unavailable.items() if key in corpus.snapshots})
    if as_json:
        print(json.dumps({"available": False, "reasons": reasons}))
    else:
        print("corpus not available: no labelled file could be materialized")
        for r in reasons:
            print(f"  {r}")
    return 0


def run_score(corpus: Corpus, m: Materialized, jobs: int, timeout: float) -> Score:
    sc = Score()
    for sid, snap in corpus.snapshots.items():
        files = [lf for lf in corpus.files if lf.snapshot == sid and m.file_ok(lf.key)]
        if not files:
            continue
        root = m.roots[sid]
        results = {Path(r.path).resolve(): r for r in _analyze(snap, root, [root / lf.path for lf in files],
                                                                jobs, timeout)}
        for lf in files:
            score_file(lf, results[(root / lf.path).resolve()], sc)
    return sc


def summary(sc: Score, m: Materialized, corpus: Corpus) -> dict:
    cats = {}
    for c in CATEGORIES:
        sites = sc.tp[c] + sum(1 for f in sc.fp if f["category"] == c)
        cats[c] = {"precision": _ratio(sc.tp[c], sites), "recall": _ratio(sc.found[c], sc.hazards[c]),
                   "tp_sites": sc.tp[c], "fp_sites": sites - sc.tp[c], "hazards": sc.hazards[c],
                   "found": sc.found[c], "ok_labels": sc.ok_labels[c], "ok_tripped": sc.ok_tripped[c]}
    rules = {}
    for r in sorted(set(sc.rule_sites) | set(sc.rule_recall)):
        tp, n = sc.rule_sites.get(r, [0, 0])
        found, labels = sc.rule_recall.get(r, [0, 0])
        rules[r] = {"precision": _ratio(tp, n), "sites": n, "recall": _ratio(found, labels), "labels": labels}
    keys = {lf.key for lf in corpus.files} | {lf.snapshot for lf in corpus.files}
    unavailable = {k: why for k, why in m.unavailable.items() if k in keys}
    return {"available": True, "files_scored": sc.files, "files_labelled": len(corpus.files),
            "unavailable": unavailable, "categories": cats, "rules": rules, "misses": sc.misses,
            "false_positives": sc.fp, "crashed": sc.crashed, "parse_errors": sc.parse_errors,
            "unscored_findings": sc.unscored_findings}


def score_sets(corpus: Corpus, m: Materialized, sets: list[str], jobs: int, timeout: float) -> dict[str, dict]:
    """One summary per label set that has files, in the order given: sets are never scored together."""
    blocks = {}
    for name in sets:
        part = Corpus(snapshots=corpus.snapshots, files=[lf for lf in corpus.files if lf.set == name])
        if part.files:
            blocks[name] = summary(run_score(part, m, jobs, timeout), m, part)
    return blocks


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def print_table(s: dict, title: str = "the real-world corpus") -> None:
    print(f"porter on {title}: {s['files_scored']} of {s['files_labelled']} labelled files scored")
    for key, why in s["unavailable"].items():
        print(f"  unavailable: {key}: {why}")
    print(f"\n{'category':10} {'precision':>9} {'recall':>7} {'TP sites':>8} {'FP sites':>8} {'hazards':>8}"
          f" {'found':>6} {'ok labels':>9} {'ok hit':>6}")
    for c, v in s["categories"].items():
        print(f"{c:10} {_fmt(v['precision']):>9} {_fmt(v['recall']):>7} {v['tp_sites']:>8} {v['fp_sites']:>8}"
              f" {v['hazards']:>8} {v['found']:>6} {v['ok_labels']:>9} {v['ok_tripped']:>6}")
    print(f"\n{'rule':8} {'precision':>9} {'sites':>5} {'recall':>7} {'labels':>6}")
    for r, v in s["rules"].items():
        print(f"{r:8} {_fmt(v['precision']):>9} {v['sites']:>5} {_fmt(v['recall']):>7} {v['labels']:>6}")
    print(f"\nmisses (false negatives): {len(s['misses'])}")
    for x in s["misses"]:
        print(f"  {x['file']}:{x['line']} [{x['category']} {x['rule'] or '-'}] {x['reason']}")
    print(f"\nfalse positives: {len(s['false_positives'])}")
    for x in s["false_positives"]:
        why = f"ok: {x['reason']}" if x["label"] == "ok" else "unlabelled line"
        print(f"  {x['file']}:{x['line']} [{','.join(x['rules'])}] {why}\n      porter: {x['message'][:160]}")
    print(f"\ncrashed (no analysis): {len(s['crashed'])}")
    for c in s["crashed"]:
        print(f"  {c}")
    pe = s["parse_errors"]
    print(f"files with parse errors: {len(pe)} ({sum(pe.values())} errors)")
    for k, n in pe.items():
        print(f"  {k}: {n}")


def _tree_files(root: Path, trees: tuple[str, ...]) -> list[Path]:
    from porter.analysis import collect

    files, _ = collect([str(root / t) for t in trees if (root / t).exists()])
    return [Path(f) for f in files]


def run_trees(corpus: Corpus, m: Materialized, jobs: int, timeout: float) -> dict:
    out = {}
    for sid, snap in corpus.snapshots.items():
        if not snap.trees or sid not in m.roots:
            continue
        files = _tree_files(m.roots[sid], snap.trees)
        t0 = time.perf_counter()
        results = _analyze(snap, m.roots[sid], files, jobs, timeout)
        wall = time.perf_counter() - t0
        secs = [r.seconds for r in results if not r.error]
        out[sid] = {"trees": list(snap.trees), "files": len(results),
                    "analyzed": sum(1 for r in results if not r.error),
                    "crashed": [r.error for r in results if r.error],
                    "with_parse_errors": sum(1 for r in results if r.parse_errors),
                    "findings": sum(len(r.findings) for r in results),
                    "median_s_per_file": round(statistics.median(secs), 3) if secs else None,
                    "max_s_per_file": round(max(secs), 3) if secs else None,
                    "wall_s": round(wall, 1), "jobs": jobs}
    return out


def print_trees(t: dict) -> None:
    print(f"{'snapshot':28} {'files':>5} {'analyzed':>8} {'crashed':>7} {'parse-err':>9} {'findings':>8}"
          f" {'median s':>8} {'max s':>6} {'wall s':>6}")
    for sid, v in t.items():
        print(f"{sid:28} {v['files']:>5} {v['analyzed']:>8} {len(v['crashed']):>7} {v['with_parse_errors']:>9}"
              f" {v['findings']:>8} {v['median_s_per_file'] or 0:>8.3f} {v['max_s_per_file'] or 0:>6.2f}"
              f" {v['wall_s']:>6}")
    for sid, v in t.items():
        for c in v["crashed"]:
            print(f"  crashed: {sid}: {c}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--trees", action="store_true", help="analyze whole trees: crashes and time per file")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--snapshot", action="append", metavar="ID", help="only these snapshots (repeatable)")
    ap.add_argument("--set", metavar="NAME", help="only this label set (default: each set in its own block)")
    add_location_args(ap)
    args = ap.parse_args()
    corpus = load_corpus()
    if args.snapshot:
        unknown = set(args.snapshot) - set(corpus.snapshots)
        if unknown:
            ap.error(f"unknown snapshot(s): {', '.join(sorted(unknown))}")
        corpus.snapshots = {k: v for k, v in corpus.snapshots.items() if k in args.snapshot}
        corpus.files = [lf for lf in corpus.files if lf.snapshot in args.snapshot]
    sets = label_sets(corpus)
    if args.set and args.set not in sets:
        ap.error(f"unknown label set {args.set!r} (the chosen snapshots have: {', '.join(sets)})")
    m = materialize(corpus, args.cache, args.mirrors, args.store)
    if not m.verified and not (args.trees and m.roots):
        return not_available(m, corpus, args.json)
    if args.trees:
        t = run_trees(corpus, m, args.jobs, args.timeout)
        print(json.dumps(t, indent=1)) if args.json else print_trees(t)
        return 0
    blocks = score_sets(corpus, m, [args.set] if args.set else sets, args.jobs, args.timeout)
    if args.json:
        # the tuning set's summary stays at the top level (as before the sets existed); other sets are keys of it
        first, *rest = blocks
        print(json.dumps({**blocks[first], **{name: blocks[name] for name in rest}}, indent=1))
        return 0
    for i, (name, block) in enumerate(blocks.items()):
        if i:
            print("\n" + "=" * 100 + "\n")
        print_table(block, "the real-world corpus" if name == TUNING_SET else
                    f"the {name} set (labelled blind before porter ran on it; corpus/README.md says whether rules were "
                    f"tuned with it visible since)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
