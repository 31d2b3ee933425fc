"""Validation of template parameters against a family's manifest schema.

Every value that reaches a template goes through here first: templates emit Python source, so an unchecked
string would be code injection. Identifiers, ints, floats, enums, bools and dtypes are the only kinds; there is
deliberately no free-form string kind.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
import unicodedata
from typing import Any

from porter import launch_grammar
from porter.launch_grammar import CTYPES

IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

# The only element types a template may name, with the short form used in config names.
DTYPES: dict[str, str] = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}

PARAM_KINDS = ("identifier", "int", "float", "enum", "bool", "dtype")

# Top-level names of the generated modules (imports, harness, per-family constants and helpers). A kernel
# name equal to one of them, or whose factory `<name>_kernel` is one, would silently shadow it.
# tests/test_render_safety.py keeps this list in step with the templates.
MODULE_NAMES = frozenset("""
    T torch tilelang argparse math re statistics sys annotations
    TARGET CONFIG_NAMES CONFIGS ARCH_CONFIGS TOLERANCES TORCH_DTYPES TEST_SHAPES LOWER_SHAPE BENCH_SHAPE
    DTYPE C_DTYPE OUT_DTYPE ACCUM_DTYPE LAYOUT OP EPS SCALE ACTIVATION ORDER HEAD_DIM CAUSAL LOG2E RESIDENT_MAX_N
    current_target config_for build_prim_func lower lower_source shared_memory_bytes compare check bench main
    reference make_case run_kernel torch_baseline work _op _epilogue _eps _scores _TVM_TARGETS _DTYPE_BYTES ORIGINAL
""".split())


class ParamError(ValueError):
    """A parameter or source-info value was refused; the message says which and why."""


class DtypeError(ParamError):
    """The dtype is not one the template supports (for a recognized kernel: its precision has no template)."""


def check_identifier(name: str, value: Any) -> str:
    # fullmatch: `$` alone would accept a trailing newline
    if not isinstance(value, str) or not IDENT_RE.fullmatch(value):
        raise ParamError(f"parameter '{name}': {value!r} is not a Python identifier "
                         f"(allowed: ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$)")
    if keyword.iskeyword(value) or keyword.issoftkeyword(value):
        raise ParamError(f"parameter '{name}': {value!r} is a Python keyword")
    return value


def check_dtype(name: str, value: Any, allowed: list[str] | None = None) -> str:
    choices = list(allowed) if allowed else list(DTYPES)
    if not isinstance(value, str) or value not in DTYPES or value not in choices:
        raise DtypeError(f"parameter '{name}': dtype {value!r} is not one of {', '.join(choices)}")
    return value


def _check_one(name: str, spec: dict[str, Any], value: Any, family_dtypes: list[str]) -> Any:
    kind = spec["kind"]
    if kind == "identifier":
        check_identifier(name, value)
        for taken in (value, f"{value}_kernel"):
            if taken in MODULE_NAMES or hasattr(builtins, taken):
                raise ParamError(f"parameter '{name}': {value!r} would make the generated module define "
                                 f"{taken!r}, which it already uses; choose another name")
        return value
    if kind == "dtype":
        return check_dtype(name, value, spec.get("values", family_dtypes))
    if kind == "bool":
        # bool only: 0/1 or "true" would hide a recognizer bug
        if not isinstance(value, bool):
            raise ParamError(f"parameter '{name}': expected true/false, got {value!r}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParamError(f"parameter '{name}': expected an integer, got {value!r}")
        lo, hi = spec.get("min"), spec.get("max")
        if lo is not None and value < lo or hi is not None and value > hi:
            raise ParamError(f"parameter '{name}': {value} is outside [{lo}, {hi}]")
        mult = spec.get("multiple_of")
        if mult and value % mult:
            raise ParamError(f"parameter '{name}': {value} is not a multiple of {mult}")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParamError(f"parameter '{name}': expected a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value):
            raise ParamError(f"parameter '{name}': {value!r} is not finite")
        lo, hi = spec.get("min"), spec.get("max")
        if lo is not None and value < lo or hi is not None and value > hi:
            raise ParamError(f"parameter '{name}': {value} is outside [{lo}, {hi}]")
        return value
    if kind == "enum":
        values = spec["values"]
        if not isinstance(value, str) or value not in values:
            raise ParamError(f"parameter '{name}': {value!r} is not one of {', '.join(map(str, values))}")
        return value
    raise ParamError(f"parameter '{name}': unknown kind {kind!r} in manifest")


def validate_schema(family: str, schema: dict[str, dict[str, Any]], family_dtypes: list[str]) -> None:
    """Check a manifest's own schema (a broken manifest is a porter bug, reported as such)."""
    for name, spec in schema.items():
        check_identifier(f"{family}.params key", name)
        if spec.get("kind") not in PARAM_KINDS:
            raise ParamError(f"manifest {family}: param '{name}' has kind {spec.get('kind')!r}; "
                             f"expected one of {', '.join(PARAM_KINDS)}")
        if spec["kind"] == "enum":
            for v in spec.get("values", []):
                check_identifier(f"{family}.{name} enum value", v)  # enum values are emitted as code too
        if "default" not in spec:
            raise ParamError(f"manifest {family}: param '{name}' has no default")
        _check_one(name, spec, spec["default"], family_dtypes)


def validate_params(family: str, schema: dict[str, dict[str, Any]], params: dict[str, Any],
                    family_dtypes: list[str]) -> dict[str, Any]:
    """Return params completed with defaults, every value checked; unknown keys are errors."""
    if not isinstance(params, dict):
        raise ParamError(f"params for '{family}' must be a dict, got {type(params).__name__}")
    unknown = sorted(set(params) - set(schema))
    if unknown:
        raise ParamError(f"unknown parameter(s) for template '{family}': {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(sorted(schema))}")
    out: dict[str, Any] = {}
    for name, spec in schema.items():
        out[name] = _check_one(name, spec, params.get(name, spec["default"]), family_dtypes)
    return out


_MAX_INFO_LEN = 200


def sanitize_comment_text(value: Any, what: str) -> str:
    """Make a source-info string safe for a `#` comment: one line, printable, bounded.

    A newline (or any line break Python honours: \\r, \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028/9) would end the
    comment and turn the rest into code, so control and separator characters are replaced by `?`; quotes and
    the rest are harmless inside a comment and kept so the name stays recognizable."""
    if not isinstance(value, str):
        raise ParamError(f"source info '{what}' must be a string, got {type(value).__name__}")
    chars = []
    for ch in value:
        cat = unicodedata.category(ch)
        # C* = control/format/unassigned/private, Z[lp] = line/paragraph separators
        chars.append("?" if cat.startswith("C") or cat in ("Zl", "Zp") else ch)
    text = "".join(chars)
    if len(text) > _MAX_INFO_LEN:
        text = text[:_MAX_INFO_LEN - 3] + "..."
    return text


# ------------------------------------------------------------------------------------------------ ORIGINAL

_C_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_KERNEL_SPELLING = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}(<[A-Za-z0-9_, :.+-]{1,120}>)?")
_ARG_KEYS = {"name", "ctype", "bind", "key", "value", "output"}


def check_expr(what: str, expr: Any, symbols: set[str]) -> Any:
    """A launch-geometry expression (porter.launch_grammar) whose symbols are the template's shape keys."""
    return launch_grammar.check_expr(
        expr, lambda s: None if s in symbols else f"{s!r} is not a shape symbol ({', '.join(sorted(symbols))})",
        lambda why: ParamError(f"ORIGINAL {what}: {why}"))


def check_original(record: Any, shape_keys: list[str]) -> dict[str, Any]:
    """Validate the ORIGINAL constant (CONTRACT.md) before it is rendered: plain data of known shapes only."""
    if not isinstance(record, dict) or set(record) != {"schema", "file", "kernel", "args", "grid", "block",
                                                       "shared_bytes"}:
        raise ParamError(f"ORIGINAL must be a dict with schema, file, kernel, args, grid, block, shared_bytes; "
                         f"got {sorted(record) if isinstance(record, dict) else type(record).__name__}")
    if record["schema"] != 1:
        raise ParamError(f"ORIGINAL schema {record['schema']!r} is not 1")
    file = sanitize_comment_text(record["file"], "ORIGINAL file")
    kernel = record["kernel"]
    if not isinstance(kernel, str) or not _KERNEL_SPELLING.fullmatch(kernel):
        raise ParamError(f"ORIGINAL kernel {kernel!r} is not `name` or `name<args>`")
    symbols = set(shape_keys)
    args = []
    if not isinstance(record["args"], list):
        raise ParamError("ORIGINAL args must be a list")
    for i, arg in enumerate(record["args"]):
        if not isinstance(arg, dict) or not {"name", "ctype", "bind"} <= set(arg) <= _ARG_KEYS:
            raise ParamError(f"ORIGINAL args[{i}]: expected name, ctype, bind (+ key/value, output), got {arg!r}")
        name, ctype, bind = arg["name"], arg["ctype"], arg["bind"]
        if not isinstance(name, str) or not _C_NAME.fullmatch(name):
            raise ParamError(f"ORIGINAL args[{i}]: {name!r} is not a C identifier")
        if ctype not in CTYPES:
            raise ParamError(f"ORIGINAL args[{i}] ({name}): C type {ctype!r} is not one porter passes")
        out: dict[str, Any] = {"name": name, "ctype": ctype, "bind": bind}
        if bind in ("case", "shape"):
            key = arg.get("key")
            if not isinstance(key, str) or not IDENT_RE.fullmatch(key) or set(arg) & {"value"}:
                raise ParamError(f"ORIGINAL args[{i}] ({name}): bind {bind!r} needs an identifier key, got {key!r}")
            if bind == "shape" and key not in symbols:
                raise ParamError(f"ORIGINAL args[{i}] ({name}): {key!r} is not a shape key")
            out["key"] = key
        elif bind == "const":
            value = arg.get("value")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or "key" in arg or (
                    isinstance(value, float) and not math.isfinite(value)):
                raise ParamError(f"ORIGINAL args[{i}] ({name}): bind 'const' needs a finite number value")
            out["value"] = value
        else:
            raise ParamError(f"ORIGINAL args[{i}] ({name}): bind {bind!r} is not case, shape or const")
        if "output" in arg:
            if arg["output"] is not True or "*" not in ctype or ctype.startswith("const "):
                raise ParamError(f"ORIGINAL args[{i}] ({name}): output must be True on a non-const pointer")
            out["output"] = True
        args.append(out)
    dims = {}
    for field in ("grid", "block"):
        value = record[field]
        if not isinstance(value, list) or len(value) != 3:
            raise ParamError(f"ORIGINAL {field} must be a list of 3 expressions")
        dims[field] = [check_expr(f"{field}[{i}]", e, symbols) for i, e in enumerate(value)]
    shared = check_expr("shared_bytes", record["shared_bytes"], symbols)
    return {"schema": 1, "file": file, "kernel": kernel, "args": args, **dims, "shared_bytes": shared}
