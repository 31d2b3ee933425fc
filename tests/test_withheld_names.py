"""A file that includes text from outside the analyzed folders has its diagnostics withheld, all but the
undeclared names it spells itself and clang's fixed reports that a constant expression is none, with the notes
that say it reads warpSize through a call on the file's line (frontend._Extractor._withheld, _notes): rules read
those as evidence (C10_WARP_SIZE in host code with PyTorch's headers missing, QUDA's device::warp_size() where a
constant is needed), and they quote nothing from outside."""

from __future__ import annotations

from pathlib import Path

from porter.analysis import Options, analyze

# The project layout of many extensions: kernels in one folder, shared headers in a sibling found through -I.
COMMON = "#pragma once\n#define LEAKED_NAME PORTER_OUTSIDE_7f3a\n"
KERNEL = """#include <hip/hip_runtime.h>
#include <c10/macros/Macros.h>
#include "common/defs.h"
__global__ void rows(float* y) { y[threadIdx.x] = 0.0f; }
void launch(float* y, int n) {
  int width = n < C10_WARP_SIZE ? n : C10_WARP_SIZE;
  rows<<<1, width>>>(y);
}
int leak() { return LEAKED_NAME; }
"""


def _report(tmp_path: Path, dump_facts: bool = False):  # type: ignore[no-untyped-def]
    (tmp_path / "common").mkdir()
    (tmp_path / "kernels").mkdir()
    (tmp_path / "common" / "defs.h").write_text(COMMON)
    (tmp_path / "kernels" / "k.cu").write_text(KERNEL)
    return analyze([str(tmp_path / "kernels")], Options(include_dirs=(str(tmp_path),),
                                                                      dump_facts=dump_facts))


def test_a_host_width_macro_is_found_in_a_file_that_includes_a_sibling_folder(tmp_path: Path) -> None:
    """clang's undeclared C10_WARP_SIZE survives the withholding: W64-011 at both host uses of line 6."""
    report = _report(tmp_path)
    assert sorted((f.rule_id, f.line) for f in report.findings if f.rule_id == "W64-011") == [("W64-011", 6)] * 2


def test_a_name_only_the_outside_text_spells_stays_withheld(tmp_path: Path) -> None:
    """LEAKED_NAME expands to a name written only in the outside header: that diagnostic says nothing of it."""
    report = _report(tmp_path, dump_facts=True)
    messages = [d["message"] for r in report.results for d in (r.facts or {}).get("diagnostics", [])]
    assert "use of undeclared identifier 'C10_WARP_SIZE'" in messages
    assert not any("PORTER_OUTSIDE" in m for m in messages) and any("withheld" in m for m in messages)


WIDTH = "#pragma once\nconstexpr int dev_wave() { int PORTER_OUTSIDE_w = warpSize; return PORTER_OUTSIDE_w; }\n"
WIDTH_KERNEL = """#include <hip/hip_runtime.h>
#include "common/width.h"
__global__ void rows(float* y) {
  constexpr int lanes = dev_wave();
  y[threadIdx.x % lanes] = 0.0f;
}
"""


def test_a_constant_that_reads_warpsize_in_a_sibling_folder_is_found(tmp_path: Path) -> None:
    """clang's fixed constant-expression report and its notes (a read of warpSize, the call on the file's line)
    survive the withholding: W64-010 at the call; nothing the outside header spells is kept."""
    (tmp_path / "common").mkdir()
    (tmp_path / "kernels").mkdir()
    (tmp_path / "common" / "width.h").write_text(WIDTH)
    (tmp_path / "kernels" / "k.cu").write_text(WIDTH_KERNEL)
    report = analyze([str(tmp_path / "kernels")], Options(include_dirs=(str(tmp_path),)))
    assert [(f.rule_id, f.line) for f in report.findings if f.rule_id == "W64-010"] == [("W64-010", 4)]
    facts = analyze([str(tmp_path / "kernels")], Options(include_dirs=(str(tmp_path),), dump_facts=True))
    kept = [str(d) for r in facts.results for d in (r.facts or {}).get("diagnostics", [])]
    assert kept and not any("PORTER_OUTSIDE" in k for k in kept)
