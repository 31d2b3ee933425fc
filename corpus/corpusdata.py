"""The corpus's data model: pinned snapshots (sources.toml) and labelled lines (labels/*.toml).

Only data handling lives here (loading, validation, line hashing); materialize.py writes the files, score.py runs
porter on them. Nothing here needs the mirrors, so the integrity test runs on CI."""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent
SOURCES = CORPUS_DIR / "sources.toml"
LABELS_DIR = CORPUS_DIR / "labels"
RULES_DIR = CORPUS_DIR.parent / "rules"

CATEGORIES = ("wave64", "lds")
KINDS = ("hazard", "ok")
# "tuning": labels the rules may have been tuned against; any other set (heldout, heldout2, ...) is a batch labelled
# blind, before porter ran on it: its first score is an honest estimate on unseen code (the README records it and
# whether rules were changed with the set visible afterwards, as they were for "heldout")
TUNING_SET = "tuning"
_SET_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
RULE_PREFIX = {"W64": "wave64", "LDS": "lds"}
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class CorpusError(ValueError):
    """The corpus data itself is malformed (a bad label, an unknown snapshot): names the file and entry."""


def line_hash(text: str) -> str:
    """sha256 of a source line with surrounding whitespace removed: identifies a labelled line without storing it."""
    return hashlib.sha256(text.strip().encode()).hexdigest()


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rule_category(rule_id: str) -> str | None:
    return RULE_PREFIX.get(rule_id.split("-", 1)[0])


def known_rules() -> set[str]:
    return {p.stem for p in RULES_DIR.glob("*.toml")}


@dataclass(frozen=True)
class Snapshot:
    """One repository at one commit: which folders to extract and the flags its files compile with."""

    id: str
    repo: str                       # owner/name on GitHub
    commit: str
    origin: str                     # "mirror" (git show from /work/.mirror) or "store" (files read once, kept locally)
    licence: str
    dirs: tuple[str, ...]           # folders (or files) extracted for parsing: labelled files and their headers
    includes: tuple[str, ...]       # -I, relative to the snapshot root
    defines: tuple[str, ...]        # -D
    trees: tuple[str, ...]          # folders that `score.py --trees` analyzes whole
    note: str = ""

    @property
    def mirror_name(self) -> str:
        return self.repo.replace("/", "+")


@dataclass(frozen=True)
class Label:
    line: int
    text_sha256: str
    kind: str                       # hazard | ok
    category: str                   # wave64 | lds
    reason: str
    rule: str = ""                  # the rule expected to report a hazard (or, for ok, the rule it must not trip)
    also_lines: tuple[int, ...] = ()
    source: str = ""                # where the verdict comes from: "fix <commit>", "read", ...

    @property
    def lines(self) -> tuple[int, ...]:
        return (self.line,) + self.also_lines


@dataclass(frozen=True)
class LabelledFile:
    snapshot: str
    path: str
    sha256: str
    complete: tuple[str, ...]       # categories labelled completely (in `regions`, or the whole file)
    regions: tuple[tuple[int, int], ...]   # inclusive line ranges; empty = the whole file
    labels: tuple[Label, ...]
    defined_in: str                 # the labels file, for messages
    note: str = ""
    set: str = TUNING_SET           # the label set (batch) the file belongs to

    @property
    def key(self) -> str:
        return f"{self.snapshot}:{self.path}"

    def in_scope(self, line: int) -> bool:
        return not self.regions or any(a <= line <= b for a, b in self.regions)


@dataclass
class Corpus:
    snapshots: dict[str, Snapshot]
    files: list[LabelledFile] = field(default_factory=list)


def _req(table: dict, key: str, where: str, typ: type = str):
    if key not in table:
        raise CorpusError(f"{where}: missing '{key}'")
    value = table[key]
    if not isinstance(value, typ):
        raise CorpusError(f"{where}: '{key}' must be {typ.__name__}, got {type(value).__name__}")
    return value


def _str_list(table: dict, key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def load_sources(path: Path = SOURCES) -> dict[str, Snapshot]:
    doc = tomllib.loads(path.read_text())
    out: dict[str, Snapshot] = {}
    for i, t in enumerate(doc.get("snapshot", [])):
        where = f"{path.name}: snapshot #{i + 1}"
        sid = _req(t, "id", where)
        where = f"{path.name}: snapshot '{sid}'"
        if sid in out:
            raise CorpusError(f"{where}: duplicate id")
        commit = _req(t, "commit", where)
        if not _COMMIT.match(commit):
            raise CorpusError(f"{where}: commit must be 40 lowercase hex digits, got {commit!r}")
        origin = t.get("origin", "mirror")
        if origin not in ("mirror", "store"):
            raise CorpusError(f"{where}: origin must be 'mirror' or 'store'")
        out[sid] = Snapshot(id=sid, repo=_req(t, "repo", where), commit=commit, origin=origin,
                            licence=_req(t, "licence", where), dirs=_str_list(t, "dirs", where),
                            includes=_str_list(t, "includes", where), defines=_str_list(t, "defines", where),
                            trees=_str_list(t, "trees", where), note=t.get("note", ""))
        if not out[sid].dirs:
            raise CorpusError(f"{where}: 'dirs' is empty")
    return out


def _load_label(t: dict, where: str) -> Label:
    line = _req(t, "line", where, int)
    where = f"{where} line {line}"
    kind = _req(t, "kind", where)
    if kind not in KINDS:
        raise CorpusError(f"{where}: kind must be one of {KINDS}, got {kind!r}")
    category = _req(t, "category", where)
    if category not in CATEGORIES:
        raise CorpusError(f"{where}: category must be one of {CATEGORIES}, got {category!r}")
    reason = _req(t, "reason", where).strip()
    if len(reason) < 15:
        raise CorpusError(f"{where}: the reason must say why in a sentence")
    rule = t.get("rule", "")
    if rule:
        if rule not in known_rules():
            raise CorpusError(f"{where}: unknown rule id {rule!r}")
        if rule_category(rule) != category:
            raise CorpusError(f"{where}: rule {rule} is not a {category} rule")
    also = t.get("also_lines", [])
    if not isinstance(also, list) or not all(isinstance(n, int) and n > 0 for n in also):
        raise CorpusError(f"{where}: also_lines must be a list of line numbers")
    digest = _req(t, "text_sha256", where)
    if not _SHA256.match(digest):
        raise CorpusError(f"{where}: text_sha256 must be 64 lowercase hex digits")
    return Label(line=line, text_sha256=digest, kind=kind, category=category, reason=reason, rule=rule,
                 also_lines=tuple(also), source=t.get("source", ""))


def load_labels(path: Path, snapshots: dict[str, Snapshot]) -> list[LabelledFile]:
    doc = tomllib.loads(path.read_text())
    files = []
    for i, f in enumerate(doc.get("file", [])):
        where = f"{path.name}: file #{i + 1}"
        snap = _req(f, "snapshot", where)
        fpath = _req(f, "path", where)
        where = f"{path.name}: {snap}:{fpath}"
        if snap not in snapshots:
            raise CorpusError(f"{where}: snapshot '{snap}' is not in sources.toml")
        if not any(fpath == d or fpath.startswith(d.rstrip("/") + "/") for d in snapshots[snap].dirs):
            raise CorpusError(f"{where}: not under any of the snapshot's dirs {list(snapshots[snap].dirs)}")
        digest = _req(f, "sha256", where)
        if not _SHA256.match(digest):
            raise CorpusError(f"{where}: sha256 must be 64 lowercase hex digits")
        complete = _str_list(f, "complete", where)
        if not complete or any(c not in CATEGORIES for c in complete):
            raise CorpusError(f"{where}: 'complete' must list the categories labelled completely, from {CATEGORIES}")
        label_set = f.get("set", TUNING_SET)
        if not isinstance(label_set, str) or not _SET_NAME.match(label_set):
            raise CorpusError(f"{where}: 'set' must be a lowercase name such as 'heldout2', got {label_set!r}")
        regions = []
        for r in f.get("regions", []):
            if not (isinstance(r, list) and len(r) == 2 and all(isinstance(n, int) for n in r) and 0 < r[0] <= r[1]):
                raise CorpusError(f"{where}: a region is [first_line, last_line], got {r!r}")
            regions.append((r[0], r[1]))
        labels = tuple(_load_label(t, where) for t in f.get("label", []))
        lf = LabelledFile(snapshot=snap, path=fpath, sha256=digest, complete=complete, regions=tuple(regions),
                          labels=labels, defined_in=path.name, note=f.get("note", ""),
                          set=label_set)
        seen: set[tuple[int, str]] = set()
        for lab in labels:
            if lab.category not in complete:
                raise CorpusError(f"{where} line {lab.line}: category {lab.category} is not in 'complete'")
            if not all(lf.in_scope(n) for n in lab.lines):
                raise CorpusError(f"{where} line {lab.line}: outside the file's labelled regions")
            if (lab.line, lab.category) in seen:
                raise CorpusError(f"{where} line {lab.line}: labelled twice for {lab.category}")
            seen.add((lab.line, lab.category))
        files.append(lf)
    return files


def load_corpus(sources: Path = SOURCES, labels_dir: Path = LABELS_DIR) -> Corpus:
    corpus = Corpus(snapshots=load_sources(sources))
    keys: set[str] = set()
    for path in sorted(labels_dir.glob("*.toml")):
        for lf in load_labels(path, corpus.snapshots):
            if lf.key in keys:
                raise CorpusError(f"{path.name}: {lf.key} is labelled in two places")
            keys.add(lf.key)
            corpus.files.append(lf)
    return corpus


def label_sets(corpus: Corpus) -> list[str]:
    """The corpus's label sets in scoring order: the tuning set first, then the blind batches in the order they
    were made (heldout, heldout2, ..., heldout10: a name's number compared as a number)."""
    names = {lf.set for lf in corpus.files}
    return [n for n in (TUNING_SET,) if n in names] + sorted(names - {TUNING_SET}, key=_batch_order)


def _batch_order(name: str) -> tuple[str, int]:
    stem = name.rstrip("0123456789")
    return stem, int(name[len(stem):] or 1)


def check_text(lf: LabelledFile, text: str) -> list[str]:
    """Problems between a file's labels and its real text (a line number that does not hold the labelled line)."""
    lines = text.splitlines()
    problems = []
    for lab in lf.labels:
        if lab.line > len(lines):
            problems.append(f"{lf.key}:{lab.line}: past the end of the file ({len(lines)} lines)")
        elif line_hash(lines[lab.line - 1]) != lab.text_sha256:
            problems.append(f"{lf.key}:{lab.line}: the line's text hash does not match the label")
    return problems
