"""benchmarks/store_trees.toml (trees read file by file into the local store) is well formed, and a store folder
that is missing a file or holds a different one is reported by name instead of being analyzed."""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import store_trees  # noqa: E402


def test_manifest_lists_every_file_once_with_its_commit_and_hash():
    trees = store_trees.load()
    assert trees, "benchmarks/store_trees.toml lists no tree"
    for tree in trees:
        paths = [f.path for f in tree.files]
        assert len(paths) == len(set(paths)), tree.name
        for f in tree.files:
            assert re.fullmatch(r"[0-9a-f]{40}", f.commit), f.path
            assert re.fullmatch(r"[0-9a-f]{64}", f.sha256), f.path
            assert f.chars > 0 and not f.path.startswith("/") and ".." not in Path(f.path).parts
            assert any(f.path.startswith(p.rstrip("/") + "/") for p in tree.paths), f.path
        assert len({name for name, _ in tree.variants}) == len(tree.variants)


def _tree(tmp_path: Path, text: bytes) -> store_trees.StoreTree:
    (tmp_path / "t" / "src").mkdir(parents=True)
    (tmp_path / "t" / "src" / "k.cu").write_bytes(text)
    listed = hashlib.sha256(b"__global__ void k() {}\n").hexdigest()
    files = (store_trees.StoreFile("src/k.cu", "0" * 40, len(text), listed),
             store_trees.StoreFile("src/k.h", "1" * 40, 10, "2" * 64))
    return store_trees.StoreTree("t", "o/r", "t", ("src",), ("src",), (("", ()),), False, files)


def test_missing_and_changed_files_are_named(tmp_path):
    tree = _tree(tmp_path, b"__global__ void k() { }\n")
    assert store_trees.status(tree, tmp_path) == {"src/k.cu": "differs", "src/k.h": "missing"}
    why = store_trees.unavailable(tree, tmp_path)
    assert "2 of 2 files" in why and "src/k.cu (differs)" in why and "src/k.h (missing)" in why


def test_a_complete_folder_is_available(tmp_path):
    tree = _tree(tmp_path, b"__global__ void k() {}\n")
    (tmp_path / "t" / "src" / "k.h").write_bytes(b"x")
    tree = store_trees.StoreTree(tree.name, tree.repo, tree.store, tree.paths, tree.includes, tree.variants,
                                 tree.torch, (tree.files[0],))
    assert store_trees.unavailable(tree, tmp_path) == ""
