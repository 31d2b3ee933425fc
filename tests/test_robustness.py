"""porter runs in CI on code nobody has reviewed: it must not crash, hang, leak or execute anything.

Hostile inputs are generated into tmp folders (tests/hostile.py). Each must give a clear per-file diagnostic
naming the file, every other file must still be analyzed, no traceback, exit 2 for input errors."""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import hostile
from porter import families
from porter.pool import Failure, imap

PORTER = [sys.executable, "-c", "import sys; from porter.cli import main; sys.exit(main())"]


def porter(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 120) \
        -> subprocess.CompletedProcess:
    return subprocess.run(PORTER + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def no_traceback(proc: subprocess.CompletedProcess | tuple) -> None:
    err = proc.stderr if hasattr(proc, "stderr") else proc[1]
    assert "Traceback" not in err, err[-3000:]


def good(root: Path, name: str = "good.cu") -> Path:
    return hostile.write(root / name, hostile.GOOD_KERNEL)


def finding_files(stdout: str) -> set[str]:
    doc = json.loads(stdout) if stdout.strip() else []
    findings = doc["findings"] if isinstance(doc, dict) else doc
    return {os.path.basename(f["path"]) for f in findings}


# ------------------------------------------------------------------------------------------ hostile corpus

def test_hostile_corpus_each_file_reported_by_name_others_analyzed(tmp_path: Path) -> None:
    d = tmp_path / "src dir é"
    hostile.write(d / "binary.cu", hostile.binary_bytes())
    hostile.write(d / "empty.cu", "")
    hostile.write(d / "latin1.cu", hostile.non_utf8_bytes())
    hostile.write(d / "long_line.cu", hostile.long_line(3.0))
    hostile.write(d / "parens.cu", hostile.nested_parens(10_000))
    hostile.write(d / "deep.cu", hostile.nested_ifs(3000))
    hostile.write(d / "ok depth.cu", hostile.nested_ifs(600))
    hostile.include_cycle(d)
    hostile.symlink_loop(d)
    os.mkfifo(d / "fifo.cu")
    os.symlink("/dev/zero", d / "zero.cu")
    (d / "folder.cu").mkdir()
    good(d, "naïve kernel ü.cu")
    proc = porter("analyze", str(d), str(d / "folder.cu"), "--format", "json", "-j", "2", "--timeout", "60",
                  "--fail-on", "never")
    no_traceback(proc)
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr
    for name, why in [("binary.cu", "binary file"), ("deep.cu", "nested too deeply"),
                      ("loop_a.cu", "symbolic links"), ("loop_b.cu", "symbolic links"),
                      ("fifo.cu", "not a regular file"), ("zero.cu", "not a regular file"),
                      ("folder.cu", "no HIP/CUDA sources found")]:
        line = next((ln for ln in err.splitlines() if f"{name}:" in ln and "error" in ln), "")
        assert why in line, f"{name}: expected '{why}' in\n{err}"
    # parens.cu: clang stops at porter's bracket depth (1024) and drops the rest of the statement; the kernel is
    # still recovered, so it is not an input error, but the partial analysis is said, with the place
    note = next((ln for ln in err.splitlines() if "parens.cu:1:" in ln), "")
    assert note.startswith("porter: note:") and "bracket nesting level exceeded maximum of 1024" in note, err
    assert "the analysis covers what the parser recovered" in note
    # a file with Latin-1 bytes (in a comment, as real sources have them) is analyzed, and said to be not UTF-8
    note = next((ln for ln in err.splitlines() if "latin1.cu:1:" in ln), "")
    assert note.startswith("porter: note:") and "not UTF-8 (byte 0xe9 at offset 6 and 1 more)" in note, err
    found = finding_files(proc.stdout)
    # every other file is analyzed: the good kernel, the one behind a 3 MB line, the one in the include cycle
    assert {"naïve kernel ü.cu", "long_line.cu", "cycle.cu", "latin1.cu"} <= found, (found, err)
    latin1 = [f for f in json.loads(proc.stdout)["findings"] if f["path"].endswith("latin1.cu")]
    assert [(f["rule_id"], f["line"], f["column"]) for f in latin1] == [("W64-004", 3, 16)], latin1
    for name in ("empty.cu", "ok depth.cu", "parens.cu", "naïve kernel ü.cu", "long_line.cu", "cycle.cu",
                 "latin1.cu"):
        assert not [ln for ln in err.splitlines() if ln.startswith("porter: error:") and f"{name}:" in ln], err

def test_unreadable_file(tmp_path: Path) -> None:
    bad = hostile.write(tmp_path / "secret.cu", hostile.GOOD_KERNEL)
    good(tmp_path)
    bad.chmod(0)
    try:
        proc = porter("analyze", str(tmp_path), "--format", "json", "-j", "2", "--fail-on", "never")
    finally:
        bad.chmod(0o644)
    no_traceback(proc)
    if os.geteuid() == 0:
        # root reads a mode-000 file: porter analyzes it like any other (there is nothing to refuse)
        assert proc.returncode == 0 and {"secret.cu", "good.cu"} <= finding_files(proc.stdout), proc.stderr
    else:
        assert proc.returncode == 2
        assert "secret.cu: cannot read: Permission denied" in proc.stderr
        assert "good.cu" in finding_files(proc.stdout)


def test_max_file_size(tmp_path: Path) -> None:
    hostile.write(tmp_path / "big.cu", hostile.long_line(0.5))
    good(tmp_path)
    proc = porter("analyze", str(tmp_path), "--max-file-size", "100000", "--format", "json", "--fail-on", "never")
    no_traceback(proc)
    assert proc.returncode == 2
    assert "big.cu: " in proc.stderr and "exceeds --max-file-size (100000 bytes)" in proc.stderr
    assert finding_files(proc.stdout) == {"good.cu"}


def test_missing_path_and_non_source(tmp_path: Path) -> None:
    good(tmp_path)
    hostile.write(tmp_path / "notes.txt", "hello")
    proc = porter("analyze", str(tmp_path / "good.cu"), str(tmp_path / "nope.cu"), str(tmp_path / "notes.txt"),
                  "--format", "json", "--fail-on", "never")
    no_traceback(proc)
    assert proc.returncode == 2
    assert "nope.cu: no such file or directory" in proc.stderr
    assert "notes.txt: not a HIP/CUDA source" in proc.stderr
    assert finding_files(proc.stdout) == {"good.cu"}


def test_upper_case_headers_and_named_c_sources(tmp_path: Path) -> None:
    # AMReX's C++ headers end in .H; hypre compiles its *_device.c files as HIP: a .c file is read when it is
    # named, while a folder walk leaves .c files (mostly host C) alone
    good(tmp_path, "AMReX_Reduce.H")
    good(tmp_path, "csr_device.c")
    walked = porter("analyze", str(tmp_path), "--format", "json", "--fail-on", "never")
    no_traceback(walked)
    assert finding_files(walked.stdout) == {"AMReX_Reduce.H"}
    named = porter("analyze", str(tmp_path / "csr_device.c"), "--format", "json", "--fail-on", "never")
    no_traceback(named)
    assert named.returncode == 0, named.stderr
    assert finding_files(named.stdout) == {"csr_device.c"}


# ------------------------------------------------------------------------------- time limit and crashes

def test_time_limit_end_to_end(tmp_path: Path) -> None:
    hostile.write(tmp_path / "bomb.cu", hostile.macro_bomb(40))
    good(tmp_path)
    start = time.monotonic()
    # 5 s: the good file must finish inside the limit on a loaded 2-core machine; the bomb never does
    proc = porter("analyze", str(tmp_path), "--timeout", "5", "-j", "2", "--format", "json", "--fail-on", "never")
    assert time.monotonic() - start < 40
    no_traceback(proc)
    assert proc.returncode == 2
    assert "bomb.cu: timed out after 5 s (per-file limit, see --timeout)" in proc.stderr
    assert finding_files(proc.stdout) == {"good.cu"}


def test_worker_crash_end_to_end(tmp_path: Path) -> None:
    # a 20,000-term `a + a + ...` chain overflows libclang's own stack (SIGSEGV in the worker)
    hostile.write(tmp_path / "crash.cu", hostile.long_sum(20_000))
    good(tmp_path)
    proc = porter("analyze", str(tmp_path), "-j", "1", "--format", "json", "--fail-on", "never")
    no_traceback(proc)
    assert proc.returncode == 2
    assert "crash.cu: the analyzer process crashed (killed by SIGSEGV)" in proc.stderr
    assert finding_files(proc.stdout) == {"good.cu"}


def test_memory_bomb_include_dev_zero(tmp_path: Path) -> None:
    hostile.write(tmp_path / "zero.cu", '#include "/dev/zero"\n' + hostile.GOOD_KERNEL)
    good(tmp_path)
    env = dict(os.environ, PORTER_WORKER_MEMORY_MB="1500")
    start = time.monotonic()
    proc = porter("analyze", str(tmp_path), "-j", "2", "--timeout", "60", "--format", "json", "--fail-on", "never",
                  env=env)
    assert time.monotonic() - start < 45   # failed on the memory cap, not the time limit
    no_traceback(proc)
    assert proc.returncode == 2
    assert any("zero.cu:" in ln and "error" in ln for ln in proc.stderr.splitlines()), proc.stderr
    assert "good.cu" in finding_files(proc.stdout)


def test_nesting_within_the_bracket_depth_is_analyzed_in_full(tmp_path: Path) -> None:
    """900 nested parentheses (past clang's default bracket depth of 256) before a real finding: still found."""
    sample = (Path(__file__).resolve().parent.parent / "samples/wave64/reductions.hip").read_text()
    hostile.write(tmp_path / "deep.hip", hostile.nested_parens(900) + sample)
    proc = porter("analyze", str(tmp_path / "deep.hip"), "--format", "json", "--fail-on", "never")
    no_traceback(proc)
    assert proc.returncode == 0 and "porter: note:" not in proc.stderr, proc.stderr
    assert '"W64-001"' in proc.stdout


def test_convert_parses_under_the_same_limits(tmp_path: Path) -> None:
    """convert parses in a worker too: a hang, a libclang crash or a memory bomb is an error naming the file."""
    hostile.write(tmp_path / "slow.cu", hostile.macro_bomb(40))
    hostile.write(tmp_path / "crash.cu", hostile.long_sum(20_000))
    hostile.write(tmp_path / "zero.cu", '#include "/dev/zero"\n' + hostile.GOOD_KERNEL)
    env = dict(os.environ, PORTER_WORKER_MEMORY_MB="1500")
    expected = {"slow.cu": "timed out after 2 s", "crash.cu": "the analyzer process crashed (killed by SIGSEGV)",
                "zero.cu": "zero.cu"}
    for name, message in expected.items():
        start = time.monotonic()
        proc = porter("convert", str(tmp_path / name), "--dry-run", "--timeout", "2", env=env)
        assert time.monotonic() - start < 45, name
        no_traceback(proc)
        assert proc.returncode == 2, (name, proc.stderr)
        assert f"porter: error: {tmp_path / name}" in proc.stderr and message in proc.stderr, proc.stderr


def _sleep_or_die(x: int) -> int:
    if x == 1:
        os._exit(3)
    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # (SIGSEGV would wake pytest's faulthandler in the child)
    if x == 3:
        raise ValueError("boom")
    if x == 4:
        time.sleep(60)
    if x == 5:
        return sys.getrecursionlimit()
    return x * 10


def test_pool_contains_crashes_timeouts_and_exceptions(capfd: pytest.CaptureFixture[str]) -> None:
    out = list(imap(_sleep_or_die, range(8), jobs=2, timeout=2))
    capfd.readouterr()
    ok = sorted(r for r in out if not isinstance(r, Failure))
    fails = {r.item: r.reason for r in out if isinstance(r, Failure)}
    assert ok == sorted([0, 60, 70, sys.getrecursionlimit()])
    assert fails[1] == "the analyzer process crashed (exit code 3)"
    assert fails[2] == "the analyzer process crashed (killed by SIGKILL)"
    assert fails[3].startswith("internal error: ValueError: boom (at test_robustness.py:")
    assert fails[4] == "timed out after 2 s (per-file limit, see --timeout)"
    assert "Traceback" not in capfd.readouterr().err


# ------------------------------------------------------------------------------------ nothing is executed

FAKE_TOOLS = ("cc", "c++", "gcc", "g++", "clang", "clang++", "hipcc", "nvcc", "sh", "bash", "ld", "make", "cmake")


def test_nothing_is_executed(tmp_path: Path) -> None:
    marker = Path(f"/tmp/pwned_{uuid.uuid4().hex}")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    for tool in FAKE_TOOLS:
        hostile.write(fake / tool, f"#!/bin/sh\necho {tool} >> {marker}\n")
        (fake / tool).chmod(0o755)
    src = tmp_path / "src"
    hostile.write(src / "evil.cu",
                  f'#include "$(touch {marker})"\n#include `touch {marker}`\n'
                  f'#pragma comment(lib, "`touch {marker}`")\n#pragma GCC dependency "/bin/sh"\n'
                  f'_Pragma("clang __debug crash_not")\n#pragma omp parallel\n' + hostile.GOOD_KERNEL)
    hostile.write(src / "other.cu", hostile.GOOD_KERNEL)
    db = [{"directory": str(src), "file": "evil.cu",
           "command": f"touch {marker} && cc -I$(touch {marker}) -DX=`touch {marker}` -c evil.cu"},
          {"directory": str(src), "file": "other.cu",
           "arguments": ["sh", "-c", f"touch {marker}", "-include", f"$(touch {marker})"]}]
    hostile.write(tmp_path / "compile_commands.json", json.dumps(db))
    env = dict(os.environ, PATH=f"{fake}:{os.environ.get('PATH', '')}", SHELL=str(fake / "sh"),
               CC=str(fake / "cc"), CXX=str(fake / "c++"), HIPCC=str(fake / "hipcc"))
    proc = porter("analyze", "-p", str(tmp_path / "compile_commands.json"), str(src), "--format", "json",
                  "--fail-on", "never", "--no-pch", env=env)
    no_traceback(proc)
    assert not marker.exists(), marker.read_text()
    assert {"evil.cu", "other.cu"} <= finding_files(proc.stdout), proc.stderr
    proc = porter("convert", str(src / "evil.cu"), "-o", str(tmp_path / "out"), env=env)
    no_traceback(proc)
    assert not marker.exists()


# ----------------------------------------------------------------------------------- interrupted runs

def _slow_tree(root: Path, n: int = 6) -> None:
    for i in range(n):
        hostile.write(root / f"slow{i}.cu", hostile.slow_source(15))


@pytest.mark.parametrize("sig,code,message", [(signal.SIGINT, 130, "porter: interrupted"),
                                              (signal.SIGTERM, 143, "porter: terminated")])
def test_interrupted_analyze_leaves_no_partial_report(tmp_path: Path, sig: int, code: int, message: str) -> None:
    _slow_tree(tmp_path / "src")
    report = tmp_path / "out" / "report.json"
    p = subprocess.Popen(PORTER + ["analyze", str(tmp_path / "src"), "-j", "2", "--format", "json",
                                   "-o", str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    p.send_signal(sig)
    # communicate() returns only once every process holding the pipes is gone: no orphaned worker
    out, err = p.communicate(timeout=20)
    assert p.returncode == code, err
    assert message in err and "Traceback" not in err and "Aborted" not in err, err
    if report.exists():
        json.loads(report.read_text())
    assert not list(tmp_path.rglob("*.tmp"))


def test_killed_parent_takes_its_workers_along(tmp_path: Path) -> None:
    _slow_tree(tmp_path / "src", 2)
    p = subprocess.Popen(PORTER + ["analyze", str(tmp_path / "src"), "-j", "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    time.sleep(4)
    p.kill()
    p.communicate(timeout=20)   # would hang while a worker kept stderr open


def test_interrupted_convert_leaves_only_complete_modules(tmp_path: Path) -> None:
    src = str(families.sample("softmax/softmax_block.hip"))
    ref = tmp_path / "ref"
    proc = porter("convert", src, "-o", str(ref))
    assert proc.returncode == 0, proc.stderr
    expected = {p.name: p.read_text() for p in ref.glob("*.py")}
    assert expected
    for i, delay in enumerate((0.2, 0.4, 0.6, 0.8, 1.0, 1.3)):
        out = tmp_path / f"out{i}"
        p = subprocess.Popen(PORTER + ["convert", src, "-o", str(out)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert "Traceback" not in err, err
        files = list(out.iterdir()) if out.exists() else []
        # -SIGINT: the signal came before the interpreter installed its handler or after porter returned (during
        # the interpreter's shutdown); either way every file present must be complete, which the loop checks
        assert p.returncode in (0, 130, -signal.SIGINT), err
        for f in files:
            assert f.suffix == ".py", f     # no temporary left behind
            assert f.read_text() == expected[f.name]
            ast.parse(f.read_text())


def test_ctrl_c_while_the_command_line_loads_is_an_interrupt_not_a_traceback() -> None:
    # the console script's first step is importing click and porter.cli; a Ctrl-C there (the early part of the
    # loop above) must read as any other interrupt
    code = ("import builtins, porter.entry\n"
            "real = builtins.__import__\n"
            "def slow(name, *a, **k):\n"
            "    if name == 'porter.cli':\n"
            "        raise KeyboardInterrupt\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = slow\n"
            "porter.entry.run()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert "porter: interrupted" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_atomic_write_interrupted_mid_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.fsutil import atomic_write

    dest = tmp_path / "report.json"
    dest.write_text('{"old": 1}')

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(dest, '{"new": 2}')
    assert json.loads(dest.read_text()) == {"old": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
