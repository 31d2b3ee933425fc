"""Buffer sizes for a synthesized launch, derived from the kernel's own index expressions (porter's Facts).

Each subscript of a pointer parameter (`x[i]`, and `p[j]` through a local `const T* p = x + off`) is bounded from
above by interval arithmetic over the launch: threadIdx < blockDim, blockIdx < gridDim, integer parameters set to
one value n, locals bounded by their initializer (loop variables also by their `i < E` condition), literals as
written. A buffer gets (largest bound + 1) elements; a subscript porter cannot bound leaves that buffer at the
fallback size. `porter analyze --confirm` picks n so that every bounded buffer fits the emulator's cap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_DIMS = {"x": 0, "y": 1, "z": 2}


def walk(node: dict | None) -> Iterable[dict]:
    stack = [node] if node else []
    while stack:  # every node of a Facts expression tree, parents first
        n = stack.pop()
        yield n
        stack.extend(n.get("children", ()))


def _strip(n: dict) -> dict:
    while n.get("kind") in ("cast", "paren") and n.get("children"):
        n = n["children"][0]
    return n


class Bounds:
    """Upper bounds of the integer expressions of one kernel body for one launch."""

    def __init__(self, fn: dict, block: tuple[int, int, int], grid: tuple[int, int, int], n: int) -> None:
        self.block, self.grid, self.n = block, grid, n
        self.params = {p["name"]: p["type"] for p in fn.get("params", ())}
        self.locals: dict[str, dict] = {}        # ref id -> initializer
        self.loop_limits: dict[str, dict] = {}   # ref id -> E of a `ref < E` / `ref <= E` loop condition
        self.aliases: dict[str, tuple[str, dict | None]] = {}   # local pointer -> (parameter, offset expr)
        body = fn.get("body")
        for node in walk(body):
            if node.get("kind") == "decl" and node.get("ref") and node.get("children"):
                self.locals[node["ref"]] = node["children"][0]
                self._alias(node)
            if node.get("kind") == "for":
                for c in node.get("children", ()):
                    if c.get("kind") == "binop" and c.get("op") in ("<", "<=") and len(c.get("children", ())) == 2:
                        lhs = _strip(c["children"][0])
                        if lhs.get("kind") == "ref" and lhs.get("ref"):
                            self.loop_limits[lhs["ref"]] = c
        self._busy: set[str] = set()

    def _alias(self, decl: dict) -> None:
        if "*" not in (decl.get("type") or ""):
            return
        init = _strip(decl["children"][0])
        if init.get("kind") == "ref" and init.get("op") in self.params:
            self.aliases[decl["ref"]] = (init["op"], None)
        elif init.get("kind") == "binop" and init.get("op") == "+" and len(init.get("children", ())) == 2:
            a, b = (_strip(c) for c in init["children"])
            if a.get("kind") == "ref" and a.get("op") in self.params and "*" in self.params[a["op"]]:
                self.aliases[decl["ref"]] = (a["op"], b)

    def upper(self, node: dict | None) -> int | None:
        """An upper bound of the expression's value, or None when porter cannot bound it."""
        if node is None:
            return None
        n = _strip(node)
        kind, op = n.get("kind"), n.get("op")
        kids = n.get("children", ())
        if kind in ("int", "bool"):
            v = n.get("value")
            return int(v) if isinstance(v, (int, bool)) else None
        if kind == "member" and kids:
            base = _strip(kids[0])
            d = _DIMS.get(op or "")
            if base.get("kind") == "ref" and d is not None:
                return {"threadIdx": self.block[d] - 1, "blockIdx": self.grid[d] - 1, "blockDim": self.block[d],
                        "gridDim": self.grid[d]}.get(base.get("op"))
            return None
        if kind == "ref":
            if op == "warpSize":
                return 64
            if op in self.params and "*" not in self.params[op]:
                return self.n
            ref = n.get("ref")
            if ref in self._busy:
                return None
            self._busy.add(ref)
            try:
                bounds = [b for b in (self.upper(self.locals.get(ref)) if ref in self.locals else None,
                                      self._loop_bound(ref)) if b is not None]
            finally:
                self._busy.discard(ref)
            if ref in self.loop_limits:  # a loop variable: its condition bounds it, whatever the step
                lim = self._loop_bound(ref)
                return None if lim is None else max([lim] + bounds)
            return max(bounds) if bounds else None
        if kind == "binop" and len(kids) == 2:
            a, b = self.upper(kids[0]), self.upper(kids[1])
            if op == "%":
                return None if b is None else (b - 1 if a is None else min(a, b - 1))
            if op == "&":
                cands = [x for x in (a, b) if x is not None]
                return min(cands) if cands else None
            if a is None or b is None:
                return None
            lb = self._lower(kids[1])
            return {"+": a + b, "*": a * b, "-": a, "/": a // max(1, lb), ">>": a >> max(0, lb), "<<": a << b,
                    "|": a | b}.get(op or "")
        if kind in ("cond", "ternary") and len(kids) == 3:
            a, b = self.upper(kids[1]), self.upper(kids[2])
            return None if a is None or b is None else max(a, b)
        if kind == "call" and op in ("min", "max", "umin", "umax") and len(kids) >= 2:
            vals = [self.upper(k) for k in kids[-2:]]
            if op in ("min", "umin"):
                known = [v for v in vals if v is not None]
                return min(known) if known else None
            return None if None in vals else max(vals)  # type: ignore[type-var]
        return None

    def _lower(self, node: dict) -> int:
        n = _strip(node)
        if n.get("kind") == "int" and isinstance(n.get("value"), int):
            return int(n["value"])
        if n.get("kind") == "member" and n.get("children") and _strip(n["children"][0]).get("op") in \
                ("blockDim", "gridDim"):
            return self.upper(n) or 1
        if n.get("kind") == "ref" and n.get("op") in self.params:
            return self.n
        return 1

    def _loop_bound(self, ref: str) -> int | None:
        cond = self.loop_limits.get(ref)
        if cond is None:
            return None
        lim = self.upper(cond["children"][1])
        return None if lim is None else (lim if cond["op"] == "<=" else lim - 1)


def buffer_elements(fn: dict, block: tuple[int, int, int], grid: tuple[int, int, int],
                    n: int) -> dict[str, int | None]:
    """Elements each pointer parameter needs (None: an access porter cannot bound; absent: never subscripted)."""
    b = Bounds(fn, block, grid, n)
    need: dict[str, int | None] = {}
    for node in walk(fn.get("body")):
        if node.get("kind") != "index" or len(node.get("children", ())) != 2:
            continue
        base, idx = (_strip(c) for c in node["children"])
        if base.get("kind") != "ref":
            continue
        name, offset = base.get("op"), None
        if base.get("ref") in b.aliases:
            name, off_node = b.aliases[base["ref"]]
            offset = 0 if off_node is None else b.upper(off_node)
            if offset is None:
                need[name] = None
                continue
        if name not in b.params or "*" not in b.params[name]:
            continue
        hi = b.upper(idx)
        if hi is None or name in need and need[name] is None:
            need[name] = None
            continue
        need[name] = max(need.get(name) or 0, (offset or 0) + hi + 1)
    return need


def choose_scalar(fn: dict, block: tuple[int, int, int], grid: tuple[int, int, int], start: int,
                  cap: int) -> tuple[int, Mapping[str, Any]]:
    """The largest integer-parameter value n <= start (halving) for which every bounded buffer fits `cap`
    elements, and the sizes at that n."""
    n = max(1, start)
    while True:
        need = buffer_elements(fn, block, grid, n)
        if all(v is None or v <= cap for v in need.values()) or n <= 8:
            return n, need
        n //= 2
