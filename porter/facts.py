"""The Facts layer: frozen, JSON-dumpable records of what a translation unit contains. Rules and the converter
read only these; they never see libclang cursors (porter/frontend.py is the only module that does)."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator


@dataclass(frozen=True, slots=True)
class Loc:
    path: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NO_LOC = Loc("", 0, 0)


@dataclass(frozen=True, slots=True)
class Node:
    """One node of a function body, a libclang-free mirror of the clang AST.

    kind: int, float, ref, member, call, mcall (method call: children = object, arguments), launch (kernel
          launch: children = grid, block, shared bytes, stream, arguments), index, binop, unop, cond, cast,
          default (an argument left to its default), decl (children: the initializer if any, then a 'bounds'
          node holding array-bound expressions), for (children: init, cond, inc, body; 'empty' where absent),
          while, do, if, block, decls, return, break, continue, init_list, static_assert (children: the condition,
          then the message if any), other
    op:   operator spelling (binop/unop, '+=' etc. for compound assignment), callee name (call), referenced
          name (ref), field name (member), variable name (decl), cast kind ('implicit' or the written type)
    type: the clang type spelling of an expression or declaration
    value: the integer value when the expression is an integer constant expression
    ref:  for ref and decl nodes, a stable id of the declared entity (equal ids denote the same variable)
    macro: for nodes spelled inside a macro body, the macro's name (e.g. WARP_SIZE)
    """

    kind: str
    op: str = ""
    type: str = ""
    value: int | None = None
    ref: str = ""
    macro: str = ""
    loc: Loc = NO_LOC
    children: tuple["Node", ...] = ()

    def walk(self) -> Iterator["Node"]:
        """Pre-order walk of this node and everything under it."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str
    canonical: str = ""     # the type with typedefs resolved (llm.c's `floatX*` -> `__hip_bfloat16 *`), if different
    default: int | None = None   # an integer literal default (`int width = 32`)
    ref: str = ""           # the id a use names it by (Node.ref)
    loc: Loc | None = None  # where it is declared: the line to change when its type is wrong


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    usr: str
    kind: str                                 # kernel | device | host | host_device
    loc: Loc
    params: tuple[Param, ...]
    template_args: tuple[tuple[str, str], ...] = ()   # (parameter name, concrete value) for instantiations
    is_template: bool = False                 # the uninstantiated pattern of a template
    template_params: tuple[str, ...] = ()     # a pattern's template parameter names, in order
    owner: str = ""                           # a member function's class, without template arguments
    launch_bounds: tuple[int, ...] = ()
    block_param: str = ""                     # a pattern's template parameter that __launch_bounds__ names first
    body: Node | None = None


@dataclass(frozen=True, slots=True)
class SharedDecl:
    function: str                             # enclosing function usr ('' at file scope)
    name: str
    ref: str
    elem_type: str
    elem_bytes: int | None
    dims: tuple[int | None, ...]              # concrete extents where known; () for a scalar
    total_bytes: int | None
    is_extern: bool
    loc: Loc
    elem_param: bool = False                  # the element type is a template type parameter (of the function's
                                              # template or of its class's: `extern __shared__ T s[]` in a member)


@dataclass(frozen=True, slots=True)
class SharedAccess:
    function: str
    array: str
    ref: str
    indices: tuple[Node, ...]                 # outermost subscript first
    is_write: bool
    elem_type: str                            # type of the accessed element (after any reinterpret cast)
    width_bytes: int | None
    loc: Loc


@dataclass(frozen=True, slots=True)
class IntLiteral:
    value: int
    loc: Loc                                  # exact place: the literal itself, or the macro use it came from
    macro: str = ""                           # macro whose body spells the literal


@dataclass(frozen=True, slots=True)
class MacroDef:
    name: str
    params: tuple[str, ...] | None            # None for object-like macros
    body: str
    value: int | None
    loc: Loc
    # a header's definition: the #if/#ifdef/#elif/#else lines it is inside, outermost first, each level's chain
    # so far (`#ifdef __GFX9__`, `#else`): which configuration picks it
    conditions: tuple[str, ...] = ()


# Where a macro given on the command line (-D NAME=body) is defined: no line of any file.
COMMAND_LINE = Loc("<command line>", 0, 0)


@dataclass(frozen=True, slots=True)
class MacroUse:
    name: str
    loc: Loc


@dataclass(frozen=True, slots=True)
class CrossLaneCall:
    function: str
    name: str
    args: tuple[Node, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class Launch:
    caller: str
    kernel: str                               # kernel name as written, without template arguments
    kernel_usr: str
    template_args: tuple[str, ...]
    grid: Node | None
    block: Node | None
    block_dims: tuple[int, int, int] | None   # concrete block size where it is a constant
    shared_bytes: Node | None
    args: tuple[Node, ...]
    loc: Loc
    block_source: str = ""                    # where block_dims came from when the launch names a variable:
                                              # "`dim3 threads` at f.hip:28"; "" when written at the launch
    block_partial: tuple[int | None, int | None, int | None] | None = None  # a block only partly constant,
                                              # e.g. dim3(4, 8, n): (4, 8, None); block_dims is then None
    wrapper: str = ""                         # a device lambda's launch: the launch wrapper it is handed to
                                              # (`forall_2D(n, X, Y, [=] __device__ (int e) {...})`); kernel
                                              # is then the host function that holds the lambda


@dataclass(frozen=True, slots=True)
class ValueFunction:
    """A function without parameters that the file calls, whose body is one `return E;`: what a call of it gives."""

    name: str
    id: str                                   # the callee's id (Node.ref of its calls)
    where: str                                # file:line of its definition
    reads_width: bool = False                 # E reads HIP's warpSize, itself or through another such function
    value: int | None = None                  # else the integer constant E is, where clang evaluates it
    calls: tuple[tuple[int, int], ...] = ()   # (line, column) of the main file's calls of it


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: str                             # note | warning | error | fatal
    message: str
    loc: Loc
    notes: tuple[tuple[str, int], ...] = ()   # clang's notes to it: (message, line in this file, 0 elsewhere)


@dataclass(frozen=True, slots=True)
class Recovered:
    """A statement or initializer that libclang dropped (unknown identifiers from a missing header, an excerpt)
    and that was read from its tokens instead (porter/token_reader.py): facts under it are less certain."""

    function: str                             # enclosing function usr
    loc: Loc                                  # the recovered span
    reason: str                               # the parse error that dropped it


@dataclass(frozen=True, slots=True)
class Skipped:
    """Something of the file that was not analyzed, and why (said per file, never silently)."""

    function: str                             # the function's name, or '' for the file
    reason: str
    loc: Loc


@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str
    target: str
    functions: tuple[Function, ...] = ()
    helpers: tuple[Function, ...] = ()                       # device functions of project headers the code
                                                             # calls (their locs name the header)
    shared: tuple[SharedDecl, ...] = ()
    shared_accesses: tuple[SharedAccess, ...] = ()
    literals: tuple[IntLiteral, ...] = ()
    macros: tuple[MacroDef, ...] = ()
    macro_uses: tuple[MacroUse, ...] = ()
    cross_lane: tuple[CrossLaneCall, ...] = ()
    launches: tuple[Launch, ...] = ()
    lambda_launches: tuple[Launch, ...] = ()                 # launches of device lambdas through wrappers
    diagnostics: tuple[Diagnostic, ...] = ()
    globals: tuple[Node, ...] = ()                           # file-scope variable declarations
    int_bits: tuple[tuple[str, int], ...] = ()               # (integer type spelling, width in bits)
    project_cross_lane: tuple[Loc, ...] = ()                 # cross-lane calls that resolve to the project's own
                                                             # function of that name (a wrapper), not HIP's
    recovered: tuple[Recovered, ...] = ()                    # regions read from tokens only
    undeclared: tuple[str, ...] = ()                         # names used but declared nowhere the parse saw
                                                             # (a header not on the include path)
    skipped: tuple[Skipped, ...] = ()                        # functions whose extraction failed
    inactive_lines: tuple[int, ...] = ()                     # lines of preprocessor branches the parse skipped
    value_functions: tuple[ValueFunction, ...] = ()          # what calls of one-return functions give
    sha256: str = ""                                         # of the exact text that was parsed
    decoded: str = ""                                        # how a file that is not UTF-8 was read
    context: str = ""                                        # "includer:line" whose preceding directives were
                                                             # read first (a header, porter/includers.py)
    lines: tuple[str, ...] = field(default=(), repr=False)   # source text, for suppressions and fix-its

    def function(self, usr: str) -> Function | None:
        return next((f for f in self.functions if f.usr == usr), None)

    def byte_line(self, number: int) -> str:
        """Line `number` (1-based; "" outside the file) with one character per UTF-8 byte: clang's columns count
        bytes, so these are the strings its columns index, on lines with non-ASCII text too."""
        return self.lines[number - 1].encode("utf-8").decode("latin-1") if 0 < number <= len(self.lines) else ""

    def to_json(self, *, with_bodies: bool = True) -> dict[str, Any]:
        data = _plain(self)
        data.pop("lines", None)
        if not with_bodies:
            for fn in data["functions"]:
                fn.pop("body", None)
        return data


# The id the frontend gives HIP's builtin warpSize, which porter's stub header declares (name@file:line:col).
_BUILTIN_WIDTH_ID = "warpSize@porter_hip_stub.h:"


def names_builtin_width(ref_id: str) -> bool:
    """A declaration id that is HIP's builtin warpSize, not a project variable or parameter named warpSize that
    shadows it (Paddle's `const int warpSize = 64;`, a constant array bound)."""
    return ref_id.startswith(_BUILTIN_WIDTH_ID)


_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'")


def undeclared_identifier(d: Diagnostic) -> str:
    """The name clang's `use of undeclared identifier 'X'` error names ('' for any other diagnostic): a name
    from a header that is not on the include path."""
    m = _UNDECLARED.match(d.message)
    return m.group(1) if m is not None else ""


def from_byte_text(text: str) -> str:
    """Undo FileFacts.byte_line for a piece cut out of it (a cut inside a character shows as U+FFFD)."""
    return text.encode("latin-1").decode("utf-8", "replace")


_CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define)\b")


def define_conditions(lines: tuple[str, ...]) -> dict[int, tuple[str, ...]]:
    """Line of each #define -> the conditional directives it is inside, outermost first: per nesting level the
    chain up to its branch (`#ifdef __GFX9__`, `#else`), so the #else branch still shows what it depends on."""
    out: dict[int, tuple[str, ...]] = {}
    levels: list[list[str]] = []
    for i, line in enumerate(lines, 1):
        m = _CONDITIONAL.match(line)
        if m is None:
            continue
        word = m.group(1)
        if word in ("if", "ifdef", "ifndef"):
            levels.append([line.split("//", 1)[0].strip()])
        elif word in ("elif", "else") and levels:
            levels[-1].append(line.split("//", 1)[0].strip())
        elif word == "endif" and levels:
            levels.pop()
        elif word == "define" and levels:
            out[i] = tuple(d for level in levels for d in level)
    return out


def split_lines(text: str) -> tuple[str, ...]:
    """Lines as clang counts them: ends at LF, CRLF or CR only (str.splitlines also splits at form feeds and
    other separators, which would shift every line number after them)."""
    return tuple(_LINE_END.split(_LAST_END.sub("", text))) if text else ()


def fold_int(op: str, a: int, b: int) -> int | None:
    """C's value of `a op b` for integers (division truncates toward zero), or None where C leaves it
    undefined (division by zero, a shift by a negative or too large count) or for an operator it does not fold."""
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) if (a < 0) == (b < 0) else -(abs(a) // abs(b))
        return q if op == "/" else a - q * b
    if op in ("<<", ">>"):
        return (a << b if op == "<<" else a >> b) if 0 <= b < 64 else None
    if op in _COMPARISONS:
        return int(_COMPARISONS[op](a, b))
    return _ARITH.get(op, lambda _a, _b: None)(a, b)


_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "&": lambda a, b: a & b,
          "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}
_COMPARISONS = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
                ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


_LINE_END = re.compile(r"\r\n|\r|\n")
_LAST_END = re.compile(r"(?:\r\n|\r|\n)\Z")


def _plain(obj: Any) -> Any:
    """dataclasses.asdict without deep-copying, dropping empty defaults to keep dumps readable."""
    if dataclasses.is_dataclass(obj):
        out = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if isinstance(obj, Node) and value in ("", None, ()) and f.name != "kind":
                continue
            out[f.name] = _plain(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def dumps(facts: list[FileFacts], *, with_bodies: bool = True) -> str:
    return json.dumps([f.to_json(with_bodies=with_bodies) for f in facts], indent=1)
