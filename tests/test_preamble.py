"""Shared preambles (porter/preamble.py, frontend._parse_preamble) are a speed-up only: files whose leading
includes are precompiled once per run must be analyzed exactly as when each file parses its headers itself."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from porter import frontend, preamble
from porter.analysis import Request, analyze_one, run
from porter.frontend_config import make_config

COMMON = """#pragma once
#include <mutex>
#include "detail.h"
#define WS 32
#define FULL_MASK 0xffffffffu
__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
  return v;
}
"""
DETAIL = "#pragma once\n#define LANES_PER_ROW WS\n"
KERNEL = """// a kernel of the project
#include "common.h"

__global__ void k{i}(const float* x, float* out) {{
  __shared__ float tile[WS][WS];
  float v = warp_sum(x[threadIdx.x]);
  unsigned m = __ballot_sync(FULL_MASK, v > 0.0f);
  tile[threadIdx.x % WS][threadIdx.x / LANES_PER_ROW] = v;
  if (threadIdx.x % WS == 0) out[blockIdx.x] = tile[0][threadIdx.x / WS] + __popc(m) + PROJECT_FLAG;
}}
"""


def _project(root: Path) -> tuple[list[str], object]:
    """Four kernels sharing `#include "common.h"` (from an include folder outside theirs), one of them with a
    parse error, and a fifth whose first include is missing."""
    inc, src = root / "include", root / "src"
    inc.mkdir()
    src.mkdir()
    (inc / "common.h").write_text(COMMON)
    (inc / "detail.h").write_text(DETAIL)
    for i in range(4):
        (src / f"k{i}.hip").write_text(KERNEL.format(i=i) + ("int broken = ;\n" if i == 3 else ""))
    for i in range(4, 8):
        (src / f"m{i}.hip").write_text('#include "missing.h"\n' + KERNEL.format(i=i))
    config = make_config(include_dirs=[str(inc)], defines=["PROJECT_FLAG=2"])
    return sorted(str(p) for p in src.iterdir()), config


def _comparable(result: object) -> dict:
    out = dataclasses.asdict(result)  # type: ignore[call-overload]
    out.pop("seconds")
    return out


def test_leading_includes_stop_at_the_first_other_line() -> None:
    text = b'#pragma once\r\n/* licence\n text */\n#include "a.h"  // why\n\n#include <b>\nint x;\n#include "c.h"\n'
    spans = preamble.leading_includes(text)
    assert [text[a:b] for a, b in spans] == [b'#include "a.h"', b"#include <b>"]
    blank = preamble.blanked(text, spans)
    assert blank.split(b"\n") == [b"#pragma once\r", b"/* licence", b" text */", b" " * 14 + b"  // why", b"",
                                  b" " * 12, b"int x;", b'#include "c.h"', b""]
    assert preamble.leading_includes(b"#include MACRO\n#include <a>\n") == []
    assert preamble.leading_includes(b'// continued \\\n#include "a.h"\n') == []


def test_only_prefixes_that_enough_files_share_and_porter_lacks_are_chosen() -> None:
    heads = {f"d/{i}.hip": b'#include <vector>\n#include "common.h"\n' + (b'#include "x.h"\n' if i < 4 else b"")
             for i in range(6)}
    heads |= {f"d/s{i}.hip": b"#include <hip/hip_runtime.h>\n#include <cmath>\n" for i in range(5)}
    heads |= {f"e/{i}.hip": b'#include "common.h"\n' for i in range(3)}
    chosen = preamble.choose(heads, heads.get)
    assert chosen == {**{f"d/{i}.hip": (3, "") for i in range(4)}, "d/4.hip": (2, ""), "d/5.hip": (2, "")}


def _own_headers(root: Path) -> list[str]:
    """ggml's shape: each kernel file's first include is its own header, which starts with the shared one."""
    (root / "common.cuh").write_text(COMMON.replace('#include "detail.h"', ""))
    # without `#pragma once` a header would be read again after the PCH's copy: k4.cuh's include is not taken
    (root / "unguarded.cuh").write_text('#include "common.cuh"\n')
    (root / "k4.cuh").write_text('#pragma once\n#include "unguarded.cuh"\n')
    for i in range(5):
        if i < 4:
            (root / f"k{i}.cuh").write_text(f'#pragma once\n#include "common.cuh"\n#define LANES_PER_ROW {8 * (i + 1)}\n')
        (root / f"k{i}.hip").write_text(f'#include "k{i}.cuh"\n' + KERNEL.format(i=i))
    return sorted(str(p) for p in root.glob("*.hip"))


def test_a_file_shares_the_includes_of_its_own_header(tmp_path: Path) -> None:
    files = _own_headers(tmp_path)
    chosen = preamble.choose(files, preamble.head)
    assert chosen == {f: (1, f"k{i}.cuh") for i, f in enumerate(files[:4])}
    config = make_config(defines=["PROJECT_FLAG=2", "WS=32"])
    requests = [Request(path=f, config=config, target="gfx942", dump_facts=True, explain=True) for f in files]
    alone = [_comparable(analyze_one(r)) for r in requests]
    assert [_comparable(r) for r in run(requests, 2, 120.0)] == alone
    assert all({f["rule_id"] for f in r["findings"]} >= {"W64-003"} for r in alone)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    through = dataclasses.replace(config, preamble_dir=str(scratch), preamble_includes=1, preamble_through="k0.cuh")
    got = frontend._parse_preamble(Path(files[0]), through, Path(files[0]).read_bytes())
    assert got is not None and got[1].included[0] == str(tmp_path / "common.cuh")
    # the header named is no longer the file's first include: parsed the usual way
    assert frontend._parse_preamble(Path(files[1]), through, Path(files[1]).read_bytes()) is None


def test_a_shared_preamble_changes_nothing_in_the_analysis(tmp_path: Path) -> None:
    files, config = _project(tmp_path)
    requests = [Request(path=f, config=config, target="gfx942", dump_facts=True, explain=True) for f in files]
    alone = [_comparable(analyze_one(r)) for r in requests]
    shared = [_comparable(r) for r in run(requests, 2, 120.0)]
    assert shared == alone
    k0 = next(r for r in alone if r["path"].endswith("k0.hip"))
    assert {f["rule_id"] for f in k0["findings"]} >= {"W64-003"}
    assert any("withheld" in d["message"] for r in alone if r["path"].endswith("k3.hip")
               for d in r["facts"]["diagnostics"])
    assert all(any(":1:10: error" in n for n in r["notes"]) for r in alone if "/m" in r["path"])


def test_the_preamble_pch_is_used_where_it_can_be(tmp_path: Path) -> None:
    files, config = _project(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    shared = dataclasses.replace(config, preamble_dir=str(scratch), preamble_includes=1)
    k0, m4 = files[0], files[4]
    assert frontend._parse_preamble(Path(k0), shared, Path(k0).read_bytes()) is not None
    # a missing header is the file's own diagnostic: that preamble is refused and the file parsed as usual
    assert frontend._parse_preamble(Path(m4), shared, Path(m4).read_bytes()) is None
    assert len(list(scratch.glob("*.pch"))) == 1 and len(list(scratch.glob("*.json"))) == 2
