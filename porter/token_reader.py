"""Read statements and expressions from tokens, for the places libclang dropped.

Code whose headers are missing (`WARP_SHFL`, `kFullWarpMask`, a project's `WS`) or that is an excerpt loses whole
statements and initializers in the AST. The tokens are still there: this reads them into the same Node trees the
front end builds (porter/facts.py), without types where the AST had none. It knows C++ expressions, declarations,
`for`/`if`/`while` and blocks, template argument lists after a name (`f<T, 4>(x)`, `numeric_limits<T>::max()`,
`static_cast<T>(x)`); anything else (lambdas, C casts to a type) ends the expression it is in. Pure
Python: porter/frontend.py hands it libclang's tokens as (spelling, line, col) triples.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from porter.facts import Loc, Node, fold_int


# Deeper nesting is not read (each level costs ~15 Python frames; generated code nests thousands deep).
MAX_DEPTH = 40


class Tok(NamedTuple):
    text: str
    line: int
    col: int


# binary operators by precedence, loosest first (assignment and the conditional are handled apart)
_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
           ("+", "-"), ("*", "/", "%"))
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=")
_PREFIX = {"-": "-", "+": "+", "~": "~", "!": "!", "*": "*", "&": "&", "++": "++", "--": "--"}
_TYPE_WORDS = {"unsigned", "signed", "int", "long", "short", "char", "float", "double", "bool", "void", "auto",
               "const", "volatile", "constexpr", "static", "__shared__", "register", "size_t", "half", "__half",
               "uint32_t", "int32_t", "uint64_t", "int64_t", "uint", "float2", "float4", "int2", "int4"}
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)$")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")


def int_literal(text: str) -> tuple[int, str] | None:
    """(value, type spelling) of an integer literal token, as C++ types it."""
    m = _INT.match(text)
    if m is None:
        return None
    digits, suffix = m.groups()
    value = int(digits, 0) if not (digits.startswith("0") and digits.isdigit() and len(digits) > 1) else int(digits, 8)
    suffix = suffix.lower()
    unsigned = "u" in suffix or (digits[:2].lower() in ("0x", "0b") and value >= 1 << 31 and value < 1 << 32)
    if "ll" in suffix or value >= 1 << 32:
        base = "long long"
    elif "l" in suffix:
        base = "long"
    else:
        base = "int"
    return value, ("unsigned " + base if unsigned else base)


class Reader:
    """A cursor over tokens. `names` maps identifiers to (ref id, type) known from the AST (locals, parameters,
    __shared__ arrays), so that recovered references join the variables the rules already see."""

    def __init__(self, toks: list[Tok], path: str, names: dict[str, tuple[str, str]] | None = None) -> None:
        self.toks = toks
        self.i = 0
        self.path = path
        self.names = names or {}
        self.depth = 0   # nesting of parentheses and blocks being read

    # -- helpers
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j].text if j < len(self.toks) else ""

    def take(self) -> Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def loc(self, first: Tok) -> Loc:
        last = self.toks[self.i - 1] if self.i else first
        return Loc(self.path, first.line, first.col, last.line, last.col + len(last.text))

    def span(self, start: Loc) -> Loc:
        """From `start` to the end of the last token taken."""
        last = self.toks[self.i - 1]
        return Loc(self.path, start.line, start.col, last.line, last.col + len(last.text))

    def expect(self, text: str) -> bool:
        if self.peek() == text:
            self.i += 1
            return True
        return False

    # -- statements
    def statements(self) -> list[Node]:
        out = []
        while self.i < len(self.toks):
            start = self.i
            node = self.statement()
            if node is not None:
                out.append(node)
            if self.i == start:  # unreadable token: skip it
                self.i += 1
        return out

    def statement(self) -> Node | None:
        if self.depth >= MAX_DEPTH:
            return None
        self.depth += 1
        try:
            return self._statement()
        finally:
            self.depth -= 1

    def _statement(self) -> Node | None:
        first = self.toks[self.i]
        word = first.text
        if word == ";":
            self.i += 1
            return None
        if word == "{":
            self.i += 1
            kids = []
            while self.i < len(self.toks) and self.peek() != "}":
                start = self.i
                node = self.statement()
                if node is not None:
                    kids.append(node)
                if self.i == start:
                    self.i += 1
            self.expect("}")
            return Node("block", loc=Loc(self.path, first.line, first.col), children=tuple(kids))
        if word in ("for", "while", "if") and self.peek(1) == "(":
            self.i += 2
            if word == "for":
                init = self.simple() or Node("empty")
                self.expect(";")
                cond = self.expression() if self.peek() != ";" else Node("empty")
                self.expect(";")
                inc = self.expression() if self.peek() != ")" else Node("empty")
                self.expect(")")
                body = self.statement() or Node("empty")
                return Node("for", loc=Loc(self.path, first.line, first.col), children=(init, cond or Node("empty"),
                                                                                     inc or Node("empty"), body))
            cond = self.expression() or Node("empty")
            self.expect(")")
            body = self.statement() or Node("empty")
            kids = [cond, body]
            if word == "if" and self.peek() == "else":
                self.i += 1
                kids.append(self.statement() or Node("empty"))
            return Node(word, loc=Loc(self.path, first.line, first.col), children=tuple(kids))
        if word == "return":
            self.i += 1
            value = self.expression() if self.peek() != ";" else None
            self.expect(";")
            return Node("return", loc=Loc(self.path, first.line, first.col), children=(value,) if value else ())
        node = self.simple()
        self.expect(";")
        return node

    def simple(self) -> Node | None:
        """A declaration (`T a = e, b[n];`) or an expression."""
        j = self.i
        words = []
        while j < len(self.toks) and (self.toks[j].text in _TYPE_WORDS or self.toks[j].text == "*"):
            words.append(self.toks[j].text)
            j += 1
        if words and j < len(self.toks) and _IDENT.match(self.toks[j].text) and \
                self.toks[j].text not in _TYPE_WORDS:
            return self.declaration(j, words)
        return self.expression()

    def declaration(self, j: int, words: list[str]) -> Node:
        first = self.toks[self.i]
        self.i = j
        type_words = [w for w in words if w not in ("static", "register", "constexpr", "__shared__")]
        base = " ".join(type_words).replace(" *", "*")
        if base.replace("const ", "") == "unsigned":
            base = base.replace("unsigned", "unsigned int")
        decls = []
        while True:
            name_tok = self.take()
            bounds = []
            while self.expect("["):
                bound = self.expression()
                if bound is not None:
                    bounds.append(bound)
                self.expect("]")
            init = None
            if self.expect("="):
                init = self.assignment()
                if init is not None and init.type != base:
                    init = Node("cast", op="implicit", type=base, value=init.value, loc=init.loc, children=(init,))
            kids = ((init,) if init is not None else ()) + ((Node("bounds", children=tuple(bounds)),) if bounds else ())
            decls.append(Node("decl", op=name_tok.text, type=base, value=init.value if init is not None and
                              "const" in words else None, ref=f"{name_tok.text}@tokens:{name_tok.line}:{name_tok.col}",
                              macro="shared" if "__shared__" in words else "",
                              loc=Loc(self.path, first.line, first.col), children=kids))
            self.names[name_tok.text] = (decls[-1].ref, base)
            if not (self.expect(",") and _IDENT.match(self.peek())):
                break
        return Node("decls", loc=Loc(self.path, first.line, first.col), children=tuple(decls))

    # -- expressions
    def expression(self) -> Node | None:
        node = self.assignment()
        while node is not None and self.peek() == ",":
            self.i += 1
            right = self.assignment()
            if right is None:
                break
            node = Node("binop", op=",", loc=node.loc, children=(node, right))
        return node

    def assignment(self) -> Node | None:
        first_i = self.i
        left = self.conditional()
        if left is not None and self.peek() in _ASSIGN:
            if self.depth >= MAX_DEPTH:
                return left
            op = self.take().text
            self.depth += 1
            right = self.assignment()
            self.depth -= 1
            if right is None:
                return left
            return Node("binop", op=op, type=left.type, loc=self.loc(self.toks[first_i]), children=(left, right))
        return left

    def conditional(self) -> Node | None:
        first_i = self.i
        cond = self.binary(0)
        if cond is not None and self.peek() == "?":
            self.i += 1
            a = self.assignment()
            self.expect(":")
            b = self.assignment()
            if a is not None and b is not None:
                return Node("cond", loc=self.loc(self.toks[first_i]), children=(cond, a, b))
        return cond

    def binary(self, level: int) -> Node | None:
        if level == len(_LEVELS):
            return self.unary()
        first_i = self.i
        left = self.binary(level + 1)
        while left is not None and self.peek() in _LEVELS[level]:
            op = self.take().text
            right = self.binary(level + 1)
            if right is None:
                break
            value = _fold(op, left.value, right.value)
            left = Node("binop", op=op, type=_result_type(op, left.type, right.type), value=value,
                        loc=self.loc(self.toks[first_i]), children=(left, right))
        return left

    def unary(self) -> Node | None:
        if self.i >= len(self.toks):
            return None
        first = self.toks[self.i]
        if first.text in _PREFIX:
            if self.depth >= MAX_DEPTH:
                return None
            self.i += 1
            self.depth += 1
            operand = self.unary()
            self.depth -= 1
            if operand is None:
                return None
            value = {"-": lambda v: -v, "+": lambda v: v, "~": lambda v: ~v}.get(first.text)
            return Node("unop", op=_PREFIX[first.text], type=operand.type,
                        value=value(operand.value) if value and operand.value is not None else None,
                        loc=self.loc(first), children=(operand,))
        return self.postfix()

    def postfix(self) -> Node | None:
        node = self.primary()
        while node is not None:
            nxt = self.peek()
            first = node.loc
            if nxt == "(":
                self.i += 1
                args = []
                while self.peek() not in (")", ""):
                    arg = self.assignment()
                    if arg is None:
                        break
                    args.append(arg)
                    if not self.expect(","):
                        break
                self.expect(")")
                name = node.op if node.kind in ("ref", "member") else ""
                base = node.children if node.kind == "member" else ()
                node = Node("mcall" if base else "call", op=name, type=_RESULT_TYPES.get(name, ""),
                            loc=self.span(first), children=tuple(base) + tuple(args))
            elif nxt == "[":
                self.i += 1
                index = self.expression()
                self.expect("]")
                if index is None:
                    return node
                node = Node("index", type=_element(node.type), loc=self.span(first), children=(node, index))
            elif nxt in (".", "->") and _IDENT.match(self.peek(1)):
                self.i += 2
                node = Node("member", op=self.toks[self.i - 1].text, loc=self.span(first), children=(node,))
            elif nxt in ("++", "--"):
                self.i += 1
                node = Node("unop", op="post" + nxt, type=node.type, loc=node.loc, children=(node,))
            else:
                return node
        return node

    def template_args(self) -> str | None:
        """Skip a template argument list after a name and return its text: `<` ... `>` holding only names, numbers,
        `::`, `,`, `*`, `&` and nested lists, and followed by `(` or `::` (a comparison `a < b` is not). None, and
        nothing taken, otherwise."""
        if self.peek() != "<":
            return None
        j, depth, parts = self.i + 1, 1, []
        while j < len(self.toks):
            t = self.toks[j].text
            if t in (">", ">>"):
                depth -= len(t)
                if depth <= 0:
                    break
            elif t == "<":
                depth += 1
            elif not (_IDENT.match(t) or int_literal(t) or t in ("::", ",", "*", "&")):
                return None
            parts.append(t)
            j += 1
        if depth != 0 or j + 1 >= len(self.toks) or self.toks[j + 1].text not in ("(", "::"):
            return None
        self.i = j + 1
        return re.sub(r"\s*(::|<|>)\s*", r"\1", " ".join(parts)).replace(" ,", ",")

    def primary(self) -> Node | None:
        if self.i >= len(self.toks):
            return None
        tok = self.toks[self.i]
        lit = int_literal(tok.text)
        if lit is not None:
            self.i += 1
            return Node("int", type=lit[1], value=lit[0], loc=self.loc(tok))
        if tok.text == "(":
            if self.depth >= MAX_DEPTH:
                return None
            self.i += 1
            self.depth += 1
            inner = self.expression()
            self.depth -= 1
            self.expect(")")
            return inner
        if _IDENT.match(tok.text) and tok.text not in _TYPE_WORDS:
            self.i += 1
            name = tok.text
            targs = self.template_args()
            while self.peek() == "::" and _IDENT.match(self.peek(1)):
                self.i += 2
                name = self.toks[self.i - 1].text  # qualified names: the last component names the entity
                targs = self.template_args()
            if name in _NAMED_CASTS and targs is not None and self.peek() == "(":
                self.i += 1
                inner = self.expression()
                self.expect(")")
                return Node("cast", op=name[:-len("_cast")], type=targs, loc=self.loc(tok),
                            children=(inner,) if inner is not None else ())
            if name in ("true", "false"):
                return Node("int", type="bool", value=int(name == "true"), loc=self.loc(tok))
            ref, type_ = self.names.get(name, ("", ""))
            return Node("ref", op=name, type=type_, ref=ref, loc=self.loc(tok))
        if re.match(r"^\d", tok.text):  # a floating literal
            self.i += 1
            return Node("float", type="float" if tok.text.lower().endswith("f") else "double", loc=self.loc(tok))
        return None


_NAMED_CASTS = ("static_cast", "reinterpret_cast", "const_cast", "dynamic_cast")

# Result types of the HIP mask producers (64-bit on every AMD target); others stay unknown.
_RESULT_TYPES = {"__ballot": "unsigned long long", "__ballot_sync": "unsigned long long",
                 "__activemask": "unsigned long long", "__match_any": "unsigned long long",
                 "__match_any_sync": "unsigned long long", "__popc": "int", "__popcll": "int"}


def _element(type_spelling: str) -> str:
    t = type_spelling.strip()
    if t.endswith("*"):
        return t[:-1].strip()
    if t.endswith("]"):
        return t[:t.rfind("[")].strip()
    return ""


def _result_type(op: str, a: str, b: str) -> str:
    if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
        return "bool"
    return a if a == b else ""


def _fold(op: str, a: int | None, b: int | None) -> int | None:
    return fold_int(op, a, b) if a is not None and b is not None else None
