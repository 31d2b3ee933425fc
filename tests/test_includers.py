"""A header is analyzed in its includer's context (porter/includers.py): the #include and #define lines a source
file of its tree says before including it are read first, so that a project's compatibility macros apply; each
header is still analyzed and reported once."""

from __future__ import annotations

from pathlib import Path

from porter.analysis import Options, Request, analyze, with_includer_contexts
from porter.frontend_config import make_config
from porter.includers import Scanner, directives

COMPAT = """#pragma once
#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)
"""
HEADER = """#pragma once
__device__ inline float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 2));
  return fmaxf(v, __shfl_xor_sync(0xffffffff, v, 1));
}
"""
SOURCE = """#include <hip/hip_runtime.h>
#include "compat.cuh"
#include "missing/nowhere.h"
#include "quant.cuh"
__global__ void k(const float* x, float* y) {{ y[threadIdx.x] = quad_max(x[threadIdx.x]){extra}; }}
"""


def _tree(root: Path, source: str = SOURCE.format(extra="")) -> Path:
    (root / "compat.cuh").write_text(COMPAT)
    (root / "quant.cuh").write_text(HEADER)
    (root / "quant.cu").write_text(source)
    return root


def _w64_003(paths: list[str], **options: object) -> list[tuple[str, int]]:
    report = analyze(paths, Options(select=("W64-003",), **options))  # type: ignore[arg-type]
    return [(Path(f.path).name, f.line) for f in report.findings]


def test_directives_keep_preprocessor_lines_only() -> None:
    text = (b'#define A(x) \\\n  (x + 1)\n/* #define HIDDEN 1\n */ int y;\n  #  include "a.h" // why\n'
            b'const char* s = "#define NOT 1";\n#if X\n#pragma once\n#endif\n')
    got = [(d.kind, d.text, d.line, d.include) for d in directives(text)]
    assert got == [("define", "#define A(x)    (x + 1)", 1, None),
                   ("include", '#  include "a.h"', 5, ("a.h", False)),
                   ("if", "#if X", 7, None), ("endif", "#endif", 9, None)]


def test_a_header_alone_is_read_after_its_includers_macros(tmp_path: Path) -> None:
    """The compatibility macro maps the *_sync shuffle to the mask-less one: no 32-bit mask is left, whether the
    header is analyzed alone (its folder is its tree) or with its includer, and it is reported once."""
    _tree(tmp_path)
    assert _w64_003([str(tmp_path / "quant.cuh")]) == []
    assert _w64_003([str(tmp_path)]) == []


def test_an_includer_that_maps_nothing_leaves_the_findings(tmp_path: Path) -> None:
    _tree(tmp_path, SOURCE.replace('#include "compat.cuh"\n', "#define GROUP 4\n").format(extra=""))
    assert _w64_003([str(tmp_path)]) == [("quant.cuh", 3), ("quant.cuh", 4)]


def test_findings_in_a_header_are_reported_once(tmp_path: Path) -> None:
    """The includer's own findings stay its own; the header's lines are reported by the header only."""
    _tree(tmp_path, SOURCE.replace('#include "compat.cuh"\n', "#define GROUP 4\n").format(
        extra=" + __shfl_xor_sync(0xffffffff, x[0], 1)"))
    (tmp_path / "other.cu").write_text('#define OTHER 1\n#include "quant.cuh"\n')
    assert _w64_003([str(tmp_path)]) == [("quant.cu", 5), ("quant.cuh", 3), ("quant.cuh", 4)]


def test_explain_names_the_includer_context(tmp_path: Path) -> None:
    _tree(tmp_path)
    report = analyze([str(tmp_path / "quant.cuh")], Options(explain=True))
    assert any("context of its includer" in n and "quant.cu" in n and "line 4" in n for n in report.notes), \
        report.notes
    # the include that is found nowhere is left out of the context: no note of a missing file
    assert not any("nowhere.h" in n for n in report.notes), report.notes


def test_context_choice(tmp_path: Path) -> None:
    """The header's own source wins over others; an includer whose earlier includes already read the header
    (its guard would hide the text) is passed over; a context that says nothing new is no context; an include
    inside conditionals gets them closed."""
    (tmp_path / "h.cuh").write_text("#pragma once\n#include \"base.cuh\"\n")
    (tmp_path / "base.cuh").write_text("#pragma once\n")
    (tmp_path / "wrap.cuh").write_text('#include "h.cuh"\n')
    (tmp_path / "a.cu").write_text('#define FROM_A 1\n#include "h.cuh"\n')
    (tmp_path / "h.cu").write_text('#ifdef USE_ROCM\n#define FROM_H 1\n#include "h.cuh"\n#endif\n')
    (tmp_path / "z.cu").write_text('#include "wrap.cuh"\n#define FROM_Z 1\n#include "h.cuh"\n')
    (tmp_path / "g.cuh").write_text('#pragma once\n#include "base.cuh"\n')
    (tmp_path / "g.cu").write_text('#include <cstdint>\n#include "base.cuh"\n#include "g.cuh"\n')
    got = Scanner([]).contexts([str(tmp_path / "h.cuh"), str(tmp_path / "g.cuh")])
    assert set(got) == {str(tmp_path / "h.cuh")}
    ctx = got[str(tmp_path / "h.cuh")]
    assert (Path(ctx.includer).name, ctx.line) == ("h.cu", 3)
    assert ctx.text == "#ifdef USE_ROCM\n#define FROM_H 1\n#endif\n"
    (tmp_path / "h.cu").unlink()
    ctx = Scanner([]).contexts([str(tmp_path / "h.cuh")])[str(tmp_path / "h.cuh")]
    assert Path(ctx.includer).name == "a.cu"      # z.cu reads h.cuh through wrap.cuh before its own include


def test_headers_with_a_context_skip_the_shared_preamble(tmp_path: Path) -> None:
    """A shared PCH of the header's leading includes would come before the context: a header read in one is
    not given a shared preamble (and the others still are)."""
    from porter.analysis import with_shared_preambles
    _tree(tmp_path, '#define GROUP 4\n#include "quant.cuh"\n')
    for i in range(4):
        (tmp_path / f"h{i}.cuh").write_text('#include "compat.cuh"\n')
    (tmp_path / "quant.cuh").write_text('#include "compat.cuh"\n' + HEADER)
    config = make_config()
    reqs = [Request(path=str(p), config=config, target="gfx942") for p in sorted(tmp_path.glob("*.cuh"))]
    work = with_shared_preambles(with_includer_contexts(reqs), str(tmp_path))
    by_name = {Path(r.path).name: r.config for r in work}
    assert by_name["h0.cuh"].preamble_includes == 1 and not by_name["h0.cuh"].context
    assert by_name["quant.cuh"].context and by_name["quant.cuh"].preamble_includes == 0


def test_an_inc_fragment_is_analyzed_like_a_header(tmp_path: Path) -> None:
    """A `.inc` file that a source includes mid-file is a header by another name: accepted alone, read in its
    includer's context (the compatibility macro clears it) and reported in its own lines when nothing maps."""
    (tmp_path / "compat.cuh").write_text(COMPAT)
    (tmp_path / "quant.hpp.inc").write_text(HEADER)
    (tmp_path / "quant.cu").write_text(SOURCE.replace('"quant.cuh"', '"quant.hpp.inc"').format(extra=""))
    assert _w64_003([str(tmp_path / "quant.hpp.inc")]) == []
    (tmp_path / "quant.cu").write_text(SOURCE.replace('"quant.cuh"', '"quant.hpp.inc"')
                                       .replace('#include "compat.cuh"\n', "#define GROUP 4\n").format(extra=""))
    assert _w64_003([str(tmp_path / "quant.hpp.inc")]) == [("quant.hpp.inc", 3), ("quant.hpp.inc", 4)]


def test_a_header_behind_a_routing_header_gets_its_context(tmp_path: Path) -> None:
    """No source includes impl/ops.cuh itself: route.cuh includes the project's macros first, then it, so
    ops.cuh is read after route.cuh's lines (themselves after the source's); a header no file includes gets none."""
    (tmp_path / "impl").mkdir()
    (tmp_path / "macros.cuh").write_text("#pragma once\n#define DEV __device__\n")
    (tmp_path / "route.cuh").write_text('#pragma once\n#include "macros.cuh"\n#ifdef __HIPCC__\n'
                                        '#include "impl/ops.cuh"\n#endif\n')
    (tmp_path / "impl" / "ops.cuh").write_text("#pragma once\nDEV inline int twice(int x) { return 2 * x; }\n")
    (tmp_path / "impl" / "alone.cuh").write_text("#pragma once\n")
    (tmp_path / "main.cu").write_text('#define FROM_MAIN 1\n#include "route.cuh"\n')
    ops, alone = str(tmp_path / "impl" / "ops.cuh"), str(tmp_path / "impl" / "alone.cuh")
    got = Scanner([str(tmp_path)]).contexts([ops, alone])      # the -I folder above both is their tree
    assert set(got) == {ops}
    ctx = got[ops]
    assert (Path(ctx.includer).name, ctx.line) == ("route.cuh", 4)
    assert ctx.text == '#define FROM_MAIN 1\n#include "macros.cuh"\n#ifdef __HIPCC__\n#endif\n'


def test_a_header_that_reads_it_again_later_is_no_context(tmp_path: Path) -> None:
    """atomic.hpp defines its switch, then includes impl/generic.hpp (whose text sits under that switch), then
    impl/load.hpp, which includes impl/generic.hpp again: through load.hpp the header's guard is already set and its
    text is hidden, so it is read in atomic.hpp's context, though load.hpp sits in its folder."""
    (tmp_path / "impl").mkdir()
    (tmp_path / "impl" / "generic.hpp").write_text(
        "#if defined(ATOMIC_HPP) && !defined(GENERIC_HPP)\n#define GENERIC_HPP\nint generic();\n#endif\n")
    (tmp_path / "impl" / "load.hpp").write_text('#pragma once\n#define LOAD 1\n#include "generic.hpp"\n')
    (tmp_path / "atomic.hpp").write_text('#pragma once\n#define ATOMIC_HPP\n#include "impl/generic.hpp"\n'
                                         '#include "impl/load.hpp"\n')
    (tmp_path / "main.cpp").write_text('#include "atomic.hpp"\n')
    generic = str(tmp_path / "impl" / "generic.hpp")
    ctx = Scanner([str(tmp_path)]).contexts([generic])[generic]
    assert (Path(ctx.includer).name, ctx.line) == ("atomic.hpp", 3)
    assert ctx.text == "#define ATOMIC_HPP\n"


def test_a_header_pasted_into_a_generated_one_is_read_after_the_lines_above_its_copy(tmp_path: Path) -> None:
    """A build script writes defs.h, then reducer.h, into all.hpp, which the sources include instead: nothing
    includes reducer.h, and its copy in all.hpp compiles after defs.h's #define lines, so it is read after them
    (with a W64-003 on the 60-lane mask FULL_MASK defined there), and defs.h after all.hpp's USE_HIP; a header whose
    text no other holds gets none."""
    defs = ("#pragma once\n#if defined(USE_HIP)\n#define FULL_MASK 0xFFFFFFFFFFFFFFF\n#else\n"
            "#define FULL_MASK 0xFFFFFFFF\n#endif\n")
    reducer = ("/* reducer */\n#ifndef REDUCER_H\n#define REDUCER_H\n__device__ inline float warp_sum(float v)\n{\n"
               "   for (int o = warpSize / 2; o > 0; o /= 2)\n      v += __shfl_down_sync(FULL_MASK, v, o);\n"
               "   return v;\n}\n#endif\n")
    (tmp_path / "defs.h").write_text(defs)
    (tmp_path / "reducer.h").write_text(reducer)
    (tmp_path / "all.hpp").write_text("#pragma once\n#include <hip/hip_runtime.h>\n#define USE_HIP 1\n"
                                      + defs + "/* generated */\n" + reducer)
    (tmp_path / "main.cu").write_text('#include "all.hpp"\n')
    (tmp_path / "lone.h").write_text("#pragma once\n#define LONE 1\n#define LONE_A 2\n#define LONE_B 3\n"
                                     "#define LONE_C 4\n#define LONE_D 5\n")
    got = Scanner([str(tmp_path)]).contexts([str(tmp_path / n) for n in ("reducer.h", "defs.h", "lone.h")])
    assert set(got) == {str(tmp_path / "reducer.h"), str(tmp_path / "defs.h")}
    assert (got[str(tmp_path / "defs.h")].line, got[str(tmp_path / "defs.h")].text) == (4, "#define USE_HIP 1\n")
    ctx = got[str(tmp_path / "reducer.h")]
    assert (Path(ctx.includer).name, ctx.line) == ("all.hpp", 11)
    assert "#define FULL_MASK 0xFFFFFFFFFFFFFFF" in ctx.text and "REDUCER_H" not in ctx.text
    assert _w64_003([str(tmp_path / "reducer.h")]) == [("reducer.h", 7)]


def test_a_source_included_by_another_source_gets_its_context(tmp_path: Path) -> None:
    """kernels.cu is compiled only through main.cu, which defines the switch its text sits under and includes
    the header of its macros first: analyzed alone, it is read after those lines, and reported once; a source
    that no source includes gets no context."""
    (tmp_path / "defs.h").write_text("#pragma once\n#include <hip/hip_runtime.h>\n#define WARP_SIZE 32\n")
    (tmp_path / "kernels.cu").write_text(
        "#ifdef MY_APP\n__global__ void count(const int* f, unsigned* out) {\n"
        "  unsigned m = __ballot(f[threadIdx.x] > 0);\n"
        "  if (threadIdx.x % WARP_SIZE == 0) out[threadIdx.x / WARP_SIZE] = __popc(m);\n}\n#endif\n")
    (tmp_path / "main.cu").write_text('#define MY_APP\n#include "defs.h"\n#include "kernels.cu"\n'
                                      "int main() { return 0; }\n")
    (tmp_path / "alone.cu").write_text("#define OTHER 1\nint f() { return 1; }\n")
    got = Scanner([]).contexts([str(tmp_path / "kernels.cu"), str(tmp_path / "alone.cu")])
    assert set(got) == {str(tmp_path / "kernels.cu")}
    assert (Path(got[str(tmp_path / "kernels.cu")].includer).name, got[str(tmp_path / "kernels.cu")].line) == \
        ("main.cu", 3)
    report = analyze([str(tmp_path / "kernels.cu")], Options(select=("W64-004",)))
    assert [(Path(f.path).name, f.line) for f in report.findings] == [("kernels.cu", 3)]
    report = analyze([str(tmp_path)], Options(select=("W64-004",)))
    assert [(Path(f.path).name, f.line) for f in report.findings] == [("kernels.cu", 3)]
