"""The grammar of a launch record (a generated module's ORIGINAL, CONTRACT.md), in one place for the two sides that
read it: porter.convert.params validates it before rendering, porter.emulate.launch before launching. No numpy,
no torch: both sides import it.

    C types:      SCALAR_CTYPES, as `T`, `const T`, `T*` or `const T*` (what the emulator and the nvcc shim pass)
    expressions:  int | symbol | [op, a, b] with op in OPS, evaluated by porter.emulate.launch.evaluate (never eval)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SCALAR_CTYPES = ("float", "double", "int", "unsigned", "unsigned int", "long", "long long", "unsigned long",
                 "unsigned long long", "size_t", "int64_t", "int32_t", "uint32_t", "uint64_t", "bool", "short",
                 "__half", "half", "__hip_bfloat16", "hip_bfloat16", "__nv_bfloat16", "int8_t", "uint8_t",
                 "unsigned char", "char", "signed char")
CTYPES = frozenset([*SCALAR_CTYPES, *(f"{t}*" for t in SCALAR_CTYPES), *(f"const {t}*" for t in SCALAR_CTYPES),
                    *(f"const {t}" for t in SCALAR_CTYPES)])
OPS = ("+", "-", "*", "//", "%", "min", "max", "cdiv")
MAX_DEPTH = 16


def check_expr(expr: Any, symbol: Callable[[str], str | None], fail: Callable[[str], Exception],
               depth: int = 0) -> Any:
    """`expr` as plain data (tuples become lists) if it is in the grammar; else raises fail(why). symbol(name)
    says why a symbol is not allowed, or None when it is."""
    if depth > MAX_DEPTH:
        raise fail("expression nested too deeply")
    if isinstance(expr, bool) or not isinstance(expr, (int, str, list, tuple)):
        raise fail(f"{expr!r} is not int | symbol | [op, a, b] (op: {', '.join(OPS)})")
    if isinstance(expr, int):
        return expr
    if isinstance(expr, str):
        why = symbol(expr)
        if why:
            raise fail(why)
        return expr
    if len(expr) != 3 or expr[0] not in OPS:
        raise fail(f"{expr!r} is not [op, a, b] with op in {', '.join(OPS)}")
    return [expr[0], check_expr(expr[1], symbol, fail, depth + 1), check_expr(expr[2], symbol, fail, depth + 1)]
