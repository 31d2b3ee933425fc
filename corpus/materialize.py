"""Write the corpus's pinned files into a cache folder and verify them.

    python corpus/materialize.py [--cache DIR] [--mirrors DIR] [--store DIR]

Each snapshot of sources.toml is extracted at its commit (`git archive`) from a local bare mirror
(<mirrors>/<owner>+<name>/repo), or, for repositories read file by file, copied from the local store
(<store>/<snapshot id>/<path>, filled once from the code search's read_file, outside the repository). Every labelled file's sha256 is checked against
labels/*.toml; a file that is missing or differs is reported as unavailable, never used.
Defaults: cache $PORTER_CORPUS_CACHE or ~/.cache/porter/corpus, mirrors $PORTER_MIRRORS or /work/.mirror,
store $PORTER_CORPUS_STORE or ~/.cache/porter/corpus-store (shared by every checkout on the machine)."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpusdata import Corpus, Snapshot, check_text, file_hash, load_corpus  # noqa: E402

DEFAULT_CACHE = Path(os.environ.get("PORTER_CORPUS_CACHE", Path.home() / ".cache" / "porter" / "corpus"))
DEFAULT_MIRRORS = Path(os.environ.get("PORTER_MIRRORS", "/work/.mirror"))
DEFAULT_STORE = Path(os.environ.get("PORTER_CORPUS_STORE", Path.home() / ".cache" / "porter" / "corpus-store"))
_DONE = ".porter-corpus-commit"


@dataclass
class Materialized:
    roots: dict[str, Path] = field(default_factory=dict)          # snapshot id -> extracted root
    unavailable: dict[str, str] = field(default_factory=dict)     # snapshot id or file key -> why
    verified: list[str] = field(default_factory=list)             # labelled file keys whose sha256 matched

    def file_ok(self, key: str) -> bool:
        return key in self.verified


def _from_mirror(snap: Snapshot, mirrors: Path, dest: Path) -> str | None:
    repo = mirrors / snap.mirror_name / "repo"
    if not repo.is_dir():
        return f"no mirror at {repo}"
    proc = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", snap.commit, "--", *snap.dirs],
                          capture_output=True)
    if proc.returncode:
        return f"git archive failed in {repo}: {proc.stderr.decode(errors='replace').strip()}"
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        # the archive comes from our own pinned commit; 'data' still refuses absolute paths and links out
        tar.extractall(dest, filter="data")
    return None


def _from_store(snap: Snapshot, store: Path, dest: Path) -> str | None:
    src = store / snap.id
    if not src.is_dir():
        return f"no local store at {src} (fill it once from the search tool's read_file; see corpus/README.md)"
    for d in snap.dirs:
        s = src / d
        if s.is_dir():
            shutil.copytree(s, dest / d, dirs_exist_ok=True)
        elif s.is_file():
            (dest / d).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, dest / d)
    return None


def _extract(snap: Snapshot, cache: Path, mirrors: Path, store: Path) -> tuple[Path | None, str]:
    root = cache / snap.id
    marker = root / _DONE
    if marker.is_file() and marker.read_text().strip() == snap.commit:
        return root, ""
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{snap.id}-", dir=cache))
    try:
        why = (_from_mirror(snap, mirrors, tmp) if snap.origin == "mirror" else _from_store(snap, store, tmp))
        if why:
            return None, why
        (tmp / _DONE).write_text(snap.commit + "\n")
        if root.exists():
            shutil.rmtree(root)
        tmp.rename(root)
        return root, ""
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def materialize(corpus: Corpus, cache: Path = DEFAULT_CACHE, mirrors: Path = DEFAULT_MIRRORS,
                store: Path = DEFAULT_STORE, only: set[str] | None = None) -> Materialized:
    out = Materialized()
    for sid, snap in corpus.snapshots.items():
        if only is not None and sid not in only:
            continue
        root, why = _extract(snap, cache, mirrors, store)
        if root is None:
            out.unavailable[sid] = why
        else:
            out.roots[sid] = root
    for lf in corpus.files:
        root = out.roots.get(lf.snapshot)
        if root is None:
            if only is None or lf.snapshot in only:
                out.unavailable[lf.key] = f"snapshot unavailable: {out.unavailable.get(lf.snapshot, '')}"
            continue
        path = root / lf.path
        if not path.is_file():
            out.unavailable[lf.key] = f"not in the snapshot: {path}"
            continue
        data = path.read_bytes()
        if file_hash(data) != lf.sha256:
            out.unavailable[lf.key] = f"sha256 differs from {lf.defined_in} (got {file_hash(data)})"
            continue
        problems = check_text(lf, data.decode(errors="replace"))
        if problems:
            out.unavailable[lf.key] = "; ".join(problems)
            continue
        out.verified.append(lf.key)
    return out


def add_location_args(ap: argparse.ArgumentParser) -> None:
    """--cache/--mirrors/--store, shared by the corpus scripts."""
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the files are extracted")
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="folder of <owner>+<name>/repo mirrors")
    ap.add_argument("--store", type=Path, default=DEFAULT_STORE, help="local store of files read one by one")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_location_args(ap)
    args = ap.parse_args()
    corpus = load_corpus()
    m = materialize(corpus, args.cache, args.mirrors, args.store)
    for sid, root in m.roots.items():
        print(f"{sid}: {root}")
    for key, why in m.unavailable.items():
        print(f"unavailable: {key}: {why}")
    print(f"{len(m.verified)} of {len(corpus.files)} labelled files verified, in {args.cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
