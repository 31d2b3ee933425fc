"""Trees kept in the local store (files read one by one through the code search, for repositories too big to
mirror), listed with the commit and sha256 of every file in benchmarks/store_trees.toml.

    python benchmarks/store_trees.py [--store DIR]

checks each tree's store folder ($PORTER_CORPUS_STORE or ~/.cache/porter/corpus-store, shared by every checkout)
against the list and, for a file that is missing or differs, prints the read_file call that brings it back:
read_file(repo, path, commit) returns 16,000 characters a page, so a file of N characters takes ceil(N / 16000)
calls with offset 0, 16000, ...; write the pages' text one after the other to <store>/<store folder>/<path>, byte
for byte (no newline added at the end), then run this again until every file is "ok". benchmarks/real_trees.py
analyzes a tree only when every file is ok."""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).with_name("store_trees.toml")
DEFAULT_STORE = Path(os.environ.get("PORTER_CORPUS_STORE", Path.home() / ".cache" / "porter" / "corpus-store"))
PAGE = 16000   # characters per read_file answer


@dataclass(frozen=True)
class StoreFile:
    path: str
    commit: str
    chars: int
    sha256: str


@dataclass(frozen=True)
class StoreTree:
    name: str
    repo: str
    store: str                       # folder under the store root
    paths: tuple[str, ...]           # what is analyzed, relative to the folder
    includes: tuple[str, ...]
    variants: tuple[tuple[str, tuple[str, ...]], ...]   # (name suffix, defines)
    torch: bool                      # analyzed with torch's C++ headers on the include path
    files: tuple[StoreFile, ...]


def load(path: Path = MANIFEST) -> list[StoreTree]:
    doc = tomllib.loads(path.read_text())
    return [StoreTree(name=t["name"], repo=t["repo"], store=t["store"], paths=tuple(t["paths"]),
                      includes=tuple(t["includes"]), torch=bool(t.get("torch", False)),
                      variants=tuple((v["suffix"], tuple(v["defines"])) for v in t["variants"]),
                      files=tuple(StoreFile(f["path"], f["commit"], f["chars"], f["sha256"]) for f in t["file"]))
            for t in doc.get("tree", [])]


def status(tree: StoreTree, store: Path) -> dict[str, str]:
    """Per file: "ok", "missing" or "differs" (its sha256 is not the listed one)."""
    out = {}
    for f in tree.files:
        p = store / tree.store / f.path
        if not p.is_file():
            out[f.path] = "missing"
        else:
            out[f.path] = "ok" if hashlib.sha256(p.read_bytes()).hexdigest() == f.sha256 else "differs"
    return out


def unavailable(tree: StoreTree, store: Path) -> str:
    """Why the tree cannot be analyzed from the store, or "" when every file is there as listed."""
    bad = {p: s for p, s in status(tree, store).items() if s != "ok"}
    if not bad:
        return ""
    first = ", ".join(f"{p} ({s})" for p, s in list(bad.items())[:3])
    return (f"{len(bad)} of {len(tree.files)} files not in {store / tree.store} as listed: {first}; "
            f"see python benchmarks/store_trees.py")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, default=DEFAULT_STORE)
    args = ap.parse_args()
    missing = 0
    for tree in load():
        st = status(tree, args.store)
        print(f"{tree.name}: {sum(s == 'ok' for s in st.values())} of {len(st)} files ok in "
              f"{args.store / tree.store}")
        for f in tree.files:
            if st[f.path] != "ok":
                missing += 1
                print(f"  {st[f.path]:8} read_file(repo={tree.repo!r}, path={f.path!r}, commit={f.commit!r}) "
                      f"x{math.ceil(f.chars / PAGE)} page(s), {f.chars} characters")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
