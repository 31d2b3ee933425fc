"""The real-world corpus's own integrity, checked without the mirrors (CI has none)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "corpus"))
from corpusdata import CorpusError, label_sets, load_corpus, load_labels, load_sources  # noqa: E402

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
    (("complete = [\"wave64\"]", "complete = [\"wave64\"]\nset = \"Held out!\""), "'set' must be a lowercase name"),
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


def test_heldout_sets_are_separate_and_labelled_both_ways():
    corpus = load_corpus()
    assert label_sets(corpus) == ["tuning", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8", "heldout9", "heldout10"]
    for name in ("heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8", "heldout9", "heldout10"):
        batch = [lf for lf in corpus.files if lf.set == name]
        kinds = {(lab.kind, lab.category) for lf in batch for lab in lf.labels}
        assert kinds == {("hazard", "wave64"), ("ok", "wave64"), ("hazard", "lds"), ("ok", "lds")}, name


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


def test_score_rejects_an_unknown_set_and_names_the_known_ones(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "corpus" / "score.py"), "--set", "no-such-set",
                           "--cache", str(tmp_path / "cache"), "--mirrors", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "unknown label set 'no-such-set'" in proc.stderr and "tuning, heldout, heldout2" in proc.stderr


def _mirror_with(tmp_path: Path, text: str) -> str:
    """A bare mirror <tmp>/mirrors/o+r/repo holding src/k.cu; returns the commit."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "k.cu").write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run(git[:5] + ["init", "-q", str(work)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "k"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(tmp_path / "mirrors" / "o+r" / "repo")], check=True)
    return subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def test_materialize_verifies_file_and_line_hashes(tmp_path):
    from corpusdata import file_hash, line_hash
    from materialize import materialize

    text = "__global__ void k() {\n  int lane = threadIdx.x & 31;\n}\n"
    commit = _mirror_with(tmp_path, text)
    (tmp_path / "sources.toml").write_text(SOURCES.format(c=commit))
    labels = tmp_path / "labels"
    labels.mkdir()
    good = GOOD_FILE.format(h="0" * 64).replace('sha256 = "' + "0" * 64 + '"', f'sha256 = "{file_hash(text.encode())}"', 1)
    good = good.replace("line = 3", "line = 2").replace('text_sha256 = "' + "0" * 64 + '"',
                                                        f'text_sha256 = "{line_hash("  int lane = threadIdx.x & 31;")}"')
    (labels / "a.toml").write_text(good)
    args = dict(cache=tmp_path / "cache", mirrors=tmp_path / "mirrors", store=tmp_path / "store")
    m = materialize(load_corpus(tmp_path / "sources.toml", labels), **args)
    assert m.verified == ["s:src/k.cu"] and not m.unavailable
    # a label whose line number points at another line is refused, and the file is not scored
    (labels / "a.toml").write_text(good.replace("line = 2", "line = 1"))
    m = materialize(load_corpus(tmp_path / "sources.toml", labels), **args)
    assert not m.verified and "hash does not match" in m.unavailable["s:src/k.cu"]
    # a file whose content differs from the recorded sha256 is refused
    (labels / "a.toml").write_text(good.replace(file_hash(text.encode()), "1" * 64))
    m = materialize(load_corpus(tmp_path / "sources.toml", labels), **args)
    assert not m.verified and "sha256 differs" in m.unavailable["s:src/k.cu"]


def test_sets_are_scored_separately(tmp_path):
    """A held-out file's hazard never counts in the tuning block, and each block names only its own files."""
    from corpusdata import file_hash, line_hash
    from materialize import materialize
    import score

    text = "__global__ void k(int* o) {\n  o[threadIdx.x] = __ballot(o[0] > 0) & 0xff;\n}\n"
    commit = _mirror_with(tmp_path, text)
    two = SOURCES.format(c=commit) + SOURCES.format(c=commit).replace('id = "s"', 'id = "t"')
    (tmp_path / "sources.toml").write_text(two)
    labels = tmp_path / "labels"
    labels.mkdir()
    zeros = '"' + "0" * 64 + '"'
    entry = (GOOD_FILE.format(h="0" * 64).replace(f"sha256 = {zeros}", f'sha256 = "{file_hash(text.encode())}"', 1)
             .replace("line = 3", "line = 2")
             .replace(f"text_sha256 = {zeros}", f'text_sha256 = "{line_hash(text.splitlines()[1])}"'))
    heldout = (entry.replace('snapshot = "s"', 'snapshot = "t"\nset = "heldout"')
               .replace('kind = "hazard"', 'kind = "ok"'))
    (labels / "a.toml").write_text(entry + heldout)
    corpus = load_corpus(tmp_path / "sources.toml", labels)
    m = materialize(corpus, cache=tmp_path / "cache", mirrors=tmp_path / "mirrors", store=tmp_path / "store")
    blocks = score.score_sets(corpus, m, ["tuning", "heldout"], 1, 120)
    assert list(blocks) == ["tuning", "heldout"]
    assert blocks["tuning"]["files_labelled"] == 1 and blocks["heldout"]["files_labelled"] == 1
    assert blocks["tuning"]["categories"]["wave64"]["hazards"] == 1
    assert blocks["heldout"]["categories"]["wave64"]["hazards"] == 0
    assert blocks["heldout"]["categories"]["wave64"]["ok_labels"] == 1
    assert score.score_sets(corpus, m, ["heldout"], 1, 120).keys() == {"heldout"}
