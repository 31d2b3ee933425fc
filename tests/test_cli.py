"""porter analyze / porter rules as a user drives them: exit codes, formats, bad input, start-up cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from porter.cli import main

ROOT = Path(__file__).resolve().parent.parent
MASKS = ROOT / "samples" / "wave64" / "masks.hip"

CLEAN = """#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
"""
BUGGY = """#include <hip/hip_runtime.h>
__global__ void count(const float* x, int* out) {
  unsigned m = __ballot(x[threadIdx.x] > 0.0f);
  if (threadIdx.x == 0) out[blockIdx.x] = __popc(m);
}
"""


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "clean.hip").write_text(CLEAN)
    (tmp_path / "buggy.hip").write_text(BUGGY)
    return tmp_path


def test_clean_file_exits_0(tree: Path) -> None:
    code, out, _ = run("analyze", str(tree / "clean.hip"), "-q")
    assert code == 0 and out == ""


def test_findings_exit_1_with_file_line_col(tree: Path) -> None:
    code, out, _ = run("analyze", str(tree / "buggy.hip"), "-q")
    assert code == 1
    lines = out.splitlines()
    assert f"{tree / 'buggy.hip'}:3:16: W64-004 [error]" in lines[0]
    assert any(":4:" in line and "W64-005" in line for line in lines)


def test_fail_on_threshold(tree: Path) -> None:
    assert run("analyze", str(tree / "buggy.hip"), "-q", "--fail-on", "never")[0] == 0
    # W64-002 on this sample is a warning: with --fail-on error only the errors count
    code, out, _ = run("analyze", str(tree / "buggy.hip"), "-q", "--select", "W64-002", "--fail-on", "error")
    assert code == 0


def test_missing_path_is_usage_error_but_others_are_analyzed(tree: Path) -> None:
    code, out, err = run("analyze", str(tree / "nope.hip"), str(tree / "buggy.hip"), "-q")
    assert code == 2
    assert "nope.hip: no such file or directory" in err
    assert "W64-004" in out


def test_folder_without_sources(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    code, _, err = run("analyze", str(tmp_path), "-q")
    assert code == 2 and "no HIP/CUDA sources found" in err


def test_bad_inputs_are_reported_per_file(tree: Path) -> None:
    (tree / "binary.hip").write_bytes(b"\x7fELF\x00\x01\x02" * 50)
    (tree / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k() {}\n".encode("latin-1"))
    (tree / "dir.cu").mkdir()
    (tree / "big.hip").write_text("// x\n" * 40000)
    (tree / "broken.hip").write_text(BUGGY.replace("}\n", "\n", 1) + "\nint ??? ;\n")
    (tree / "missing_include.hip").write_text('#include "does_not_exist.h"\n' + BUGGY)
    code, out, err = run("analyze", str(tree), str(tree / "dir.cu"), "-q", "--max-file-size", "100000")
    assert code == 2
    assert "binary.hip: binary file" in err
    assert f"porter: note: {tree / 'latin1.cu'}:1: not UTF-8 (byte 0xe9 at offset 6)" in err   # analyzed, said so
    assert "dir.cu: no HIP/CUDA sources found" in err
    assert "big.hip: 200000 bytes exceeds --max-file-size" in err
    assert "does_not_exist.h' file not found (analysis continued" in err
    assert "Traceback" not in err + out
    # the good files were still analyzed, including the one with the missing include and the broken one
    assert f"{tree / 'buggy.hip'}:3:16: W64-004" in out
    assert f"{tree / 'missing_include.hip'}:4:16: W64-004" in out
    assert f"{tree / 'broken.hip'}:3:16: W64-004" in out


def test_json_format_fields(tree: Path) -> None:
    code, out, _ = run("analyze", str(tree / "buggy.hip"), "-q", "--format", "json")
    doc = json.loads(out)
    f = doc["findings"][0]
    assert set(f) >= {"rule_id", "category", "severity", "confidence", "path", "line", "column", "end_line",
                      "message", "fix"}
    assert (f["rule_id"], f["category"], f["line"], f["column"]) == ("W64-004", "wave64", 3, 16)
    assert doc["files"] == 1


def test_output_file_is_written(tree: Path) -> None:
    report = tree / "out" / "report.json"
    code, out, _ = run("analyze", str(tree / "buggy.hip"), "-q", "--format", "json", "-o", str(report))
    assert code == 1 and out == ""
    assert json.loads(report.read_text())["findings"]


def test_dump_facts(tmp_path: Path) -> None:
    src = tmp_path / "t.hip"
    src.write_text("""#include <hip/hip_runtime.h>
#define WARP_SIZE 32
template <int BLOCK>
__global__ void __launch_bounds__(256) k(float* out) {
  __shared__ float partial[BLOCK / WARP_SIZE];
  partial[threadIdx.x / WARP_SIZE] = __shfl_down(out[threadIdx.x], 16);
}
void go(float* p) { k<256><<<4, 256>>>(p); hipLaunchKernelGGL(k<128>, dim3(2), dim3(128, 1), 0, 0, p); }
""")
    code, out, _ = run("analyze", str(src), "-q", "--dump-facts")
    assert code == 0
    facts = json.loads(out)[0]
    kernels = [(f["name"], f["template_args"], f["launch_bounds"]) for f in facts["functions"] if f["kind"] == "kernel"]
    assert ("k", [["BLOCK", "256"]], [256]) in kernels and ("k", [["BLOCK", "128"]], [256]) in kernels
    dims = sorted(tuple(s["dims"]) for s in facts["shared"] if s["dims"] != [None])
    assert dims == [(4,), (8,)]
    lit = [l for l in facts["literals"] if l["macro"] == "WARP_SIZE"]
    assert lit and lit[0]["value"] == 32 and lit[0]["loc"]["line"] == 5
    assert any(l["value"] == 16 and l["loc"]["line"] == 6 and l["loc"]["col"] == 68 for l in facts["literals"])
    assert sorted(tuple(l["block_dims"]) for l in facts["launches"]) == [(128, 1, 1), (256, 1, 1)]
    assert {c["name"] for c in facts["cross_lane"]} == {"__shfl_down"}
    assert any(m["name"] == "WARP_SIZE" and m["value"] == 32 for m in facts["macros"])


def test_rules_command() -> None:
    code, out, _ = run("rules")
    assert code == 0 and "W64-001" in out
    code, out, _ = run("rules", "W64-003")
    assert code == 0
    for section in ("What it finds and why it is wrong on gfx942", "Fix", "Bad", "Good", "References"):
        assert section in out
    code, _, err = run("rules", "NOPE-1")
    assert code == 2 and "unknown rule" in err


def test_usage_errors_exit_2(tree: Path) -> None:
    assert run("analyze", str(tree), "--format", "xml")[0] == 2
    assert run("analyze", str(tree), "--select", "ZZZ")[0] == 2
    assert run("analyze")[0] == 2


def test_readme_rule_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("<!-- rules-table")
    table = readme[readme.index("\n", start) + 1:readme.index("<!-- end rules-table -->")]
    assert table == run("rules", "--table")[1], "regenerate the README table with `porter rules --table`"


def test_analyze_does_not_import_torch_or_tilelang() -> None:
    code = ("import sys; from porter.analysis import Request, analyze_one; from porter.frontend_config import make_config;"
            f"r = analyze_one(Request(path={str(MASKS)!r}, config=make_config(), target='gfx942'));"
            "assert r.findings; bad = [m for m in ('torch', 'tilelang') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_real_console_script_exit_code(tree: Path) -> None:
    exe = Path(sys.executable).parent / "porter"
    res = subprocess.run([str(exe), "analyze", str(tree / "buggy.hip"), "-q"], capture_output=True, text=True)
    assert res.returncode == 1 and "W64-004" in res.stdout


MACRO_KERNEL = """#include <hip/hip_runtime.h>
#include "width.h"
__global__ void k(int* out) {
#ifdef OLD_MASKS
  unsigned m = __ballot(out[threadIdx.x] > 0);
  out[0] = (int)m;
#endif
  out[1] = __shfl_down_sync(MASK, out[threadIdx.x], 1);
}
"""


def test_include_dirs_defines_and_compile_database(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "width.h").write_text("#define MASK 0xffffffff\n")
    src = tmp_path / "k.hip"
    src.write_text(MACRO_KERNEL)
    code, out, err = run("analyze", str(src), "-q", "-I", str(inc))
    assert [line.split()[1] for line in out.splitlines()] == ["W64-003"] and "not found" not in err
    code, out, _ = run("analyze", str(src), "-q", "-I", str(inc), "-D", "OLD_MASKS")
    assert sorted(line.split()[1] for line in out.splitlines()) == ["W64-003", "W64-004"]
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(tmp_path), "file": "k.hip",
                               "command": "hipcc -Iinc -DOLD_MASKS -O3 -c k.hip -o k.o"}]))
    code, out, _ = run("analyze", str(src), "-q", "-p", str(db))
    assert sorted(line.split()[1] for line in out.splitlines()) == ["W64-003", "W64-004"]
