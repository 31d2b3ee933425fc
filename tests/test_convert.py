"""porter convert: every sample kernel is recognized as its family and rendered exactly as its golden output;
refusals say why and write nothing; nothing from the input can become code."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from porter.cli import main

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "samples" / "kernels"
SAMPLES = sorted(KERNELS.glob("*/*.hip"))
# fp32 attention has no template; converting it means accepting fp16 compute, said explicitly
EXTRA = {"attention": ["--param", "dtype=float16"]}
UPDATE = os.environ.get("PORTER_UPDATE_GOLDEN") == "1"


def convert(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["convert", *args])
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: str(p.relative_to(KERNELS)))
def test_sample_converts_to_its_family_and_matches_golden(sample: Path, tmp_path: Path) -> None:
    family = sample.parent.name
    code, out, err = convert(str(sample), "-o", str(tmp_path), *EXTRA.get(family, []))
    assert code == 0, out + err
    assert f": {family} " in out, out
    modules = list(tmp_path.glob("*.py"))
    assert len(modules) == 1
    text = modules[0].read_text()
    ast.parse(text)
    assert f"Source file:   {sample.name}" in text
    golden = sample.parent / "golden" / modules[0].name
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.is_file(), f"no golden output {golden} (PORTER_UPDATE_GOLDEN=1 writes it)"
    assert text == golden.read_text(), f"{modules[0].name} differs from {golden}"


@pytest.mark.parametrize("sample, expected", [
    ("gemm/gemm_nt_tiled.hip", {"layout": "NT", "dtype": "float32", "epilogue": "alpha_beta"}),
    ("gemm/gemm_f16_tiled.hip", {"layout": "NN", "dtype": "float16"}),
    ("attention/attention_causal_tiled.hip", {"causal": True}),
    ("attention/attention_naive.hip", {"causal": False}),
    ("layernorm/layernorm_naive.hip", {"affine": True}),
])
def test_recognized_parameters(sample: str, expected: dict) -> None:
    from porter.convert.recognize import recognize
    from porter.frontend import analyze_file
    from porter.frontend_config import make_config

    facts = analyze_file(KERNELS / sample, make_config())
    kernel = next(f.name for f in facts.functions if f.kind == "kernel")
    rec = recognize(facts, kernel)
    assert rec.best.score == 1.0 and not rec.ambiguous
    assert {k: rec.best.params[k] for k in expected} == expected


def test_gemm_arguments_are_mapped() -> None:
    code, out, _ = convert(str(KERNELS / "gemm" / "gemm_naive.hip"), "--dry-run")
    assert code == 0
    assert "arguments: A=A, B=B, C=C, M=M, N=N, K=K, alpha=alpha, beta=beta" in out


UNKNOWN = """#include <hip/hip_runtime.h>
__global__ void histogram(const int* keys, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] & 255], 1);
}
"""


def test_unrecognized_kernel_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "hist.hip"
    src.write_text(UNKNOWN)
    out_dir = tmp_path / "out"
    code, out, _ = convert(str(src), "-o", str(out_dir))
    assert code == 1
    assert "not converted: no template matches; closest is" in out
    assert "missing:" in out and "nothing was written" in out
    assert not out_dir.exists()


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    sample = str(KERNELS / "softmax" / "softmax_naive.hip")
    assert convert(sample, "-o", str(tmp_path))[0] == 0
    target = tmp_path / "softmax_naive.py"
    target.write_text("# my edits\n")
    code, _, err = convert(sample, "-o", str(tmp_path))
    assert code == 2 and "exists (use --force" in err
    assert target.read_text() == "# my edits\n"
    assert convert(sample, "-o", str(tmp_path), "--force")[0] == 0
    assert target.read_text() != "# my edits\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_template_and_param_overrides(tmp_path: Path) -> None:
    sample = str(KERNELS / "gemm" / "gemm_naive.hip")
    code, out, _ = convert(sample, "--dry-run", "--param", "dtype=bfloat16", "--param", "layout=TN")
    assert code == 0 and "'dtype': 'bfloat16'" in out and "'layout': 'TN'" in out
    code, _, err = convert(sample, "--dry-run", "--param", "layout=XX")
    assert code == 2 and "layout" in err
    code, _, err = convert(sample, "--dry-run", "--param", "nosuch=1")
    assert code == 2 and "has no parameter 'nosuch'" in err
    code, _, err = convert(sample, "--template", "nope")
    assert code == 2 and "unknown template" in err


def test_hostile_names_cannot_inject_code(tmp_path: Path) -> None:
    # a file name carrying a newline and code, a kernel named like a Python keyword
    evil = tmp_path / "x\nimport os; os.system('echo pwned')\n.hip"
    evil.write_text((KERNELS / "softmax" / "softmax_naive.hip").read_text())
    code, out, err = convert(str(evil), "-o", str(tmp_path / "o1"))
    assert code == 0, out + err
    text = next((tmp_path / "o1").glob("*.py")).read_text()
    assert not any(line.startswith("import os;") for line in text.splitlines())
    ast.parse(text)
    keyword = tmp_path / "kw.hip"
    keyword.write_text((KERNELS / "softmax" / "softmax_naive.hip").read_text().replace("softmax_naive", "lambda"))
    code, _, err = convert(str(keyword), "-o", str(tmp_path / "o2"))
    assert code == 2 and "lambda" in err
    assert not (tmp_path / "o2").exists()
