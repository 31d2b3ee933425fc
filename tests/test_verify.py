"""`porter verify` on a CPU machine (CI runs `porter toolchain setup` first): the gfx942 code-object section of
rendered gemm and softmax modules, the exact no-GPU wording, an LDS overflow failing the check, and the JSON
report's schema. tilelang and the gfx942 toolchain are hard requirements here: a missing one fails, never skips."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import verify_originals as vo
from porter import families
from porter.cli import main
from porter.convert import render, write_module

import tilelang  # noqa: F401  (must be installed: verify lowers with it)

pytestmark = [pytest.mark.toolchain, pytest.mark.slow]

SOURCE = {"file": "samples/kernels/x.hip", "kernel": "k", "line": 1}
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("verify")
    out = {}
    out["gemm"] = vo.write("gemm/gemm_f16_tiled.hip", d, "vgemm")
    text = render("softmax", {"kernel_name": "vsoftmax"}, target="gfx942", source_info=SOURCE)
    out["softmax"] = write_module(text, d / "vsoftmax.py")
    # gemm whose gfx942 config needs 2 x 256x128 fp16 tiles = 128 KiB of LDS, over gfx942's 64 KiB
    text = render("gemm", {"dtype": "float16", "kernel_name": "vbig"}, target="gfx942", source_info=SOURCE)
    text, n = re.subn(r"'gfx942': \{'block_M': 128, 'block_N': 128, 'block_K': 32",
                      "'gfx942': {'block_M': 256, 'block_N': 256, 'block_K': 128", text, count=1)
    assert n == 1, "the rendered gemm's CONFIGS line changed: update this test"
    out["big"] = write_module(text, d / "vbig.py")
    return out


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["verify", *args])
    return res.exit_code, res.output


@pytest.fixture(scope="module")
def gemm_json(modules, tmp_path_factory) -> tuple[int, dict, str]:
    out = tmp_path_factory.mktemp("rep") / "r.json"
    code, text = _run(str(modules["gemm"]), "--original", str(families.sample("gemm/gemm_f16_tiled.hip")),
                      "-o", str(out))
    return code, json.loads(out.read_text()), text


def test_gemm_compiles_for_gfx942_with_mfma_and_no_spills(gemm_json) -> None:
    code, rep, text = gemm_json
    assert code == 0, text
    r = rep["reports"][0]
    comp = r["compile"]
    assert comp["status"] == "ok" and comp["errors"] == []
    k = comp["kernel"]
    assert k["arch"] == "gfx942" and k["wavefront_size"] == 64
    assert k["instructions"]["mfma"] > 0
    assert k["vgpr_spills"] == 0 and k["sgpr_spills"] == 0
    assert 0 < k["lds_bytes"] <= 65536
    # TileLang's shared memory is dynamic: it must be counted, not just the code object's static LDS
    assert k["dynamic_lds_bytes"] > 0 and k["lds_bytes"] == k["static_lds_bytes"] + k["dynamic_lds_bytes"]
    assert 1 <= k["occupancy"] <= 8
    # the original, side by side: same toolchain, real facts
    orig = comp["original"]
    assert orig["status"] == "ok" and orig["kernel"]["name"].startswith("gemm_f16_tiled")
    assert "original (hipified)" in text and "generated (TileLang)" in text and "MFMA" in text


@pytest.mark.gpu
def test_numerics_ran_on_the_gpu_present_or_say_exactly_that_there_is_none(gemm_json) -> None:
    _, rep, text = gemm_json
    r = rep["reports"][0]
    if r["gpu"]["present"]:   # the module's own cases ran on it: at least 5 seeds, every one passed
        assert r["numerics"]["status"] == "pass", r["numerics"]
        assert len(r["numerics"]["cases"]) >= 5 and all(c.get("ok") for c in r["numerics"]["cases"])
        assert r["verdict"].startswith(("verified", "numerics pass")), r["verdict"]
        return
    assert r["numerics"]["status"] == "not run"
    assert r["numerics"]["text"] == "numerics: not run (no GPU)"
    assert "numerics: not run (no GPU)" in text.splitlines()
    assert "pass" not in r["numerics"]["status"] and not r["verdict"].startswith("verified")
    assert r["verdict"].startswith("compiled only")
    assert r["performance"]["status"] == "not run"
    # the fp16 original still ran: on the CPU emulator, wave size 64, every case against the module's reference
    orig = r["numerics"]["original"]
    assert orig["runner"] == "emulator" and orig["status"] == "pass" and len(orig["cases"]) == 15


@pytest.mark.gpu
def test_softmax_compiles_without_mfma_and_fits_lds(modules) -> None:
    code, text = _run(str(modules["softmax"]), "--format", "json")
    assert code == 0, text
    r = json.loads(text[text.index("{"):])["reports"][0]
    k = r["compile"]["kernel"]
    assert r["compile"]["status"] == "ok"
    assert k["vgpr_spills"] == 0 and k["lds_bytes"] <= 65536 and k["instructions"]["mfma"] == 0
    assert r["numerics"]["status"] == "pass" if r["gpu"]["present"] else \
        r["numerics"]["text"] == "numerics: not run (no GPU)", r["numerics"]


def test_lds_over_64k_fails_the_check(modules) -> None:
    code, text = _run(str(modules["big"]))
    assert code == 1, text
    assert "compile gfx942: fail" in text
    assert re.search(r"needs \d+ bytes of LDS, over gfx942's 65536", text)
    assert "verdict: failed: gfx942 compile" in text


def test_code_object_is_built_for_the_target_asked(modules) -> None:
    # the module over gfx942's LDS carries a smaller gfx1100 tile config: built for RDNA3 (wave32) it fits
    code, text = _run(str(modules["big"]), "--compile-for", "gfx1100", "--format", "json")
    assert code == 0, text
    r = json.loads(text[text.index("{"):])["reports"][0]
    assert r["compile"]["target"] == "gfx1100" and r["compile"]["status"] == "ok"
    assert r["compile"]["kernel"]["wavefront_size"] == 32 and r["compile"]["kernel"]["arch"] == "gfx1100"
    assert r["verdict"].startswith("compiled only (gfx1100 code object ok") and "gfx942" not in r["verdict"]


def test_json_report_schema(gemm_json) -> None:
    _, rep, _ = gemm_json
    assert rep["schema"] == "porter.verify/1" and isinstance(rep["reports"], list)
    r = rep["reports"][0]
    for key in ("schema", "porter", "module", "date", "family", "params", "gpu", "target", "compile", "numerics",
                "performance", "verdict", "exit_code"):
        assert key in r, key
    assert r["family"] == "gemm" and r["params"]["dtype"] == "float16"
    comp = r["compile"]
    for key in ("target", "config", "config_name", "shape", "status", "errors", "warnings", "kernel", "kernels",
                "tilelang_shared_memory_bytes"):
        assert key in comp, key
    k = comp["kernel"]
    for key in ("vgprs", "agprs", "sgprs", "vgpr_count", "vgpr_spills", "sgpr_spills", "scratch_bytes",
                "static_lds_bytes", "dynamic_lds_bytes", "lds_bytes", "occupancy"):
        assert isinstance(k[key], int), key
    ins = k["instructions"]
    for key in ("mfma", "ds_read_b128", "scratch", "total"):
        assert isinstance(ins[key], int), key
    assert isinstance(ins["mfma_kinds"], dict) and k["occupancy_limit"] in ("vgprs", "lds", "max-waves", "lds-overflow")
    json.dumps(rep)  # plain JSON all the way down


def test_directory_verifies_every_generated_module(modules) -> None:
    code, text = _run(str(modules["gemm"].parent), "--no-compile", "--format", "json")
    reps = json.loads(text[text.index("{"):])["reports"]
    assert sorted(Path(r["module"]).name for r in reps) == ["vbig.py", "vgemm.py", "vsoftmax.py"]
    assert all(r["compile"]["status"] == "not run" for r in reps)
    assert code == 0


def test_usage_errors(modules, tmp_path) -> None:
    assert _run(str(modules["softmax"]), "--seeds", "2")[0] == 2
    assert _run(str(modules["softmax"]), "--shapes", "M=x")[0] == 2
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    code, text = _run(str(plain))
    assert code == 2 and "not a module written by `porter convert`" in text
    existing = tmp_path / "r.json"
    existing.write_text("{}")
    code, _ = _run(str(modules["softmax"]), "--no-compile", "-o", str(existing))
    assert code == 2 and existing.read_text() == "{}"


def test_without_gpu_the_original_runs_on_the_wave64_emulator(tmp_path) -> None:
    """No GPU: the original kernel, launched by porter from the module's ORIGINAL mapping (no launcher used), runs
    on the CPU emulator at wave size 64 against the module's reference. A wave64-correct original agrees on every
    case; one whose warp reduction assumes 32 lanes is reported as wave64-broken (its wave32 run agrees) and the
    module is judged against that run; the generated kernel is still reported as not run."""
    sample = "row_reduce/row_reduce_naive.hip"
    mod = vo.write(sample, tmp_path, "vrowsum")
    family, params, spec, _ = vo.SAMPLES[sample]
    broken_spec = dict(spec, kernel="row_sum", grid=["M"])
    broken = vo.write(sample, tmp_path, "vrowsum16",
                      vo.module_text(sample, "vrowsum16").replace(repr(dict(spec, file="row_reduce_naive.hip")),
                                                                  repr(broken_spec)))
    reports = {}
    for label, module, original in (("good", mod, families.sample(sample)),
                                    ("bad", broken, ROOT / "tests/data/verify/row_sum_offset16.hip")):
        out = tmp_path / f"{label}.json"
        code, text = _run(str(module), "--no-compile", "--original", str(original), "-o", str(out))
        assert code == 0, text
        reports[label] = (json.loads(out.read_text())["reports"][0], text)
    rep, text = reports["good"]
    num = rep["numerics"]
    assert num["status"] == "not run" and num["text"] == "numerics: not run (no GPU)"
    orig = num["original"]
    assert orig["runner"] == "emulator" and orig["wave_size"] == 64 and orig["status"] == "pass"
    assert orig["kernel"] == "row_reduce_naive<0>" and "wave64_broken" not in orig
    assert len(orig["cases"]) >= 15 and all(c["ok"] for c in orig["cases"])
    assert orig["cases"][0]["launch"] == "row_reduce_naive<0><<<1, 256>>>"
    assert "on the wave64 CPU emulator vs the module's reference: pass" in text
    assert not rep["verdict"].startswith("verified")
    rep, text = reports["bad"]
    orig = rep["numerics"]["original"]
    assert orig["status"] == "pass" and all(c.get("wave64_broken") for c in orig["cases"])
    assert orig["wave64_broken"].startswith("the original is wave64-broken")
    assert "compared with the wave32 run" in text and "wave64-broken" in rep["verdict"]


def test_original_that_disagrees_fails_with_the_first_differing_element(tmp_path) -> None:
    """A module whose reference computes something else than the original fails (exit 1), naming the element."""
    sample = "transpose/transpose_naive.hip"
    text = vo.module_text(sample, "vtr").replace('return case["x"].double().t()',
                                                 'return case["x"].double().t() * 1.001')
    mod = vo.write(sample, tmp_path, "vtr", text)
    out = tmp_path / "r.json"
    code, shown = _run(str(mod), "--no-compile", "--original", str(families.sample(sample)),
                       "-o", str(out))
    assert code == 1, shown
    orig = json.loads(out.read_text())["reports"][0]["numerics"]["original"]
    first = orig["cases"][0]["first_difference"]
    assert first["output"] == "out" and len(first["index"]) == 2
    assert abs(first["want"] - first["got"] * 1.001) < 1e-3 * abs(first["want"]) + 1e-6
    assert "verdict: failed: original vs the module's reference" in shown
    assert f"out[{first['index'][0]}, {first['index'][1]}]" in shown


def test_original_builds_with_its_projects_include_folders_and_defines(tmp_path) -> None:
    """-I and -D reach the original's build: an original that needs a header from another folder and a macro runs
    with both and is not run (the build error names the macro) without the -D; bad values are usage errors."""
    sample = "transpose/transpose_naive.hip"
    mod = vo.write(sample, tmp_path, "vtri")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "tr_project.h").write_text('#ifndef TR_READY\n#error "TR_READY is not defined"\n#endif\n')
    (tmp_path / "src").mkdir()
    orig = tmp_path / "src" / "transpose_naive.hip"
    orig.write_text('#include "tr_project.h"\n' + families.sample(sample).read_text())
    runs = {}
    for label, flags in (("both", ["-I", str(tmp_path / "inc"), "-D", "TR_READY=1"]),
                         ("no_define", ["-I", str(tmp_path / "inc")])):
        out = tmp_path / f"{label}.json"
        code, text = _run(str(mod), "--no-compile", "--original", str(orig), *flags, "-o", str(out))
        runs[label] = (code, json.loads(out.read_text())["reports"][0]["numerics"]["original"])
    code, res = runs["both"]
    assert code == 0 and res["status"] == "pass" and all(c["ok"] for c in res["cases"])
    code, res = runs["no_define"]
    assert res["status"] == "not run" and "TR_READY is not defined" in res["reason"]
    for bad in (["-D", "1X=2"], ["-D", "A B"], ["-I", str(tmp_path / "missing")]):
        code, text = _run(str(mod), "--no-compile", "--original", str(orig), *bad)
        assert code == 2 and "Traceback" not in text, text
    code, text = _run(str(mod), "--no-compile", "-D", "X")
    assert code == 2 and "--original" in text


def test_original_mapping_is_checked_against_the_kernel_signature(tmp_path) -> None:
    """ORIGINAL names a parameter the kernel does not have, or is malformed: a failure that says what, no run."""
    sample = "transpose/transpose_naive.hip"
    good = vo.module_text(sample, "vmap")
    original = str(families.sample(sample))
    cases = {"renamed": (good.replace("'name': 'rows'", "'name': 'nrows'"), "parameter 'rows'"),
             "expression": (good.replace("'grid': [['cdiv', 'N', 32]", "'grid': [['pow', 'N', 32]"),
                            "is not [op, a, b]"),
             "spelling": (good.replace("'kernel': 'transpose_naive'", "'kernel': 'transpose_naive(); x'"),
                          "not a kernel spelling")}
    for label, (text, message) in cases.items():
        mod = vo.write(sample, tmp_path, f"vmap_{label}", text)
        code, shown = _run(str(mod), "--no-compile", "--original", original)
        assert code == 1 and message in shown, (label, shown)


def test_the_library_call_yields_each_modules_report_as_the_command_line_does(modules) -> None:
    from gpu import gpu_present
    from porter.verify import verify

    (out,) = list(verify([modules["softmax"]], compile_for=None))
    path, rep = out
    assert path == Path(modules["softmax"]) and rep["module"].endswith("vsoftmax.py")
    assert rep["compile"]["status"] == "not run" and rep["compile"]["reason"] == "skipped (--no-compile)"
    assert rep["numerics"]["status"] == ("pass" if gpu_present() else "not run"), rep["numerics"]
    assert rep["exit_code"] == 0


@pytest.mark.parametrize("family,params,shape", [
    ("gemm", {"dtype": "float32"}, {"M": 530, "N": 9, "K": 7}),
    ("batched_gemm", {"dtype": "float32"}, {"batch": 3, "M": 520, "N": 5, "K": 6}),
    ("attention", {"dtype": "float32", "head_dim": 16}, {"batch": 2, "heads": 3, "seq_q": 5, "seq_kv": 7}),
])
def test_bench_recheck_slices_the_case_and_the_output_alike(family: str, params: dict, shape: dict,
                                                            tmp_path: Path) -> None:
    """The family's verify hook (porter/families/<family>/verify.py) that the bench re-check uses at large shapes:
    the reference of the sliced case is the same slice of the whole reference."""
    from porter.verify.modules import import_module
    from porter.verify.perf import _reference_slice

    mod = import_module(write_module(render(family, {**params, "kernel_name": f"vs_{family}"}, source_info=SOURCE),
                                     tmp_path / f"vs_{family}.py"))
    case = mod.make_case(shape, 0, "cpu")
    whole = mod.reference(case)
    sub, part = _reference_slice(family, params, case, whole)
    assert sub is not case and sub["_slice"] and part.shape != whole.shape
    assert mod.reference(sub).equal(part)
