"""Per-lane index arithmetic for the LDS model: affine forms and a tiny C-integer expression evaluator.

Expression tree format (``Expr``), chosen so that it is plain data (hashable, JSON-able as nested lists):

- ``int``                      a literal, e.g. ``4``
- ``str``                      a symbol, e.g. ``"tid.x"``, ``"tid.y"``, ``"tid.z"``, ``"bdim.x"``, a loop variable ``"k"``
- ``(op, a)``                  unary: ``op`` in ``"neg"`` (-a), ``"~"`` (bitwise not), ``"!"`` (logical not)
- ``(op, a, b)``               binary: ``op`` in ``+ - * / % & | ^ << >>``, comparisons ``< <= > >= == !=``,
                               logical ``&& ||`` (results 0 or 1, as in C)
- ``("?:", c, a, b)``          C conditional ``c ? a : b``

Arithmetic follows C on (unbounded) signed integers: ``/`` truncates toward zero and ``%`` takes the sign of the
dividend. Overflow and unsigned wrap-around are not modelled: LDS offsets are small and non-negative.
Symbols the model binds itself: ``tid.x/y/z`` (thread index in the block) and ``bdim.x/y/z`` (block dims).
"""

from __future__ import annotations

from functools import lru_cache

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Union

from porter.facts import fold_int

Expr = Union[int, str, tuple]  # see the module docstring for the tuple forms
Env = Mapping[str, int]

THREAD_SYMBOLS: tuple[str, ...] = ("tid.x", "tid.y", "tid.z")
BLOCK_SYMBOLS: tuple[str, ...] = ("bdim.x", "bdim.y", "bdim.z")


class EvalError(ValueError):
    """An expression cannot be evaluated: unbound symbol, unknown operator, division by zero, bad shift."""


def _c_div(a: int, b: int) -> int:
    if b > 0 and a >= 0:
        return a // b   # the usual case (lane indices): Python's floor is C's truncation
    return _c_fold("/", a, b)


def _c_mod(a: int, b: int) -> int:
    if b > 0 and a >= 0:
        return a % b
    return _c_fold("%", a, b)


def _c_fold(op: str, a: int, b: int) -> int:
    value = fold_int(op, a, b)
    if value is None:
        raise EvalError("division by zero")
    return value


def _shl(a: int, b: int) -> int:
    if b < 0:
        raise EvalError(f"negative shift count {b}")
    return a << b


def _shr(a: int, b: int) -> int:
    if b < 0:
        raise EvalError(f"negative shift count {b}")
    return a >> b  # arithmetic shift, as compilers do for signed int


_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _c_div, "%": _c_mod,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": _shl, ">>": _shr,
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}
_UNARY: dict[str, Callable[[int], int]] = {"neg": operator.neg, "~": operator.invert, "!": lambda a: int(not a)}
BINARY_OPS: frozenset[str] = frozenset(_BINARY) | {"&&", "||"}
UNARY_OPS: frozenset[str] = frozenset(_UNARY)


def evaluate(expr: Expr, env: Env) -> int:
    """Evaluate `expr` with C integer semantics; symbols are looked up in `env`."""
    if isinstance(expr, bool):  # bool is an int subclass; reject it so a stray True is not read as 1
        raise EvalError(f"boolean {expr!r} is not an expression")
    if isinstance(expr, int):
        return expr
    if isinstance(expr, str):
        try:
            return env[expr]
        except KeyError:
            raise EvalError(f"unbound symbol '{expr}'") from None
    if isinstance(expr, (tuple, list)) and expr:
        op, args = expr[0], expr[1:]
        if op == "?:" and len(args) == 3:
            return evaluate(args[1], env) if evaluate(args[0], env) else evaluate(args[2], env)
        if op == "&&" and len(args) == 2:  # short-circuit, as C does (a guard may protect a division)
            return int(bool(evaluate(args[0], env)) and bool(evaluate(args[1], env)))
        if op == "||" and len(args) == 2:
            return int(bool(evaluate(args[0], env)) or bool(evaluate(args[1], env)))
        if op in _BINARY and len(args) == 2:
            return _BINARY[op](evaluate(args[0], env), evaluate(args[1], env))
        if op in _UNARY and len(args) == 1:
            return _UNARY[op](evaluate(args[0], env))
    raise EvalError(f"malformed expression {expr!r}")


def from_json(data: object) -> Expr:
    """Turn the JSON form (lists instead of tuples) back into an `Expr`, validating it on the way."""
    if isinstance(data, bool):
        raise EvalError(f"boolean {data!r} is not an expression")
    if isinstance(data, (int, str)):
        return data
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], str):
        op, args = data[0], data[1:]
        arity_ok = (op == "?:" and len(args) == 3) or (op in BINARY_OPS and len(args) == 2) \
            or (op in UNARY_OPS and len(args) == 1)
        if arity_ok:
            return (op, *(from_json(a) for a in args))
    raise EvalError(f"malformed expression {data!r}")


def symbols(expr: Expr) -> frozenset[str]:
    """All symbol names that occur in `expr`."""
    if isinstance(expr, str):
        return frozenset((expr,))
    if isinstance(expr, (tuple, list)):
        out: frozenset[str] = frozenset()
        for a in expr[1:]:
            out |= symbols(a)
        return out
    return frozenset()


def to_c(expr: Expr) -> str:
    """Render `expr` as fully parenthesized C, for messages and debugging."""
    if isinstance(expr, (int, str)):
        return str(expr)
    op, args = expr[0], expr[1:]
    if op == "?:":
        return f"({to_c(args[0])} ? {to_c(args[1])} : {to_c(args[2])})"
    if len(args) == 1:
        return f"({'-' if op == 'neg' else op}{to_c(args[0])})"
    return f"({to_c(args[0])} {op} {to_c(args[1])})"


@dataclass(frozen=True)
class Affine:
    """sum(coeffs[s] * s) + const over named symbols, with integer coefficients. Zero coefficients are dropped
    so that equal forms compare equal."""

    coeffs: Mapping[str, int] = field(default_factory=dict)
    const: int = 0

    def __post_init__(self) -> None:
        # Store a sorted tuple-backed dict copy: keeps the form canonical and safe from caller mutation.
        clean = {k: int(v) for k, v in sorted(self.coeffs.items()) if v}
        object.__setattr__(self, "coeffs", clean)

    def __hash__(self) -> int:
        return hash((tuple(self.coeffs.items()), self.const))

    @staticmethod
    def sym(name: str, coeff: int = 1) -> "Affine":
        return Affine({name: coeff}, 0)

    @staticmethod
    def constant(value: int) -> "Affine":
        return Affine({}, value)

    def __add__(self, other: "Affine | int") -> "Affine":
        if isinstance(other, int):
            return Affine(self.coeffs, self.const + other)
        merged = dict(self.coeffs)
        for k, v in other.coeffs.items():
            merged[k] = merged.get(k, 0) + v
        return Affine(merged, self.const + other.const)

    __radd__ = __add__

    def __neg__(self) -> "Affine":
        return self * -1

    def __sub__(self, other: "Affine | int") -> "Affine":
        return self + (-other)

    def __mul__(self, k: int) -> "Affine":
        if not isinstance(k, int):
            return NotImplemented  # affine * affine is not affine
        return Affine({s: c * k for s, c in self.coeffs.items()}, self.const * k)

    __rmul__ = __mul__

    def evaluate(self, env: Env) -> int:
        try:
            return self.const + sum(c * env[s] for s, c in self.coeffs.items())
        except KeyError as e:
            raise EvalError(f"unbound symbol '{e.args[0]}'") from None

    def is_constant(self) -> bool:
        return not self.coeffs

    def to_expr(self) -> Expr:
        terms: list[Expr] = [s if c == 1 else ("*", c, s) for s, c in self.coeffs.items()]
        out: Expr = self.const if not terms or self.const else terms.pop(0)
        for t in terms:
            out = ("+", out, t)
        return out


def affine_of(expr: Expr, opaque: bool = False) -> Affine | None:
    """The affine form of `expr` if it is one (sums, differences, products with a constant side, shifts left by
    a constant); None otherwise (xor, division, modulo, ... must be evaluated per lane).

    With `opaque`, a subterm that is not affine (tid.x / 16, tid.x % C, a product of two variables) becomes one
    symbol spelled as its C text (`to_c`), so the form is never None and the stride of a row index computed by
    division or modulo is still read off its coefficient; equal subterms get the same symbol."""
    if isinstance(expr, bool):
        return None
    if isinstance(expr, int):
        return Affine.constant(expr)
    if isinstance(expr, str):
        return Affine.sym(expr)
    if not isinstance(expr, (tuple, list)) or not expr:
        return None
    op, args = expr[0], expr[1:]
    parts = [affine_of(a, opaque) for a in args]
    form = _affine_node(op, parts) if all(p is not None for p in parts) else None
    if form is None and opaque:
        return Affine.sym(to_c(expr))
    return form


def _affine_node(op: str, parts: list[Affine]) -> Affine | None:
    """One operator applied to affine operands, when the result is affine."""
    if op == "neg" and len(parts) == 1:
        return -parts[0]
    if op in ("+", "-") and len(parts) == 2:
        return parts[0] + parts[1] if op == "+" else parts[0] - parts[1]
    if op == "*" and len(parts) == 2:
        a, b = parts
        if a.is_constant():
            return b * a.const
        if b.is_constant():
            return a * b.const
        return None
    if op == "<<" and len(parts) == 2 and parts[1].is_constant() and parts[1].const >= 0:
        return parts[0] * (1 << parts[1].const)
    return None


def depends_on_thread(name: str) -> bool:
    """Whether a symbol of an affine form (a plain symbol or an opaque term's C text) reads the thread index."""
    return any(t in name for t in THREAD_SYMBOLS)


AddressFn = Union[Affine, Expr, Callable[[Env], int]]


def compile_fn(fn: AddressFn) -> Callable[[Env], int]:
    """One calling convention for the three ways an address or predicate may be given."""
    if isinstance(fn, Affine):
        return fn.evaluate
    if callable(fn):
        return fn
    try:
        return compile_expr(fn)
    except TypeError:  # an unhashable (list) form: interpret it
        expr = fn
        return lambda env: evaluate(expr, env)


_INFIX = {"+": "+", "-": "-", "*": "*", "&": "&", "|": "|", "^": "^"}
_COMPARE = {"<", "<=", ">", ">=", "==", "!="}
_CALLS = {"/": "_c_div", "%": "_c_mod", "<<": "_shl", ">>": "_shr"}


def _source(expr: Expr) -> str:
    """Python source for an expression tree. Only integers, quoted symbol names and operators from the fixed
    tables above are emitted, so no text from analyzed code can become code."""
    if isinstance(expr, bool):
        raise EvalError(f"boolean {expr!r} is not an expression")
    if isinstance(expr, int):
        return repr(expr)
    if isinstance(expr, str):
        return f"env[{expr!r}]"
    if isinstance(expr, (tuple, list)) and expr:
        op, args = expr[0], [_source(a) for a in expr[1:]]
        if op == "?:" and len(args) == 3:
            return f"(({args[1]}) if ({args[0]}) else ({args[2]}))"
        if op in ("&&", "||") and len(args) == 2:
            word = "and" if op == "&&" else "or"
            return f"int(bool({args[0]}) {word} bool({args[1]}))"
        if len(args) == 2 and op in _INFIX:
            return f"({args[0]} {_INFIX[op]} {args[1]})"
        if len(args) == 2 and op in _COMPARE:
            return f"int({args[0]} {op} {args[1]})"
        if len(args) == 2 and op in _CALLS:
            return f"{_CALLS[op]}({args[0]}, {args[1]})"
        if len(args) == 1 and op in _UNARY:
            return {"neg": f"(-{args[0]})", "~": f"(~{args[0]})", "!": f"int(not {args[0]})"}[op]
    raise EvalError(f"malformed expression {expr!r}")


@lru_cache(maxsize=4096)
def compile_expr(expr: Expr) -> Callable[[Env], int]:
    """`evaluate` for one expression, compiled once into a Python function: the bank model evaluates the
    same address for every lane, wave, loop sample and candidate padding, tens of thousands of times."""
    try:
        code = compile(f"lambda env: {_source(expr)}", "<lds address>", "eval")
        fast = eval(code, {"_c_div": _c_div, "_c_mod": _c_mod, "_shl": _shl, "_shr": _shr, "int": int,
                           "bool": bool, "__builtins__": {}})
    except (RecursionError, SyntaxError, MemoryError, ValueError):
        return lambda env: evaluate(expr, env)  # too deep to compile: interpret

    def run(env: Env) -> int:
        try:
            return fast(env)
        except KeyError as exc:
            raise EvalError(f"unbound symbol '{exc.args[0]}'") from None

    return run
