"""Rendering must never turn a value from parsed CUDA (or a recognizer bug) into code: hostile names are
rejected or confined to a comment, and the generated module's code is the same whatever the comment says."""

from __future__ import annotations

import ast
import io
import math
import tokenize

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from porter.convert import ParamError, list_families, load_manifest, render, write_module
from porter.convert.render import _environment
from porter.fsutil import RefusedOverwrite

HOSTILE_NAME = 'x"); import os; os.system("rm -rf /")#'
BENIGN = {"file": "a.hip", "kernel": "k"}
ALLOWED_IMPORTS = {"argparse", "math", "re", "statistics", "sys", "torch", "tilelang", "tilelang.language",
                   "tvm.target"}


def code_tokens(text: str) -> str:
    """The module with every comment and string removed: what Python would execute."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE):
            out.append(tok.string)
    return " ".join(out)


def imports(text: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


def same_code(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


@pytest.mark.parametrize("family", ["gemm", "attention", "softmax"])
@pytest.mark.parametrize("field", ["kernel", "file"])
def test_hostile_source_info_stays_in_the_comment(family: str, field: str) -> None:
    text = render(family, {}, source_info={**BENIGN, field: HOSTILE_NAME})
    assert same_code(text, render(family, {}, source_info=BENIGN))
    assert "os.system" not in code_tokens(text)
    assert imports(text) <= ALLOWED_IMPORTS
    header = [line for line in text.splitlines() if HOSTILE_NAME in line]
    assert len(header) == 1 and header[0].startswith("#")


@pytest.mark.parametrize("breaker", ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85",
                                     "\u2028", "\u2029", "\x00"])
@pytest.mark.parametrize("field", ["kernel", "file"])
def test_line_breaks_in_source_info_cannot_start_a_line_of_code(breaker: str, field: str) -> None:
    evil = f"a.cu{breaker}import os{breaker}os.system('rm -rf /'){breaker}"
    text = render("gemm", {}, source_info={**BENIGN, field: evil})
    assert same_code(text, render("gemm", {}, source_info=BENIGN))
    assert "import os" not in code_tokens(text)
    assert not any(line.lstrip().startswith(("import os", "os.system")) for line in text.splitlines())
    # str.splitlines() honours every breaker above; no header line may carry two of our fields
    assert sum("import os" in line for line in text.splitlines()) == 1


def test_long_source_info_is_truncated() -> None:
    text = render("gemm", {}, source_info={"file": "a" * 10_000, "kernel": "k"})
    assert max(len(line) for line in text.splitlines()[:4]) < 300


@pytest.mark.parametrize("bad", [HOSTILE_NAME, "class", "match", "None", "1abc", "", "a-b", "a b", "a" * 65,
                                 "ünïcode", "a\n", "__import__('os')", 42, None])
def test_hostile_kernel_name_param_is_rejected(bad: object) -> None:
    with pytest.raises(ParamError, match="kernel_name"):
        render("gemm", {"kernel_name": bad}, source_info=BENIGN)


@pytest.mark.parametrize("family,params,match", [
    ("gemm", {"dtype": "float16; import os"}, "dtype"),
    ("gemm", {"dtype": "int8"}, "dtype"),
    ("attention", {"dtype": "float64"}, "dtype"),  # not in attention's dtype list
    ("gemm", {"layout": "NN\nimport os"}, "layout"),
    ("gemm", {"layout": "nn"}, "layout"),
    ("row_reduce", {"op": "sum); import os; (x"}, "op"),
    ("attention", {"head_dim": 1024}, "head_dim"),
    ("attention", {"head_dim": 100}, "multiple of 16"),
    ("attention", {"head_dim": "128"}, "head_dim"),
    ("attention", {"head_dim": 128.0}, "head_dim"),
    ("attention", {"causal": 1}, "causal"),
    ("attention", {"causal": "True"}, "causal"),
    ("layernorm", {"eps": math.nan}, "eps"),
    ("layernorm", {"eps": math.inf}, "eps"),
    ("layernorm", {"eps": "1.0); import os; (1"}, "eps"),
    ("elementwise", {"scale": 2.0}, "scale"),       # a run-time scale is an argument, never a rendered constant
    ("layernorm", {"eps": -1.0}, "eps"),
    ("gemm", {"secret": 1}, "unknown parameter"),
])
def test_bad_params_are_rejected(family: str, params: dict, match: str) -> None:
    with pytest.raises(ParamError, match=match):
        render(family, params, source_info=BENIGN)


@pytest.mark.parametrize("family", ["../families/gemm", "gemm/../gemm", "_common", "nope", "GEMM"])
def test_unknown_family_is_rejected(family: str) -> None:
    with pytest.raises(ParamError):
        render(family, {}, source_info=BENIGN)


def test_bad_target_config_and_source_info_are_rejected() -> None:
    with pytest.raises(ParamError, match="target"):
        render("gemm", {}, target="sm_80", source_info=BENIGN)
    with pytest.raises(ParamError, match="choose one of"):
        render("gemm", {}, config="gemm_f16_1x1x1_s1_t1", source_info=BENIGN)
    with pytest.raises(ParamError, match="choose one of"):  # an sm_90a config is not a gfx942 one
        render("gemm", {}, target="gfx942", config="gemm_f16_128x256x64_s3_t256", source_info=BENIGN)
    with pytest.raises(ParamError, match="source_info"):
        render("gemm", {}, source_info={"file": "a", "evil": "b"})
    with pytest.raises(ParamError, match="string"):
        render("gemm", {}, source_info={"file": ["a"]})
    with pytest.raises(ParamError, match="line"):
        render("gemm", {}, source_info={"line": "12\nimport os"})


def test_named_config_is_used() -> None:
    text = render("gemm", {}, config="gemm_f16_64x64x32_s2_t128", source_info=BENIGN)
    assert "config: gemm_f16_64x64x32_s2_t128" in text
    assert "'block_M': 64" in text


def test_float_params_render_as_exact_literals() -> None:
    text = render("layernorm", {"runtime_eps": False, "eps": 1e-300}, source_info=BENIGN)
    assert "EPS = 1e-300" in text
    # a run-time eps is the wrapper's argument: no constant is rendered for it
    assert "EPS =" not in render("layernorm", {}, source_info=BENIGN)


def test_templates_use_strict_undefined() -> None:
    with pytest.raises(jinja2.UndefinedError):
        _environment().from_string("{{ missing }}").render()
    assert _environment().autoescape is False


def test_write_module_refuses_to_overwrite(tmp_path) -> None:
    path = tmp_path / "k.py"
    write_module("a = 1\n", path)
    with pytest.raises(RefusedOverwrite):
        write_module("a = 2\n", path)
    assert path.read_text() == "a = 1\n"
    write_module("a = 2\n", path, force=True)
    assert path.read_text() == "a = 2\n"


@settings(max_examples=150, deadline=None)
@given(file=st.text(max_size=80), kernel=st.text(max_size=80))
def test_any_source_info_text_leaves_the_code_unchanged(file: str, kernel: str) -> None:
    text = render("softmax", {}, source_info={"file": file, "kernel": kernel})
    assert same_code(text, render("softmax", {}, source_info=BENIGN))


@settings(max_examples=300, deadline=None)
@given(name=st.text(max_size=70))
def test_any_kernel_name_is_an_identifier_or_refused(name: str) -> None:
    try:
        text = render("transpose", {"kernel_name": name}, source_info=BENIGN)
    except ParamError:
        return
    assert name.isidentifier() and name.isascii()
    tree = ast.parse(text)
    assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_every_manifest_enum_value_is_an_identifier() -> None:
    for family in list_families():
        for spec in load_manifest(family)["params"].values():
            for value in spec.get("values", []):
                assert value.isidentifier()


@pytest.mark.parametrize("name", ["main", "reference", "check", "torch", "T", "float", "print", "run",
                                  "make_case", "DTYPE", "CONFIGS"])
def test_kernel_name_that_would_shadow_module_names_is_rejected(name: str) -> None:
    with pytest.raises(ParamError, match="already uses"):
        render("gemm", {"kernel_name": name}, source_info=BENIGN)


def _top_level_names(text: str) -> list[str]:
    names = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names]
    return names


@pytest.mark.parametrize("family", list_families())
def test_reserved_names_cover_every_template(family: str) -> None:
    from porter.convert.params import MODULE_NAMES

    kernel_name = load_manifest(family)["params"]["kernel_name"]["default"]
    for params in ({}, *({k: v} for k, spec in load_manifest(family)["params"].items()
                         for v in spec.get("values", []))):
        names = set(_top_level_names(render(family, params, source_info=BENIGN)))
        assert names - {kernel_name, f"{kernel_name}_kernel"} <= MODULE_NAMES, family


# ------------------------------------------------------------------------------------------------ ORIGINAL

GOOD_ORIGINAL = {
    "schema": 1, "file": "k.hip", "kernel": "k<64, float>",
    "args": [{"name": "x", "ctype": "const float*", "bind": "case", "key": "x"},
             {"name": "out", "ctype": "float*", "bind": "case", "key": "out", "output": True},
             {"name": "M", "ctype": "int", "bind": "shape", "key": "M"},
             {"name": "N", "ctype": "long long", "bind": "shape", "key": "N"},
             {"name": "op", "ctype": "int", "bind": "const", "value": 1}],
    "grid": [["min", ["cdiv", ["*", "M", "N"], 256], 65535], 1, 1], "block": [256, 1, 1], "shared_bytes": 0,
}


def _original_in(text: str) -> object:
    tree = ast.parse(text)
    (node,) = [n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "ORIGINAL"]
    return ast.literal_eval(node.value)   # plain data only, or this raises


def test_original_renders_as_plain_data() -> None:
    assert _original_in(render("softmax", {}, source_info=BENIGN, original=GOOD_ORIGINAL)) == GOOD_ORIGINAL
    assert _original_in(render("softmax", {}, source_info=BENIGN)) is None


def _with(path: tuple, value: object) -> dict:
    import copy
    record = copy.deepcopy(GOOD_ORIGINAL)
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return record


@pytest.mark.parametrize("path,value", [
    (("kernel",), 'k"); import os; ("'),
    (("kernel",), "k\nimport os"),
    (("args", 0, "name"), "x); import os; (x"),
    (("args", 0, "ctype"), "float*); import os; (float*"),
    (("args", 0, "ctype"), "struct Params"),
    (("args", 0, "bind"), "eval"),
    (("args", 0, "key"), "x']; import os; ['"),
    (("args", 2, "key"), "not_a_shape_key"),
    (("args", 4, "value"), True),
    (("args", 4, "value"), math.nan),
    (("args", 4, "value"), "__import__('os')"),
    (("args", 0, "output"), True),               # a const pointer cannot be written
    (("args", 1, "output"), 1),
    (("args", 0, "evil"), "x"),
    (("grid",), [["pow", "M", 2], 1, 1]),
    (("grid",), [["+", "M", "__import__('os')"], 1, 1]),
    (("grid",), [1.5, 1, 1]),
    (("grid",), [1, 1]),
    (("block",), [True, 1, 1]),
    (("shared_bytes",), "M; import os"),
    (("schema",), 2),
    (("file",), ["a"]),
])
def test_hostile_original_fields_are_rejected(path: tuple, value: object) -> None:
    with pytest.raises(ParamError, match="ORIGINAL"):
        render("softmax", {}, source_info=BENIGN, original=_with(path, value))


def test_original_file_name_is_sanitized() -> None:
    text = render("softmax", {}, source_info=BENIGN, original=_with(("file",), "a.hip\nimport os"))
    assert _original_in(text)["file"] == "a.hip?import os"
    assert not any(line.startswith("import os") for line in text.splitlines())
