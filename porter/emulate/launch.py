"""One launch of an original kernel as data: the kernel spelling, grid, block, dynamic shared memory and one value
per parameter. `porter verify` builds it from a generated module's ORIGINAL mapping and a case (`bind`);
`porter analyze --confirm` synthesizes it from the Facts (porter.emulate.sizing). Either way it runs through
`emulate` (porter's CPU emulator) or porter.verify.gpu_original.launch (nvcc on NVIDIA, hipcc on ROCm): one mechanism.

The ORIGINAL mapping (written by `porter convert`, data contract in its module header) is validated here before
anything of it reaches generated code or a compiler: identifiers, C types from a list, ints, and launch-geometry
expressions from the grammar  int | symbol | [op, a, b]  with op in + - * // % min max cdiv, evaluated by `evaluate`
(never eval).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from porter.launch_grammar import OPS, SCALAR_CTYPES, check_expr
from porter.targets import DEFAULT_TARGET

SCHEMA = 1
BINDS = ("case", "shape", "const")
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
# `k`, `ns::k`, `k<128, float>`, `k<true, 4, 64>`: identifiers, integers, commas, spaces and `::` only
_KERNEL = re.compile(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*(<[\w\s,:]*>)?\Z")
MAX_LAUNCH_DIM = 1 << 31


class SpecError(ValueError):
    """An ORIGINAL mapping that is malformed, or that does not fit the original kernel or the case."""


def evaluate(expr: Any, env: Mapping[str, int]) -> int:
    """Value of a launch-geometry expression (see the module docstring) with symbols from `env`."""
    if isinstance(expr, bool):
        raise SpecError(f"{expr!r} is not an integer expression")
    if isinstance(expr, int):
        return expr
    if isinstance(expr, str):
        if expr not in env:
            raise SpecError(f"unknown symbol {expr!r} in a launch expression (known: {', '.join(sorted(env))})")
        return int(env[expr])
    if isinstance(expr, (list, tuple)) and len(expr) == 3 and expr[0] in OPS:
        a, b = evaluate(expr[1], env), evaluate(expr[2], env)
        op = expr[0]
        if op in ("//", "%", "cdiv") and b == 0:
            raise SpecError(f"division by zero in {expr!r}")
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
                "%": lambda: a % b, "min": lambda: min(a, b), "max": lambda: max(a, b),
                "cdiv": lambda: -(-a // b)}[op]()
    raise SpecError(f"{expr!r} is not a launch expression (int | symbol | [op, a, b], op in {' '.join(OPS)})")


def _check_expr(expr: Any, where: str) -> None:
    check_expr(expr, lambda s: None if _IDENT.match(s) else f"{s!r} is not a symbol",
               lambda why: SpecError(f"{where}: {why}"))


def base_ctype(ctype: str) -> tuple[str, bool, bool]:
    """(base type, is pointer, is const) of an ORIGINAL ctype such as 'const float*' or 'int'."""
    t = " ".join(ctype.replace("__restrict__", " ").replace("__restrict", " ").replace("*", " * ").split())
    ptr = t.endswith("*")
    t = t.rstrip("* ").strip()
    const = t.startswith("const ") or t.endswith(" const")
    t = t.replace("const", " ")
    return " ".join(t.split()), ptr, const


def validate_kernel_spelling(kernel: Any, where: str = "kernel") -> str:
    """`kernel` if it is a spelling porter may write into generated C++ (name, ns::name or name<args>)."""
    if not isinstance(kernel, str) or not _KERNEL.match(kernel):
        raise SpecError(f"{where}: {kernel!r} is not a kernel spelling (name, ns::name or name<args>)")
    return kernel


def validate(spec: Any, where: str = "ORIGINAL") -> dict:
    """`spec` checked against the contract; returns it. Raises SpecError naming the field."""
    if not isinstance(spec, dict):
        raise SpecError(f"{where} must be a dict, got {type(spec).__name__}")
    if spec.get("schema") != SCHEMA:
        raise SpecError(f"{where}: schema {spec.get('schema')!r} is not {SCHEMA}")
    validate_kernel_spelling(spec.get("kernel"), where)
    args = spec.get("args")
    if not isinstance(args, list) or not args:
        raise SpecError(f"{where}: args must be a non-empty list")
    for i, a in enumerate(args):
        w = f"{where}.args[{i}]"
        if not isinstance(a, dict) or not isinstance(a.get("name"), str) or not _IDENT.match(a["name"]):
            raise SpecError(f"{w}: needs a 'name' that is an identifier")
        ctype = a.get("ctype")
        if not isinstance(ctype, str):
            raise SpecError(f"{w} ({a['name']}): needs a 'ctype'")
        base, _, _ = base_ctype(ctype)
        if base not in SCALAR_CTYPES:
            raise SpecError(f"{w} ({a['name']}): C type {ctype!r} is not one porter can pass")
        if a.get("bind") not in BINDS:
            raise SpecError(f"{w} ({a['name']}): bind {a.get('bind')!r} is not one of {', '.join(BINDS)}")
        if a["bind"] == "const":
            if isinstance(a.get("value"), bool) or not isinstance(a.get("value"), (int, float)):
                raise SpecError(f"{w} ({a['name']}): a const binding needs a numeric 'value'")
        elif not isinstance(a.get("key"), str) or not _IDENT.match(a["key"]):
            raise SpecError(f"{w} ({a['name']}): needs a 'key' that is an identifier")
    for dim in ("grid", "block"):
        v = spec.get(dim)
        if not isinstance(v, list) or not 1 <= len(v) <= 3:
            raise SpecError(f"{where}: {dim} must be a list of 1-3 launch expressions")
        for e in v:
            _check_expr(e, f"{where}.{dim}")
    _check_expr(spec.get("shared_bytes", 0), f"{where}.shared_bytes")
    return spec


def check_signature(spec: dict, params: Sequence[Mapping[str, str]], source: str) -> None:
    """The ORIGINAL arguments against the kernel's parameters as porter's frontend read them from the source
    (Facts `functions[].params`): same count, names and pointer-ness. Raises SpecError."""
    args = spec["args"]
    sig = ", ".join(f"{p['type']} {p['name']}" for p in params)
    if len(args) != len(params):
        raise SpecError(f"{source}: kernel {spec['kernel']}({sig}) has {len(params)} parameters; the module's "
                        f"ORIGINAL binds {len(args)}")
    for a, p in zip(args, params):
        if a["name"] != p["name"]:
            raise SpecError(f"{source}: parameter '{p['name']}' of {spec['kernel']} is bound as '{a['name']}' "
                            f"in the module's ORIGINAL")
        if base_ctype(a["ctype"])[1] != ("*" in p["type"] or "[" in p["type"]):
            raise SpecError(f"{source}: parameter '{p['type']} {p['name']}' is bound as {a['ctype']!r}")


@dataclass(frozen=True)
class Launch:
    """One launch: values in parameter order (buffers as arrays or tensors, scalars as Python numbers)."""
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    names: tuple[str, ...]
    args: tuple[Any, ...]
    outputs: tuple[str, ...]      # names of the buffers the kernel writes (compared afterwards)

    def describe(self) -> str:
        def d3(v: tuple[int, int, int]) -> str:
            return str(v[0]) if v[1:] == (1, 1) else f"({v[0]}, {v[1]}, {v[2]})"
        sh = f", {self.shared_bytes}" if self.shared_bytes else ""
        return f"{self.kernel}<<<{d3(self.grid)}, {d3(self.block)}{sh}>>>"

    def value(self, name: str) -> Any:
        return self.args[self.names.index(name)]


def dim3(values: Sequence[Any], env: Mapping[str, int], what: str) -> tuple[int, int, int]:
    out = [evaluate(e, env) for e in values] + [1] * (3 - len(values))
    if any(not 1 <= v < MAX_LAUNCH_DIM for v in out):
        raise SpecError(f"{what} {out} is not a valid launch dimension")
    return out[0], out[1], out[2]


def bind(spec: dict, case: Mapping[str, Any]) -> Launch:
    """The launch that ORIGINAL describes for one case of the generated module (values taken from the case)."""
    shape = case.get("shape", {})
    env = {k: int(v) for k, v in shape.items() if isinstance(v, int) and not isinstance(v, bool)}
    values, outputs = [], []
    for a in spec["args"]:
        if a["bind"] == "const":
            v = a["value"]
        elif a["bind"] == "shape":
            if a["key"] not in shape:
                raise SpecError(f"parameter '{a['name']}': the case's shape has no '{a['key']}' ({shape})")
            v = shape[a["key"]]
        else:
            if a["key"] not in case:
                raise SpecError(f"parameter '{a['name']}': the module's case has no '{a['key']}' "
                                f"(keys: {', '.join(sorted(k for k in case if k != 'shape'))})")
            v = case[a["key"]]
        ptr = base_ctype(a["ctype"])[1]
        if ptr and getattr(v, "ndim", 0) < 1:
            raise SpecError(f"parameter '{a['ctype']} {a['name']}': the case gives {type(v).__name__}, not a buffer")
        if not ptr:
            if getattr(v, "ndim", 0):
                raise SpecError(f"parameter '{a['ctype']} {a['name']}': the case gives a buffer, not a scalar")
            v = v.item() if hasattr(v, "item") else v
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise SpecError(f"parameter '{a['ctype']} {a['name']}': {v!r} is not a number")
        if a.get("output"):
            if not ptr:
                raise SpecError(f"parameter '{a['name']}' is marked as an output but is not a buffer")
            outputs.append(a["name"])
        values.append(v)
    return Launch(spec["kernel"], dim3(spec["grid"], env, "grid"), dim3(spec["block"], env, "block"),
                  evaluate(spec.get("shared_bytes", 0), env), tuple(a["name"] for a in spec["args"]),
                  tuple(values), tuple(outputs))


def emulate(source: str | os.PathLike[str], launch: Launch, warp_size: int = 64,
            timeout: float = 60.0, extra_flags: Sequence[str] = ()) -> dict[str, Any]:
    """Run the launch on porter's CPU emulator (buffers as numpy arrays); the output buffers by name."""
    from porter.emulate import kernel_signature, run_kernel

    outs = run_kernel(source, launch.kernel, launch.grid, launch.block, list(launch.args), warp_size=warp_size,
                      shared_bytes=launch.shared_bytes, timeout=timeout, extra_flags=extra_flags)
    # the emulator names outputs by the source text's parameter names: map them back by position
    emu_names = [p.name for p in kernel_signature(source, launch.kernel, extra_flags)]
    by_name = {launch.names[i]: outs[n] for i, n in enumerate(emu_names) if n in outs and i < len(launch.names)}
    return {n: by_name[n] for n in launch.outputs if n in by_name}


def facts_of(path: str | os.PathLike[str], config: Any = None, target: str = DEFAULT_TARGET) -> dict:
    """porter's Facts (as a JSON dict) of one file, extracted in a worker process like `porter analyze`.
    Raises SpecError when the file does not parse."""
    import multiprocessing

    from porter.analysis import Request, analyze_one, run
    from porter.frontend_config import make_config

    req = Request(path=str(path), config=config or make_config(), target=target, select=("NONE",), dump_facts=True)
    # a daemonic process (a multiprocessing pool's worker) may not start the analysis worker: parse in-process
    (res,) = [analyze_one(req)] if multiprocessing.current_process().daemon else run([req], 1, 300.0)
    if res.error or res.facts is None:
        raise SpecError(f"{path}: porter cannot read the original: {res.error or 'no facts'}")
    return res.facts


def frontend_available() -> bool:
    """Whether porter's libclang frontend can run here (a GPU machine may have no libclang)."""
    import importlib.util

    return importlib.util.find_spec("clang") is not None


def compiled_params(params: Sequence[Any]) -> list[dict]:
    """Compiled-signature parameters (porter.emulate.Param) in the Facts shape check_signature reads."""
    return [{"name": p.name, "type": p.describe().rsplit(" ", 1)[0]} for p in params]


def kernel_params(facts: dict, kernel: str) -> list[dict] | None:
    """The parameters of kernel `kernel` (its spelling; template arguments ignored) in the Facts, or None."""
    base = kernel.split("<", 1)[0].strip().split("::")[-1]
    for fn in facts.get("functions", ()):
        if fn.get("kind") == "kernel" and fn["name"].split("<", 1)[0].split("::")[-1] == base:
            return list(fn.get("params", ()))
    return None
