"""--fix and -o never lose or misplace a user's bytes: non-ASCII lines, CRLF files, symlinks, hard links, files
saved while porter works, streams and the input files themselves as outputs."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from test_review import run

from porter import families

BUGGY = ("#include <hip/hip_runtime.h>\n"
         "__global__ void count(const float* x, int* out) {\n"
         "  /* é ü */ unsigned m = __ballot(x[threadIdx.x] > 0.0f);\n"
         "  if (threadIdx.x == 0) out[blockIdx.x] = /* ß */ __popc(m);\n"
         "}\n")
FIXED = BUGGY.replace("unsigned m", "unsigned long long m").replace("__popc(m)", "__popcll(m)")


def test_fix_counts_clang_byte_columns_on_non_ascii_lines(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text(BUGGY)
    run("analyze", str(src), "-q", "--fix")
    assert src.read_text() == FIXED


def test_fix_keeps_crlf_line_endings(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_bytes(BUGGY.replace("\n", "\r\n").encode())
    _, _, err = run("analyze", str(src), "-q", "--fix")
    assert src.read_bytes() == FIXED.replace("\n", "\r\n").encode(), err


def test_fix_writes_through_symlinks_and_keeps_hard_links(tmp_path: Path) -> None:
    (tmp_path / "real.hip").write_text(BUGGY)
    (tmp_path / "link.hip").symlink_to("real.hip")
    (tmp_path / "a.hip").write_text(BUGGY)
    os.link(tmp_path / "a.hip", tmp_path / "b.hip")
    inode = (tmp_path / "a.hip").stat().st_ino
    run("analyze", str(tmp_path / "link.hip"), str(tmp_path / "a.hip"), "-q", "--fix")
    assert (tmp_path / "link.hip").is_symlink() and os.readlink(tmp_path / "link.hip") == "real.hip"
    assert (tmp_path / "real.hip").read_text() == FIXED
    assert (tmp_path / "a.hip").stat().st_ino == inode and (tmp_path / "b.hip").read_text() == FIXED


@pytest.mark.parametrize("spelling", [".", "./k.hip"])
def test_fix_applies_to_dot_relative_paths(tmp_path: Path, spelling: str) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    _, _, err = run("analyze", spelling, "-q", "--fix", cwd=tmp_path)
    assert (tmp_path / "k.hip").read_text() == FIXED, err


def test_fix_refuses_a_file_saved_during_the_reparse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import porter.analysis as analysis

    src = tmp_path / "k.hip"
    src.write_text(BUGGY)
    real = analysis.analyze_one

    def save_while_checking(req):  # type: ignore[no-untyped-def]
        if os.path.basename(req.path).startswith(".porter-fix-"):   # the re-parse of the fixed copy
            src.write_text(BUGGY + "// saved by the editor\n")
        return real(req)

    monkeypatch.setattr(analysis, "analyze_one", save_while_checking)
    _, _, err = run("analyze", str(src), "-q", "--fix", "-j", "1")
    assert "changed while the fix was checked" in err
    assert src.read_text() == BUGGY + "// saved by the editor\n"


def test_output_refuses_to_overwrite_an_input(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    (tmp_path / "alias.hip").symlink_to("k.hip")
    for out in ("k.hip", "alias.hip"):
        code, _, err = run("analyze", "k.hip", "-q", "-o", out, cwd=tmp_path)
        assert code == 2 and "is the input" in err
    code, _, err = run("analyze", ".", "-q", "--write-baseline", "k.hip", cwd=tmp_path)
    assert code == 2 and "is the input" in err
    assert (tmp_path / "k.hip").read_text() == BUGGY


def test_output_writes_through_fifos_terminals_and_symlinks(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text(BUGGY)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    run("analyze", "k.hip", "-q", "--format", "json", "-o", str(fifo), cwd=tmp_path)
    reader.join(30)
    assert fifo.is_fifo() and json.loads(got[0])["findings"]

    master, slave = os.openpty()   # a character device of our own
    try:
        run("analyze", "k.hip", "-q", "-o", os.ttyname(slave), cwd=tmp_path)
        assert b"W64-004" in os.read(master, 65536)
    finally:
        os.close(master)
        os.close(slave)

    (tmp_path / "report.txt").symlink_to("kept/real.txt")
    (tmp_path / "kept").mkdir()
    run("analyze", "k.hip", "-q", "-o", "report.txt", cwd=tmp_path)
    assert (tmp_path / "report.txt").is_symlink() and "W64-004" in (tmp_path / "kept" / "real.txt").read_text()


def test_convert_never_writes_over_its_input(tmp_path: Path) -> None:
    src = tmp_path / "saxpy_rows.hip"
    src.write_bytes(families.sample("elementwise/saxpy_rows.hip").read_bytes())
    before = src.read_bytes()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "saxpy_rows.py").symlink_to(src)
    code, _, err = run("convert", str(src), "-o", str(tmp_path / "out"), "--force")
    assert code == 2 and "is the input" in err and src.read_bytes() == before
