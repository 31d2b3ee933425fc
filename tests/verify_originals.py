"""ORIGINAL mappings (CONTRACT between convert and verify) for sample originals, written by hand for tests of
`porter verify --original`: each binds the sample kernel's parameters, in declaration order, to the case of the
module that `render(family, params)` writes, with the launch geometry of the sample's own host code."""

from __future__ import annotations

from pathlib import Path

from porter.convert import render, write_module

ROOT = Path(__file__).resolve().parents[1]
SOURCE = {"file": "samples/kernels/x.hip", "kernel": "k", "line": 1}


def _buf(name: str, ctype: str, key: str | None = None, output: bool = False) -> dict:
    d = {"name": name, "ctype": ctype, "bind": "case", "key": key or name}
    if output:
        d["output"] = True
    return d


def _shape(name: str, key: str | None = None, ctype: str = "int") -> dict:
    return {"name": name, "ctype": ctype, "bind": "shape", "key": key or name}


def _const(name: str, ctype: str, value: float) -> dict:
    return {"name": name, "ctype": ctype, "bind": "const", "value": value}


def _spec(kernel: str, args: list[dict], grid: list, block: list, shared: object = 0) -> dict:
    return {"schema": 1, "file": "", "kernel": kernel, "args": args, "grid": grid, "block": block,
            "shared_bytes": shared}


_GEMM = [_buf("A", "const __half*"), _buf("B", "const __half*"), _buf("C", "__half*", output=True),
         _shape("M"), _shape("N"), _shape("K"), _buf("alpha", "float"), _buf("beta", "float")]

# sample path -> (family, template params, ORIGINAL, TEST_SHAPES override or None)
SAMPLES: dict[str, tuple[str, dict, dict, list | None]] = {
    "row_reduce/row_reduce_naive.hip": (
        "row_reduce", {"dtype": "float32", "op": "sum"},
        _spec("row_reduce_naive<0>", [_buf("x", "const float*"), _buf("y", "float*", "out", True), _shape("M"),
                                      _shape("N")], [["cdiv", "M", 256]], [256]), None),
    "gemm/gemm_f16_tiled.hip": (
        "gemm", {"dtype": "float16"},
        _spec("gemm_f16_tiled", _GEMM, [["cdiv", "N", 32], ["cdiv", "M", 64]], [32, 16]), None),
    "attention/attention_causal_tiled.hip": (
        "attention", {"dtype": "float16", "causal": True, "head_dim": 64},
        _spec("attention_causal_tiled<64>", [_buf("Q", "const __half*"), _buf("K", "const __half*"),
                                             _buf("V", "const __half*"), _buf("O", "__half*", output=True),
                                             _shape("S", "seq_q"), _buf("scale", "float")],
              [["cdiv", "seq_q", 64], ["*", "batch", "heads"]], [64]),
        # the original takes one sequence length (seq_q == seq_kv)
        [{"batch": 1, "heads": 2, "seq_q": 77, "seq_kv": 77}, {"batch": 2, "heads": 1, "seq_q": 45, "seq_kv": 45}]),
    "layernorm/layernorm_naive.hip": (
        "layernorm", {"dtype": "float32", "eps": 1e-5},
        _spec("layernorm_naive", [_buf("x", "const float*"), _buf("gamma", "const float*"),
                                  _buf("beta", "const float*"), _buf("y", "float*", "out", True), _shape("M"),
                                  _shape("N"), _const("eps", "float", 1e-5)], [["cdiv", "M", 128]], [128]), None),
    "transpose/transpose_naive.hip": (
        "transpose", {"dtype": "float32"},
        _spec("transpose_naive", [_buf("in", "const float*", "x"), _buf("out", "float*", output=True),
                                  _shape("rows", "M"), _shape("cols", "N")],
              [["cdiv", "N", 32], ["cdiv", "M", 8]], [32, 8]), None),
    "elementwise/bias_act_naive.hip": (
        "elementwise", {"dtype": "float32", "activation": "gelu_tanh"},
        _spec("bias_act_naive", [_buf("x", "const float*"), _buf("bias", "const float*"),
                                 _buf("y", "float*", output=True), _shape("M"), _shape("N"),
                                 _const("act", "int", 1), _const("scale", "float", 1.0)],
              [["min", ["cdiv", ["*", "M", "N"], 256], 65535]], [256]), None),
}


def module_text(sample: str, name: str, target: str = "gfx942") -> str:
    family, params, spec, shapes = SAMPLES[sample]
    text = render(family, dict(params, kernel_name=name), target=target, source_info=SOURCE)
    text += f"\nORIGINAL = {dict(spec, file=Path(sample).name)!r}\n"
    if shapes is not None:
        text += f"TEST_SHAPES = {shapes!r}\n"
    return text


def write(sample: str, directory: Path, name: str | None = None, text: str | None = None) -> Path:
    name = name or "v_" + Path(sample).stem
    return write_module(text if text is not None else module_text(sample, name), directory / f"{name}.py")
