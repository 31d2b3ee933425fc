"""What porter reports is what is there: exit codes CI can trust, configuration checked like options, each file
once under one name, suppressions parsed strictly, positions in the unit each format promises."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_review import BUGGY, git, run

FF_BUGGY = BUGGY.replace("#include <hip/hip_runtime.h>\n", "#include <hip/hip_runtime.h>\n// page\f two\n")


@pytest.mark.parametrize("text, message", [
    ("tool = 5\n", "`tool` must be a table"),
    ('[tool.porter]\nfail-on = "fatal"\n', "fail-on: 'fatal' is not one of"),
    ("[tool.porter]\ntimeout = inf\n", "timeout: inf is not in the range"),
    ("[tool.porter]\njobs = 0\n", "jobs: 0 is not in the range"),
    (b"[tool.porter]\n# \xff\n", "not UTF-8"),
])
def test_bad_configuration_is_a_usage_error(tmp_path: Path, text: str | bytes, message: str) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    cfg = tmp_path / "pyproject.toml"
    cfg.write_bytes(text if isinstance(text, bytes) else text.encode())
    code, _, err = run("analyze", "k.hip", "-q", "--config", str(cfg), cwd=tmp_path)
    assert code == 2 and message in err and str(cfg) in err, err


def test_internal_error_has_its_own_exit_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import porter.cli.analyze as analyze_cli

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("a porter bug")

    monkeypatch.setattr(analyze_cli, "render", broken)
    (tmp_path / "k.hip").write_text(BUGGY)
    code, _, err = run("analyze", "k.hip", "-q", cwd=tmp_path)
    assert code == 3 and "ZeroDivisionError" in err and "please report" in err
    assert "exit status: 0 clean, 1 findings" in run("--help")[1].lower()


def test_spaced_ignore_suppresses_nothing_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY.replace("__popc(m);", "__popc(m);  // porter: ignore [W64-003] no"))
    code, out, err = run("analyze", "k.hip", "--format", "json", cwd=tmp_path)
    assert {f["rule_id"] for f in json.loads(out)["findings"]} == {"W64-004", "W64-005"}
    assert not any("suppressed" in f for f in json.loads(out)["findings"])
    assert "k.hip:4: malformed suppression" in err


def test_json_marks_suppressed_findings(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY.replace("__popc(m);", "__popc(m);  // porter: ignore[W64-005] ok"))
    code, out, _ = run("analyze", "k.hip", "--format", "json", cwd=tmp_path)
    marks = {f["rule_id"]: f.get("suppressed") for f in json.loads(out)["findings"]}
    assert marks == {"W64-004": None, "W64-005": "ok"} and code == 1


def test_form_feed_does_not_shift_lines(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(FF_BUGGY.replace("__popc(m);", "__popc(m);  // porter: ignore[W64-005] ok"))
    code, out, _ = run("analyze", "k.hip", "--format", "json", cwd=tmp_path)
    found = {f["rule_id"]: (f["line"], f.get("suppressed")) for f in json.loads(out)["findings"]}
    assert found == {"W64-004": (4, None), "W64-005": (5, "ok")}


def test_each_file_once_whatever_its_spelling(tmp_path: Path) -> None:
    (tmp_path / "-x.hip").write_text(BUGGY)
    (tmp_path / "k.hip").write_text(BUGGY)
    code, out, err = run("analyze", "--format", "json", "--", "-x.hip", "k.hip", "./k.hip", str(tmp_path / "k.hip"),
                         cwd=tmp_path)
    paths = sorted(f["path"] for f in json.loads(out)["findings"])
    assert paths == ["-x.hip", "-x.hip", "k.hip", "k.hip"], err


def test_baseline_matches_however_the_path_is_typed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "src" / "k.hip").write_text(BUGGY)
    run("analyze", "src/k.hip", "-q", "--write-baseline", str(tmp_path / "b.json"), cwd=repo)
    for spelling, cwd in (("./src/k.hip", repo), ("k.hip", repo / "src"), (str(repo / "src" / "k.hip"), tmp_path)):
        code, out, err = run("analyze", spelling, "-q", "--baseline", str(tmp_path / "b.json"), cwd=cwd)
        assert code == 0 and out == "", (spelling, out, err)


def test_sarif_uris_and_utf16_columns(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "k.hip").write_text(BUGGY.replace("  unsigned m", "  /* 𝜋é */ unsigned m"))
    outside = tmp_path / "outside.hip"
    outside.write_text(BUGGY)
    code, out, _ = run("analyze", "k.hip", str(outside), "--format", "sarif", cwd=repo)
    run_ = json.loads(out)["runs"][0]
    assert run_.get("columnKind", "utf16CodeUnits") == "utf16CodeUnits"
    locs = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]):
            r["locations"][0]["physicalLocation"] for r in run_["results"]}
    inside = locs[("W64-004", "k.hip")]
    assert inside["artifactLocation"]["uriBaseId"] == "SRCROOT"
    # "  /* 𝜋é */ unsigned m = __ballot": the comment is 10 UTF-16 units (𝜋 is two) but 13 bytes in clang's count
    assert inside["region"]["startColumn"] == 2 + 10 + len("unsigned m = ") + 1
    far = locs[("W64-004", outside.as_uri())]
    assert "uriBaseId" not in far["artifactLocation"]


def test_block_over_the_target_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    code, _, err = run("analyze", "k.hip", "--block", "32,33", cwd=tmp_path)
    assert code == 2 and "at most 1024" in err
    assert run("analyze", "k.hip", "-q", "--block", "32,32", cwd=tmp_path)[0] == 1


def test_compile_database_is_read_once(tmp_path: Path) -> None:
    from porter.frontend import _compile_db_index, compile_db_args

    files = [tmp_path / f"f{i}.hip" for i in range(50)]
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(tmp_path), "file": f.name,
                               "arguments": ["hipcc", f"-DN{i}", "-c", f.name]} for i, f in enumerate(files)]))
    _compile_db_index.cache_clear()
    assert [compile_db_args(str(db), f) for f in files[:3]] == [["-D", "N0"], ["-D", "N1"], ["-D", "N2"]]
    assert _compile_db_index.cache_info().misses == 1
    os.utime(db, ns=(0, 0))   # an edited database is read again
    compile_db_args(str(db), files[0])
    assert _compile_db_index.cache_info().misses == 2


def test_a_porter_bug_on_one_file_exits_3_after_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import porter.analysis as analysis

    real = analysis.analyze_one

    def buggy(req):  # type: ignore[no-untyped-def]
        if req.path.endswith("bad.hip"):
            raise KeyError("a porter bug")
        return real(req)

    monkeypatch.setattr(analysis, "analyze_one", buggy)   # the workers are forked: they see it too
    (tmp_path / "bad.hip").write_text(BUGGY)
    (tmp_path / "good.hip").write_text(BUGGY)
    code, out, err = run("analyze", ".", "--format", "json", "-j", "1", cwd=tmp_path)
    assert code == 3 and "internal error: KeyError" in err and "please report" in err
    assert {f["path"] for f in json.loads(out)["findings"]} == {"good.hip"}
