"""Source preparation for `porter emulate`: the two rewrites g++ cannot do with macros (chevron launches and
`extern __shared__` arrays) and the kernel's parameter names. Works on a copy of the text in which comments,
string and character literals are blanked out, so that nothing inside them is touched; every rewrite keeps the
line count, so compiler messages and the runtime's call-site lines point at the user's file."""

from __future__ import annotations

_IDENT = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


def blank_non_code(text: str) -> str:
    """Return `text` with comments and string/char literals replaced by spaces (newlines kept): same length."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1] in _IDENT and text[i - 1].isdigit())):
            # (a ' after a digit is a C++14 digit separator, not a character literal)
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
            if c == '"' and i > 0 and text[i - 1] == "R":  # raw strings: rare in kernels, blank to the delimiter
                k = text.find("(", i)
                delim = text[i + 1:k] if k > 0 else ""
                end = text.find(")" + delim + '"', k)
                j = n if end < 0 else end + len(delim) + 2
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _match_forward(code: str, i: int) -> int:
    """Index just past the bracket that closes code[i] (one of ( [ {)."""
    depth = 0
    for j in range(i, len(code)):
        ch = code[j]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced brackets")


def _callee_start(code: str, end: int) -> int:
    """Start of the kernel expression that ends just before `end` (`name`, `ns::name`, `name<T, 256>`)."""
    i = end
    while i > 0 and code[i - 1].isspace():
        i -= 1
    if i > 0 and code[i - 1] == ">":  # template arguments: walk back to the matching '<'
        depth = 0
        while i > 0:
            i -= 1
            if code[i] == ">":
                depth += 1
            elif code[i] == "<":
                depth -= 1
                if depth == 0:
                    break
        while i > 0 and code[i - 1].isspace():
            i -= 1
    while i > 0:
        if code[i - 1] in _IDENT:
            i -= 1
        elif i > 1 and code[i - 2:i] == "::":
            i -= 2
        else:
            break
    return i


def _rewrite_chevrons(text: str, code: str) -> str:
    edits: list[tuple[int, int, str]] = []
    pos = 0
    while (k := code.find("<<<", pos)) >= 0:
        start = _callee_start(code, k)
        depth, j = 0, k + 3
        while j < len(code):
            if code[j] in _OPEN:
                depth += 1
            elif code[j] in _CLOSE:
                depth -= 1
            elif depth == 0 and code.startswith(">>>", j):
                break
            j += 1
        if start == k or j >= len(code):
            pos = k + 3
            continue
        callee, cfg = text[start:k].strip(), text[k + 3:j]
        edits.append((start, j + 3, f"::porter::chevron({callee}, {cfg})"))
        pos = j + 3
    for a, b, new in reversed(edits):
        text = text[:a] + new + text[b:]
    return text


def _strip_attributes(decl: str) -> str:
    """Drop `__align__(n)`, `alignas(n)`, `__attribute__((...))` from a declaration's type part."""
    out, i = [], 0
    while i < len(decl):
        for word in ("__align__", "alignas", "__attribute__"):
            if decl.startswith(word, i) and (i == 0 or decl[i - 1] not in _IDENT):
                j = i + len(word)
                while j < len(decl) and decl[j].isspace():
                    j += 1
                if j < len(decl) and decl[j] == "(":
                    i = _match_forward(decl, j)
                    break
        else:
            out.append(decl[i])
            i += 1
    return "".join(out)


def _rewrite_extern_shared(text: str, code: str) -> str:
    # `extern __shared__ T name[];` becomes a per-thread (that is, per-resident-block) pointer to the dynamic
    # shared buffer of the worker running the block.
    edits: list[tuple[int, int, str]] = []
    pos = 0
    while (k := code.find("__shared__", pos)) >= 0:
        pos = k + 10
        before = code[:k].rstrip()
        if not before.endswith("extern") or (len(before) > 6 and before[-7] in _IDENT):
            continue
        start = len(before) - 6
        semi = code.find(";", k)
        if semi < 0:
            continue
        decl = code[k + 10:semi]
        lb = decl.rfind("[")
        if lb < 0:
            continue
        head = decl[:lb].rstrip()
        n = len(head)
        while n > 0 and head[n - 1] in _IDENT:
            n -= 1
        name, typ = head[n:], " ".join(_strip_attributes(head[:n]).split())
        if not name or not typ:
            continue
        newlines = text[start:semi + 1].count("\n")
        new = (f"static thread_local {typ}* const {name} = "
               f"reinterpret_cast<{typ}*>(::porter::dyn_shared());" + "\n" * newlines)
        edits.append((start, semi + 1, new))
    for a, b, new in reversed(edits):
        text = text[:a] + new + text[b:]
    return text


def rewrite(text: str) -> str:
    """Make hipified source compilable by g++ with porter's runtime headers (line numbers unchanged)."""
    text = _rewrite_extern_shared(text, blank_non_code(text))
    return _rewrite_chevrons(text, blank_non_code(text))


def _split_top_level(s: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def _param_names(code: str, lp: int) -> list[str]:
    """Names of the parameters in the parenthesized list that opens at code[lp]."""
    rp = _match_forward(code, lp)
    if code[lp + 1:rp - 1].strip() in ("", "void"):
        return []
    names = []
    for i, p in enumerate(_split_top_level(code[lp + 1:rp - 1])):
        p = p.split("=", 1)[0].strip()
        if "[" in p:
            p = p[:p.index("[")].rstrip()
        n = len(p)
        while n > 0 and p[n - 1] in _IDENT:
            n -= 1
        word = p[n:]
        names.append(word if word and p[:n].strip() and not word[0].isdigit() else f"arg{i}")
    return names


def _name_then_paren(code: str, base: str, start: int, stop: int) -> int | None:
    """Position of the "(" after the first whole-word `base` in code[start:stop] that a "(" follows."""
    k = start
    while (k := code.find(base, k, stop)) >= 0:
        after = k + len(base)
        ok_left = k == 0 or code[k - 1] not in _IDENT
        if ok_left and (after >= len(code) or code[after] not in _IDENT) and code[after:stop].lstrip().startswith("("):
            return code.index("(", after)
        k = after
    return None


def kernel_param_names(text: str, kernel: str) -> list[str] | None:
    """Parameter names of the `__global__` function `kernel` (template arguments ignored), or None when no
    definition is found (names are labels only: the compiler supplies the types)."""
    base = kernel.split("<", 1)[0].strip().split("::")[-1]
    code = blank_non_code(text)
    pos = 0
    while (g := code.find("__global__", pos)) >= 0:
        pos = g + 10
        stop = min([x for x in (code.find("{", g), code.find(";", g)) if x >= 0] or [len(code)])
        lp = _name_then_paren(code, base, g, stop)
        if lp is not None:
            return _param_names(code, lp)
    return None


def launcher_param_names(text: str, function: str) -> list[str] | None:
    """Parameter names of the host function `function` where it is defined (its parameter list followed by a
    body), or None."""
    base = function.split("<", 1)[0].strip().split("::")[-1]
    code = blank_non_code(text)
    pos = 0
    while (lp := _name_then_paren(code, base, pos, len(code))) is not None:
        pos = lp + 1
        rest = code[_match_forward(code, lp):].lstrip()
        if rest.startswith("{"):
            return _param_names(code, lp)
    return None
