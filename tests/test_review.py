"""Pull-request review: SARIF against the official schema, GitHub annotations, --diff on a real git repository,
suppressions, baselines, configuration, --fix."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from porter.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = Path(os.environ.get("PORTER_SARIF_SCHEMA", ROOT / ".cache" / "sarif-2.1.0.json"))

BUGGY = """#include <hip/hip_runtime.h>
__global__ void count(const float* x, int* out) {
  unsigned m = __ballot(x[threadIdx.x] > 0.0f);
  if (threadIdx.x == 0) out[blockIdx.x] = __popc(m);
}
"""


def run(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    old = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        res = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout, res.stderr


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def test_sarif_validates_against_the_official_schema(tmp_path: Path) -> None:
    assert SCHEMA.is_file(), f"{SCHEMA} missing: run scripts/fetch-sarif-schema.sh (scripts/test.sh does)"
    src = tmp_path / "k.hip"
    src.write_text(BUGGY.replace("  if (threadIdx", "  // porter: ignore[W64-005] counted per half on purpose\n  if (threadIdx"))
    code, out, _ = run("analyze", str(src), "-q", "--format", "sarif", cwd=tmp_path)
    doc = json.loads(out)
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    run_ = doc["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert {"W64-004", "W64-005"} <= {r["id"] for r in rules}
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules)
    results = {r["ruleId"]: r for r in run_["results"]}
    loc = results["W64-004"]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "k.hip" and loc["region"]["startLine"] == 3
    assert results["W64-004"]["partialFingerprints"]["porterFingerprint/v1"]
    assert results["W64-004"]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] \
        == "unsigned long long"
    assert results["W64-005"]["suppressions"] == [{"kind": "inSource", "justification": "counted per half on purpose"}]
    assert rules[results["W64-004"]["ruleIndex"]]["id"] == "W64-004"
    assert code == 1  # W64-004 is still active


def test_github_annotations_are_escaped(tmp_path: Path) -> None:
    from porter.findings import Finding
    from porter.report_formats import format_github

    f = Finding("W64-001", "wave64", "warning", "high", str(tmp_path / "a,b:c.hip"), 3, 4, 3, 9,
                "100% wrong\nsecond line", "fix")
    line = format_github([f], root=tmp_path)
    assert line == "::warning file=a%2Cb%3Ac.hip,line=3,col=4,endLine=3,endColumn=9,title=W64-001 (high confidence)" \
                   "::100%25 wrong%0Asecond line\n"


def test_diff_reports_only_changed_lines(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "old.hip").write_text(BUGGY)
    (tmp_path / "touched.hip").write_text(BUGGY)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    # add a new bug to touched.hip (the old ones stay), leave old.hip alone, add an untracked file
    (tmp_path / "touched.hip").write_text(BUGGY + "__global__ void k2(unsigned* o) { o[0] = __activemask(); }\n")
    (tmp_path / "new.hip").write_text(BUGGY)
    code, out, _ = run("analyze", ".", "-q", "--diff", "main", "--format", "json", cwd=tmp_path)
    found = {(Path(f["path"]).name, f["line"], f["rule_id"]) for f in json.loads(out)["findings"]}
    assert ("touched.hip", 6, "W64-004") in found
    assert not any(name == "old.hip" for name, _, _ in found)
    assert not any(name == "touched.hip" and line < 6 for name, line, _ in found)
    assert ("new.hip", 3, "W64-004") in found
    assert code == 1
    code, _, err = run("analyze", ".", "-q", "--diff", "no-such-ref", cwd=tmp_path)
    assert code == 2 and "'no-such-ref' is not a known commit" in err
    outside = tmp_path.parent / f"{tmp_path.name}-nogit"
    outside.mkdir()
    (outside / "k.hip").write_text(BUGGY)
    code, _, err = run("analyze", ".", "--diff", "main", cwd=outside)
    assert code == 2 and "needs a git repository" in err


@pytest.mark.parametrize("comment, placement", [
    ("// porter: ignore[W64-004] checked by hand", "before"),
    ("// porter: ignore[W64] reason", "same"),
    ("// NOLINT(porter-W64-004)", "same"),
    ("// NOLINTNEXTLINE(porter-W64-004)", "before"),
])
def test_suppressions(tmp_path: Path, comment: str, placement: str) -> None:
    lines = BUGGY.splitlines()
    lines[2] = lines[2] + "  " + comment if placement == "same" else f"  {comment}\n{lines[2]}"
    src = tmp_path / "k.hip"
    src.write_text("\n".join(lines) + "\n")
    code, out, _ = run("analyze", str(src), "-q", "--select", "W64-004")
    assert code == 0 and out == ""


def test_file_level_and_unused_ignores(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text("// porter: ignore-file[W64-004] legacy\n// porter: ignore[W64-001] nothing here\n" + BUGGY)
    code, out, err = run("analyze", str(src), "-q", "--select", "W64-004")
    assert code == 0 and out == ""
    code, _, err = run("analyze", str(src), "-q", "--select", "W64-004", "--report-unused-ignores")
    assert code == 1 and f"{src}:2: // porter: ignore[W64-001] nothing here: unused porter suppression" in err
    other = tmp_path / "other.hip"
    other.write_text("// NOLINT(readability-magic-numbers)\n" + BUGGY)
    assert run("analyze", str(other), "-q", "--select", "W64-004", "--report-unused-ignores")[0] == 1


def test_baseline_survives_moved_lines(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text(BUGGY)
    base = tmp_path / "baseline.json"
    assert run("analyze", str(src), "-q", "--write-baseline", str(base))[0] == 0
    assert len(json.loads(base.read_text())["findings"]) == 2
    src.write_text("// a comment moves everything down\n\n" + BUGGY)
    code, out, _ = run("analyze", str(src), "-q", "--baseline", str(base))
    assert code == 0 and out == ""
    src.write_text("// moved\n" + BUGGY + "__global__ void k2(unsigned* o) { o[0] = __activemask(); }\n")
    code, out, _ = run("analyze", str(src), "-q", "--baseline", str(base))
    assert code == 1 and out.count("W64-004") == 1 and ":7:" in out
    code, _, err = run("analyze", str(src), "-q", "--baseline", str(tmp_path / "missing.json"))
    assert code == 2 and "baseline file not found" in err


def test_config_precedence_and_unknown_keys(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    (tmp_path / "pyproject.toml").write_text('[tool.porter]\nselect = ["W64-005"]\nformat = "json"\n')
    code, out, _ = run("analyze", "k.hip", "-q", cwd=tmp_path)
    assert code == 1 and [f["rule_id"] for f in json.loads(out)["findings"]] == ["W64-005"]
    code, out, _ = run("analyze", "k.hip", "-q", "--format", "text", "--select", "W64-004", cwd=tmp_path)
    assert code == 1 and out.startswith("k.hip:3:16: W64-004")
    (tmp_path / "pyproject.toml").write_text('[tool.porter]\nselct = ["W64"]\n')
    code, _, err = run("analyze", "k.hip", cwd=tmp_path)
    assert code == 2 and "unknown key 'selct'" in err and "did you mean 'select'" in err
    (tmp_path / "pyproject.toml").write_text('[tool.porter]\nfail-on = 3\n')
    code, _, err = run("analyze", "k.hip", cwd=tmp_path)
    assert code == 2 and "fail-on must be a string" in err


def test_fix_applies_mechanical_rewrites(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text(BUGGY)
    code, out, _ = run("analyze", str(src), "-q", "--fix", "--dry-run")
    assert "-  unsigned m = __ballot" in out and "+  unsigned long long m = __ballot" in out
    assert src.read_text() == BUGGY
    run("analyze", str(src), "-q", "--fix")
    fixed = src.read_text()
    assert "unsigned long long m = __ballot" in fixed and "__popcll(m)" in fixed
    code, out, _ = run("analyze", str(src), "-q")
    assert code == 0 and out == ""


def test_fix_never_touches_a_file_changed_since_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import porter.fixer as fixer

    src = tmp_path / "k.hip"
    src.write_text(BUGGY)
    real = fixer.fix_files

    def edit_then_fix(*args, **kwargs):  # type: ignore[no-untyped-def]
        src.write_text(BUGGY + "// edited meanwhile\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(fixer, "fix_files", edit_then_fix)
    code, _, err = run("analyze", str(src), "-q", "--fix")
    assert "changed since it was analyzed; not touched" in err
    assert src.read_text() == BUGGY + "// edited meanwhile\n"


def test_dry_run_needs_fix(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    assert run("analyze", str(tmp_path / "k.hip"), "--dry-run")[0] == 2


def test_pre_commit_hook_definition() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: porter" in text and "entry: porter analyze" in text and "language: python" in text
