"""The real-world corpus's own integrity, checked without the mirrors (CI has none)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "corpus"))
from corpusdata import CorpusError, load_corpus, load_labels, load_sources  # noqa: E402

GOOD_FILE = """
[[file]]
snapshot = "s"
path = "src/k.cu"
sha256 = "{h}"
complete = ["wave64"]
[[file.label]]
line = 3
text_sha256 = "{h}"
kind = "hazard"
category = "wave64"
rule = "W64-002"
reason = "tid & 31 is a 32-lane lane id next to a 64-lane shuffle"
"""
SOURCES = """
[[snapshot]]
id = "s"
repo = "o/r"
commit = "{c}"
licence = "MIT"
dirs = ["src"]
"""


def test_corpus_loads_and_is_consistent():
    corpus = load_corpus()
    assert corpus.files, "the corpus labels no file"
    kinds = {(lab.kind, lab.category) for lf in corpus.files for lab in lf.labels}
    assert ("hazard", "wave64") in kinds and ("ok", "wave64") in kinds
    for lf in corpus.files:
        snap = corpus.snapshots[lf.snapshot]
        assert len(snap.commit) == 40
        for lab in lf.labels:
            assert lab.reason and lab.category in lf.complete


@pytest.mark.parametrize("edit, message", [
    (("kind = \"hazard\"", "kind = \"bug\""), "kind must be one of"),
    (("category = \"wave64\"\nrule = \"W64-002\"", "category = \"lds\""), "not in 'complete'"),
    (("rule = \"W64-002\"", "rule = \"W64-999\""), "unknown rule id"),
    (("rule = \"W64-002\"", "rule = \"LDS-001\""), "is not a wave64 rule"),
    (("reason = \"tid & 31 is a 32-lane lane id next to a 64-lane shuffle\"", "reason = \"bad\""), "in a sentence"),
    (("snapshot = \"s\"", "snapshot = \"t\""), "is not in sources.toml"),
    (("path = \"src/k.cu\"", "path = \"other/k.cu\""), "not under any of the snapshot's dirs"),
    (("complete = [\"wave64\"]", "complete = [\"wave64\"]\nregions = [[10, 20]]"), "outside the file's labelled"),
])
def test_bad_labels_are_rejected(tmp_path, edit, message):
    h, c = "a" * 64, "b" * 40
    (tmp_path / "sources.toml").write_text(SOURCES.format(c=c))
    snaps = load_sources(tmp_path / "sources.toml")
    good = GOOD_FILE.format(h=h)
    (tmp_path / "good.toml").write_text(good)
    assert len(load_labels(tmp_path / "good.toml", snaps)) == 1
    (tmp_path / "bad.toml").write_text(good.replace(*edit))
    with pytest.raises(CorpusError, match=message):
        load_labels(tmp_path / "bad.toml", snaps)


def test_unpinned_commit_is_rejected(tmp_path):
    (tmp_path / "sources.toml").write_text(SOURCES.format(c="main"))
    with pytest.raises(CorpusError, match="40 lowercase hex"):
        load_sources(tmp_path / "sources.toml")


def test_score_without_mirrors_says_not_available(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "corpus" / "score.py"), "--cache", str(tmp_path / "cache"),
                           "--mirrors", str(tmp_path / "none"), "--store", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("corpus not available")
    assert "no mirror at" in proc.stdout
