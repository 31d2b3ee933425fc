"""A mutation check of the verifier (issue #12): semantic mutations planted in the float64 reference of modules
generated for the families' samples must each make `porter verify --original` fail on the CPU, where the original runs
on the wave64 emulator and is compared with the (mutated) reference. Kill rate 100%, asserted; the unmutated
modules must pass, or a kill would mean nothing.

The modules are `porter convert`'s own output for the samples (porter/families/*/samples/golden, ORIGINAL included),
except attention: convert refuses both attention samples, so the mask and softmax-scale mutations use a module
rendered from the attention template with a hand-written ORIGINAL (tests/verify_originals.py). Each copy checks
the module's first test shape only (5 seeds), to keep the emulator time down."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import verify_originals as vo
from porter import families
from porter.cli import main

pytestmark = [pytest.mark.toolchain, pytest.mark.slow]

ATTENTION = "attention/attention_causal_tiled.hip"
# (name, sample, text in the generated module, replacement): each text occurs once, inside the reference
MUTATIONS = [
    ("dropped scale", "elementwise/saxpy_rows.hip", "return y0 + x * scale", "return y0 + x"),
    ("dropped accumulation into the output", "elementwise/saxpy_rows.hip", "return y0 + x * scale",
     "return x * scale"),
    ("dropped softmax scale", ATTENTION,
     'scores = (q @ k.transpose(-1, -2)) * case["scale"]', "scores = (q @ k.transpose(-1, -2))"),
    ("missing causal mask", ATTENTION, 'scores = scores.masked_fill(~keep, float("-inf"))', "scores = scores"),
    ("off-by-one mask", ATTENTION, "device=q.device).tril()", "device=q.device).tril(1)"),
    ("wrong eps", "layernorm/layernorm_naive.hip", 'torch.sqrt(var + case["eps"])',
     'torch.sqrt(var + 1000 * case["eps"])'),
    ("transposed operand", "transpose/transpose_naive.hip",
     'return case["x"].double().t()', 'return case["x"].double().reshape(case["x"].shape[1], -1)'),
    ("wrong accumulation", "gemm/gemm_tiled.hip", '+ case["beta"] * case["C0"].double()',
     '+ case["C0"].double()'),
    ("wrong activation", "elementwise/bias_act_shared.hip", "return torch.relu(x + bias) * scale",
     "return torch.nn.functional.gelu(x + bias) * scale"),
    ("wrong reduction", "row_reduce/row_reduce_naive.hip", "return x.sum(dim=1)", "return x.mean(dim=1)"),
    ("dropped row-softmax scale", "softmax/softmax_scale_mask.hip", ' * case["scale"]', ""),
    ("dropped additive mask", "softmax/softmax_scale_mask.hip", ' + case["mask"].to(dtype)', ""),
    ("wrong threshold", "row_reduce/row_count_above.hip", '(x > case["threshold"])', '(x > case["threshold"] + 0.25)'),
    ("counted >= for >", "row_reduce/row_count_above.hip", '(x > case["threshold"])', '(x >= case["threshold"])'),
    ("attention scale fixed to 1/sqrt(d)", "attention/attention_bhsd.hip",
     'scores = (q @ k.transpose(-1, -2)) * case["scale"]', "scores = (q @ k.transpose(-1, -2)) / HEAD_DIM ** 0.5"),
    ("off-by-one key loop (last key dropped)", "attention/attention_bhsd.hip",
     "return torch.softmax(scores, dim=-1) @ v", "return torch.softmax(scores[..., :-1], dim=-1) @ v[..., :-1, :]"),
]
SAMPLES = sorted({m[1] for m in MUTATIONS})
FIRST_SHAPE = "\nTEST_SHAPES = TEST_SHAPES[:1]\n"


def _module_text(sample: str, name: str) -> str:
    if sample == ATTENTION:
        return vo.module_text(sample, name) + FIRST_SHAPE
    golden = families.golden(families.sample(sample))
    text = golden.read_text()
    assert "\nORIGINAL = {" in text, f"{golden}: no ORIGINAL mapping"
    return text + FIRST_SHAPE


def _verify(module: Path, sample: str, out: Path) -> tuple[int, dict]:
    res = CliRunner().invoke(main, ["verify", str(module), "--no-compile", "--original",
                                    str(families.sample(sample)), "-o", str(out)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res.exit_code, json.loads(out.read_text())["reports"][0]


def _reference_span(text: str) -> tuple[int, int]:
    start = text.index("\ndef reference(")
    helper = text.find("\ndef _epilogue(")  # elementwise: the reference's body lives in _epilogue
    start = helper if 0 <= helper < start else start
    return start, text.index("\nTORCH_DTYPES", start)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict]]:
    d = tmp_path_factory.mktemp("mutants")
    out: dict[str, tuple[int, dict]] = {}
    for sample in SAMPLES:
        name = "ctl_" + Path(sample).stem
        out[sample] = _verify(vo.write(sample, d, name, _module_text(sample, name)), sample, d / f"{name}.json")
    for i, (label, sample, old, new) in enumerate(MUTATIONS):
        name = f"mut{i}_" + Path(sample).stem
        text = _module_text(sample, name)
        a, b = _reference_span(text)
        assert text.count(old) == 1 and a < text.index(old) < b, \
            f"{label}: '{old}' is not in the reference of the module generated for {sample}: update the mutation"
        out[label] = _verify(vo.write(sample, d, name, text.replace(old, new)), sample, d / f"{name}.json")
    return out


def test_unmutated_modules_agree_with_their_originals(results) -> None:
    for sample in SAMPLES:
        code, rep = results[sample]
        orig = rep["numerics"]["original"]
        assert code == 0 and orig["status"] == "pass", (sample, orig.get("reason"), orig["cases"][:1])
        assert orig["runner"] == "emulator" and orig["wave_size"] == 64


def test_kill_rate_is_100_percent(results) -> None:
    killed, survived = [], []
    for label, sample, _, _ in MUTATIONS:
        code, rep = results[label]
        orig = rep["numerics"]["original"]
        if code == 1 and orig["status"] == "fail" and rep["verdict"].startswith("failed"):
            killed.append(label)
            first = next(c for c in orig["cases"] if c["ok"] is False)
            diff = first["first_difference"]
            # the first differing element: where, and both values
            assert diff["index"] is not None and diff["got"] != diff["want"], (label, first)
        else:
            survived.append((label, code, orig["status"]))
    assert not survived, f"mutations the verifier missed: {survived}"
    assert len(killed) == len(MUTATIONS) >= 6
