"""Generators of hostile inputs for porter's robustness tests and fuzzers (tests/test_robustness.py,
tests/test_fuzz.py). Everything is generated at test time into a temporary folder: no binaries are committed."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = sorted(str(p) for p in (REPO / "samples").rglob("*.hip"))

# A small, valid kernel with a wave64 finding (W64-001/003): used as "every other file is still analyzed".
GOOD_KERNEL = """\
__global__ void warp_sum(const float* in, float* out) {
    float v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}
"""


def sample_texts() -> list[str]:
    return [Path(p).read_text() for p in SAMPLES]


# ------------------------------------------------------------------------------------------ file contents

def binary_bytes(n: int = 4096, seed: int = 0) -> bytes:
    rnd = random.Random(seed)
    return bytes(rnd.randrange(256) for _ in range(n)) + b"\0"


def non_utf8_bytes() -> bytes:
    return (b"// caf\xe9 in Latin-1\n__global__ void k(int* p) {\n"
            b"  unsigned m = __ballot(p[threadIdx.x] > 0);  /* \xa9 */\n  p[0] = m;\n}\n")


def long_line(megabytes: float = 3.0) -> str:
    """One line of several megabytes: a comment, then a huge string literal, then a valid kernel."""
    n = int(megabytes * 1024 * 1024)
    return "// " + "x" * (n // 2) + "\nconst char* s = \"" + "y" * (n // 2) + "\";\n" + GOOD_KERNEL


def nested_parens(depth: int = 10_000) -> str:
    return "__global__ void k(int* p) { p[0] = " + "(" * depth + "1" + ")" * depth + "; }\n"


def nested_ifs(depth: int) -> str:
    return "__global__ void k(int* p) { " + "if (p[0]) " * depth + "p[1] = 1; }\n"


def long_sum(terms: int) -> str:
    """A left-deep `a + a + ... + a` chain: as deep as it is long."""
    return "__global__ void k(int* p) { p[0] = " + " + ".join(["p[1]"] * terms) + "; }\n"


def macro_bomb(levels: int = 40) -> str:
    """Exponential macro expansion: A{n} expands to 2**n tokens (40 levels: a trillion)."""
    lines = ["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\n__global__ void k(int* p) {{ int x = 1; p[0] = A{levels}; }}\n"


def slow_source(levels: int = 15) -> str:
    """Valid code that takes seconds to analyze: 2**levels statements from a macro (about 12 s at 15 levels)."""
    lines = ["#define A0 p[0] += 1;"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\n__global__ void k(int* p) {{ A{levels} }}\n"


# --------------------------------------------------------------------------------------------- mutations

_TOKENS = ["__global__", "__device__", "__shared__", "void", "int", "float", "unsigned", "template", "<", ">",
           "typename", "(", ")", "{", "}", "[", "]", ";", ",", "=", "+=", "+", "-", "*", "/", "%", "<<", ">>", "&",
           "|", "^", "~", "!", "?", ":", "::", ".", "->", "threadIdx.x", "blockIdx.x", "blockDim.x", "warpSize",
           "__shfl_down_sync", "__shfl_xor", "__ballot_sync", "__syncthreads()", "0xffffffff", "32", "64", "16",
           "1", "0", "-1", "for", "while", "if", "else", "return", "#define", "#include", "#if", "#endif", "\n",
           "hipLaunchKernelGGL", "<<<", ">>>", "__launch_bounds__", "sizeof", "auto", "struct", "x", "y", "i", "p",
           "tile", "__syncwarp()", "\"str\"", "'c'", "1.0f", "18446744073709551616", "/*", "*/", "//", "\\"]


def token_soup(rnd: random.Random, n: int) -> str:
    return " ".join(rnd.choice(_TOKENS) for _ in range(n))


def mutate(text: str, rnd: random.Random, steps: int = 4) -> str:
    """Random damage to a source text: deletions, duplications, unbalanced braces, huge literals, deep nesting,
    spliced token soup, truncation."""
    for _ in range(steps):
        n = len(text)
        a = rnd.randrange(n + 1)
        b = min(n, a + rnd.randrange(1, 400))
        op = rnd.randrange(9)
        if op == 0:                                   # delete a span
            text = text[:a] + text[b:]
        elif op == 1:                                 # duplicate a span
            text = text[:b] + text[a:b] + text[b:]
        elif op == 2:                                 # unbalance braces / parens
            text = text[:a] + rnd.choice("{}()[]<>") * rnd.randrange(1, 50) + text[a:]
        elif op == 3:                                 # huge or odd literal
            lit = rnd.choice(["9" * rnd.randrange(20, 5000), "0x" + "f" * rnd.randrange(17, 300), "1e99999",
                              "0b" + "1" * 200, "1" * 60 + "ULL", "'\\x" + "f" * 40 + "'"])
            text = text[:a] + lit + text[a:]
        elif op == 4:                                 # deep nesting
            d = rnd.randrange(50, 600)
            text = text[:a] + "(" * d + "1" + ")" * d + text[a:]
        elif op == 5:                                 # token soup
            text = text[:a] + " " + token_soup(rnd, rnd.randrange(1, 60)) + " " + text[a:]
        elif op == 6:                                 # truncate
            text = text[:a]
        elif op == 7:                                 # swap numbers
            text = re.sub(r"\b\d+\b", lambda m: str(rnd.choice([0, 1, 31, 32, 63, 64, 65, 2**31, 2**64, -1])), text,
                          count=rnd.randrange(1, 20))
        else:                                         # shuffle lines
            lines = text.split("\n")
            i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


# ------------------------------------------------------------------------------------------------- trees

def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def include_cycle(root: Path) -> Path:
    write(root / "a.h", "#pragma once_not\n#include \"b.h\"\n")
    write(root / "b.h", "#include \"a.h\"\n")
    return write(root / "cycle.cu", "#include \"a.h\"\n" + GOOD_KERNEL)


def symlink_loop(root: Path) -> tuple[Path, Path]:
    a, b = root / "loop_a.cu", root / "loop_b.cu"
    os.symlink(b.name, a)
    os.symlink(a.name, b)
    return a, b


# ------------------------------------------------------------------------------------- code that must not run

# Libraries a process might look up by name in the current folder (libclang's DT_NEEDED entries and a few that
# glibc loads on demand), and the search-path suffixes the dynamic linker tries below each RPATH entry.
PLANTED_LIBRARIES = ("librt.so.1", "libdl.so.2", "libpthread.so.0", "libm.so.6", "libz.so.1", "libtinfo.so.6",
                     "libstdc++.so.6", "libgcc_s.so.1", "libnss_files.so.2")
_LIBRARY_DIRS = ("", "x86_64", "tls", "glibc-hwcaps/x86-64-v2", "glibc-hwcaps/x86-64-v3")


def marker_c(marker: Path) -> str:
    """C source whose constructor creates `marker`: proof that the object was loaded (and ran)."""
    return (f'#include <stdio.h>\n__attribute__((constructor)) static void porter_pwned(void) {{\n'
            f'    FILE* f = fopen("{marker}", "a"); if (f) {{ fputs("loaded\\n", f); fclose(f); }}\n}}\n')


def plant_libraries(root: Path, marker: Path) -> list[Path]:
    """Shared libraries under the names above, in `root` and the folders below it that the linker searches,
    each creating `marker` when loaded. Built with the system C compiler at test time."""
    import subprocess
    src = write(root / ".porter-plant.c", marker_c(marker))
    first = root / PLANTED_LIBRARIES[0]
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(first), str(src)], check=True)
    src.unlink()
    planted = []
    for d in _LIBRARY_DIRS:
        for name in PLANTED_LIBRARIES:
            dest = root / d / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest != first:
                dest.write_bytes(first.read_bytes())
            planted.append(dest)
    return planted


# Workflow commands hidden where porter repeats text from a checkout: a libclang diagnostic (static_assert,
# #error), file names with line breaks, a -D value.
FORGED = "::error file=forged.cu,line=1::forged annotation"
FORGED_SOURCE = (f'static_assert(sizeof(int) == 3, "x\\n{FORGED}");\n#error "::stop-commands::porter-tok"\n'
                 f'#warning "##[error]old-syntax forged"\n' + GOOD_KERNEL)
FORGED_NAMES = ("a\n::error::newline.hip", "b\r::warning title=t::cr.hip", "::notice::colon.hip",
                " \t::error::indented.hip")


_ANNOTATION = re.compile(r"::(error|warning|notice) file=[^,:\r\n]*,line=\d+,col=\d+(,endLine=\d+,endColumn=\d+)?"
                         r",title=[^,:\r\n]*::[^\r\n]*")


def forged_commands(text: str) -> list[str]:
    """Lines the Actions runner would read as workflow commands (it splits at CR, LF and CRLF and trims
    leading whitespace), other than well-formed porter annotations; and old-syntax `##[` commands."""
    lines = re.split(r"\r\n|\r|\n", text)
    bad = [ln for ln in lines if ln.lstrip().startswith("::") and not _ANNOTATION.fullmatch(ln)]
    return bad + [ln for ln in lines if "##[" in ln]


def plant_forged_commands(root: Path) -> list[Path]:
    return [write(root / name, FORGED_SOURCE) for name in FORGED_NAMES]


def host_code_kernel(root: Path, marker: Path) -> Path:
    """A kernel file whose host side writes `marker` in every way the emulator's build could run it: a constructor,
    a static object in a user header, a global outside clang, system() outside device compilation."""
    write(root / "boom.h", f'#include <cstdio>\nstruct Boom {{ Boom() {{ FILE* f = fopen("{marker}", "a"); '
                           f'if (f) {{ fputs("static\\n", f); fclose(f); }} }} }};\nstatic Boom boom;\n')
    return write(root / "host_code.hip", f'#include <cstdlib>\n#include "boom.h"\n{marker_c(marker)}'
                 f'#ifndef __clang__\nstatic int g = std::system("touch {marker}");\n#endif\n'
                 f'#ifndef __HIP_DEVICE_COMPILE__\nstatic int h = std::system("touch {marker}");\n#endif\n'
                 + GOOD_KERNEL)


def git_repo_with_hostile_config(root: Path, marker: Path) -> None:
    """A git checkout (one committed kernel, then changed) whose .git/config and hooks run `touch marker` from
    every place a read-only `git diff` / `ls-files` could start a program."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                       capture_output=True)
    git("init", "-q", "-b", "main")
    write(root / "k.hip", GOOD_KERNEL)
    git("add", "k.hip")
    git("commit", "-q", "-m", "base")
    touch = f"touch {marker}"
    evil = write(root / ".git" / "evil.sh", f"#!/bin/sh\n{touch}\n")
    evil.chmod(0o755)
    write(root / ".gitattributes", "* diff=evil filter=evil merge=evil\n")
    with open(root / ".git" / "config", "a") as f:
        f.write(f'[core]\n\tfsmonitor = {evil}\n\tpager = {touch}\n\thooksPath = .git/hooks\n'
                f'[diff]\n\texternal = {evil}\n[diff "evil"]\n\ttextconv = {evil}\n\tcommand = {evil}\n'
                f'[filter "evil"]\n\tclean = {touch}; cat\n\tsmudge = {touch}; cat\n\tprocess = {evil}\n'
                f'\trequired = false\n[pager]\n\tdiff = {touch}\n')
    for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction", "fsmonitor-watchman"):
        h = write(root / ".git" / "hooks" / hook, f"#!/bin/sh\n{touch}\n")
        h.chmod(0o755)
    write(root / "k.hip", GOOD_KERNEL + "__global__ void k2(float* p) {\n"
                                        "    p[0] = __shfl_down_sync(0xffffffff, p[1], 1);\n}\n")
    write(root / "new.hip", GOOD_KERNEL)


def leaking_include(root: Path, secret: Path) -> Path:
    """A kernel file whose parse error quotes the first name in `secret` (a file outside the tree): clang names
    an enum template argument by its enumerator."""
    return write(root / "leak.hip", f'enum E {{\n#include "{secret}"\n}};\ntemplate <E V> struct T;\n'
                                    f'T<(E)0> t;\n' + GOOD_KERNEL)
