"""Property-based fuzzing of the front end + rules, the recognizer and the renderer's validation.

Bounded for CI (about a minute on 2 cores); PORTER_FUZZ_EXAMPLES=N runs N examples per property for long local
runs (`PORTER_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py -s` prints what was fuzzed). libclang runs in a
worker process (porter.pool), as in `porter analyze`, so a libclang crash is contained and counted rather than
killing pytest; anything else that escapes analyze_one or recognize fails the test."""

from __future__ import annotations

import ast
import math
import os
import random
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hostile
from porter.analysis import FileResult, Request, analyze_one
from porter.convert.params import ParamError
from porter.convert.render import list_families, load_manifest, render
from porter.frontend_config import make_config
from porter.pool import Failure, imap

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("PORTER_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="PORTER_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TIMEOUT = 60.0
STATS: Counter[str] = Counter()
TEXTS = hostile.sample_texts()
WORK = Path(tempfile.mkdtemp(prefix="porter-fuzz-"))


@pytest.fixture(scope="module", autouse=True)
def _report() -> object:
    yield
    print(f"\nporter fuzz: {dict(sorted(STATS.items()))}")


def _source(rnd: random.Random, kind: str) -> str:
    if kind == "soup":
        return hostile.token_soup(rnd, rnd.randrange(1, 400))
    text = rnd.choice(TEXTS)
    if kind == "spliced":
        other = rnd.choice(TEXTS)
        text = text[:rnd.randrange(len(text) + 1)] + other[rnd.randrange(len(other) + 1):]
    return hostile.mutate(text, rnd, rnd.randrange(1, 8))


def _in_worker(fn, item):  # type: ignore[no-untyped-def]
    """Run fn(item) in a porter.pool worker; returns its result or the pool's Failure."""
    return next(iter(imap(fn, [item], jobs=1, timeout=TIMEOUT)))


def _write(text: str, rnd: random.Random) -> str:
    path = WORK / f"fuzz_{rnd.getrandbits(48):012x}{rnd.choice(['.hip', '.cu', '.cuh'])}"
    path.write_text(text, errors="surrogatepass") if text.isascii() else path.write_bytes(
        text.encode("utf-8", "replace"))
    return str(path)


def _contained(res: object, what: str, path: str) -> None:
    """A Failure for a libclang crash or the time limit is containment working; an internal error is a bug."""
    if isinstance(res, Failure):
        assert not res.reason.startswith("internal error"), f"{what} raised on {path}: {res.reason}"
        STATS[f"{what}: contained ({res.reason.split('(')[0].strip()})"] += 1
        os.replace(path, path + ".keep")   # kept for a look: WORK is printed on failure
        return
    STATS[what] += 1
    os.unlink(path)


# ----------------------------------------------------------------------------------- front end + rules

@FUZZ
@given(st.randoms(use_true_random=False), st.sampled_from(["soup", "mutated", "spliced"]),
       st.sampled_from([(), ("W64",), ("LDS",)]), st.booleans())
def test_fuzz_analyze_one_never_raises(rnd: random.Random, kind: str, select: tuple[str, ...], explain: bool) -> None:
    path = _write(_source(rnd, kind), rnd)
    req = Request(path=path, config=make_config(target="gfx942"), target="gfx942", select=select,
                  explain=explain, dump_facts=rnd.random() < 0.3)
    res = _in_worker(analyze_one, req)
    if not isinstance(res, Failure):
        assert isinstance(res, FileResult) and res.path == path
        assert res.error or isinstance(res.findings, list)
        if res.error:
            assert path in res.error or os.path.basename(path) in res.error, res.error
        for f in res.findings:
            assert f.line >= 0 and f.rule_id
    _contained(res, f"analyze {kind}", path)


# ------------------------------------------------------------------------------------------ recognizer

def recognize_all(path: str) -> list[tuple[str, str]]:
    """Worker: recognize every kernel of a file; a missing kernel must raise UnknownKernel and nothing else."""
    from porter.convert.recognize import UnknownKernel, kernels, recognize
    from porter.frontend import FrontendError, analyze_file

    try:
        facts = analyze_file(Path(path), make_config(target="gfx942"))
    except FrontendError:
        return [("", "frontend error")]
    out = []
    for name in kernels(facts):
        rec = recognize(facts, name)
        assert rec.candidates is not None
        out.append((name, rec.best.family if rec.best is not None else ""))
    try:
        recognize(facts, "no_such_kernel_\u00e9")
    except UnknownKernel:
        pass
    else:
        raise AssertionError("recognize() accepted a missing kernel")
    return out


@FUZZ
@given(st.randoms(use_true_random=False), st.sampled_from(["mutated", "spliced", "soup"]))
def test_fuzz_recognizer_never_raises(rnd: random.Random, kind: str) -> None:
    path = _write(_source(rnd, kind), rnd)
    res = _in_worker(recognize_all, path)
    if not isinstance(res, Failure):
        STATS["recognize: kernels"] += len(res)
    _contained(res, f"recognize {kind}", path)


# ---------------------------------------------------------------------------------------------- renderer

FAMILIES = list_families()
_values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
    st.sampled_from([0, 1, 16, 32, 64, 128, 256, 1024, 4096]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=80),
    st.sampled_from(["float16", "bfloat16", "float32", "float64", "NN", "NT", "same", "gelu", "relu", "none",
                     "class", "match", "torch", "main", "T", "x\nimport os", "a'b", "__import__", "ok_name",
                     "\u00e9t\u00e9", "A" * 64, "A" * 65, "print(1)#", "x\u2028y"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


def _valid(spec: dict, dtypes: list[str]) -> st.SearchStrategy:
    kind = spec.get("kind")
    if kind == "enum":
        return st.sampled_from(spec["values"])
    if kind == "dtype":
        return st.sampled_from(spec.get("values") or dtypes or ["float32"])
    if kind == "bool":
        return st.booleans()
    if kind == "int":
        lo, hi = spec.get("min", -2**31), spec.get("max", 2**31)
        return st.integers(lo, hi)
    if kind == "float":
        return st.floats(spec.get("min", -1e30), spec.get("max", 1e30))
    if kind == "identifier":
        return st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,70}", fullmatch=True)
    return st.just(spec.get("default"))


@st.composite
def _params(draw: st.DrawFn) -> tuple[str, dict, dict, str, object]:
    family = draw(st.sampled_from(FAMILIES))
    spec = load_manifest(family).get("params", {})
    params: dict = {}
    for name, s in spec.items():
        if draw(st.booleans()):
            params[name] = draw(_valid(s, load_manifest(family).get("dtypes", [])) if draw(st.integers(0, 3))
                                else _values)
    if draw(st.integers(0, 9)) == 0:
        params[draw(st.text(min_size=1, max_size=12))] = draw(_values)
    info = draw(st.dictionaries(st.sampled_from(["file", "kernel", "line", "extra"]), _values, max_size=3)
                if draw(st.integers(0, 3)) == 0 else
                st.fixed_dictionaries({"file": st.text(max_size=300), "kernel": st.text(max_size=50),
                                       "line": st.integers(0, 10**9)}))
    target = draw(st.sampled_from(["gfx942", "sm_90a", "gfx942", "sm_90a", "gfx942", "gfx950", "x86"]))
    config = draw(st.one_of(st.none(), st.none(), st.none(), st.text(max_size=20)))
    return family, params, info, target, config


@FUZZ
@given(_params())
def test_fuzz_render_only_param_error_and_valid_python(case: tuple) -> None:
    family, params, info, target, config = case
    try:
        text = render(family, params, target=target, config=config, source_info=info)
    except ParamError:
        STATS["render: refused (ParamError)"] += 1
        return
    tree = ast.parse(text)
    STATS["render: rendered, parses"] += 1
    # nothing the caller passed became code: the module imports and defines what the default render does
    assert _shape(tree) <= _shape(ast.parse(render(family, {}))) | _kernel_names(params), _shape(tree)


def _shape(tree: ast.Module) -> set[str]:
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {f"import {a.name}" for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(f"def {node.name}")
    return out


def _kernel_names(params: dict) -> set[str]:
    name = params.get("kernel_name")
    return {f"def {name}", f"def {name}_kernel"} if isinstance(name, str) else set()


def test_render_rejects_non_finite_and_bool_ints() -> None:
    for family in FAMILIES:
        for name, spec in load_manifest(family).get("params", {}).items():
            bad = {"int": [True, 1.5, "3"], "float": [math.nan, math.inf, True, "1.0"], "bool": [0, 1, "true"],
                   "identifier": ["a b", "x\n", "class", "print(1)"], "dtype": ["float64", 16],
                   "enum": ["NOT_A_VALUE", 0]}.get(spec["kind"], [])
            for value in bad:
                with pytest.raises(ParamError):
                    render(family, {name: value})
