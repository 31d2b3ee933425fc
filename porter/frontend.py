"""The libclang front end: the only module that imports clang.cindex.

parse(path, config) builds a device-side translation unit for the chosen target with porter's HIP stub header;
extract(tu, path, target) turns the user's code in it into Facts (porter/facts.py). Only cursors located in the
analyzed file are walked: walking a cursor costs microseconds through ctypes, and the STL is large.

One parse at a time per process: the child walk and the type-spelling caches are module state, so threads must
not parse concurrently (porter's pool runs files in worker processes).
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import itertools
import json
import os
import re
import shlex
import stat
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Iterator
from pathlib import Path

import clang.cindex as ci

from porter import __version__, preamble
from porter.analysis import NAMED_SUFFIXES
from porter.facts import (COMMAND_LINE, NO_LOC, CrossLaneCall, Diagnostic, FileFacts, Function, IntLiteral, Launch,
                          Loc, MacroDef, MacroUse, Node, Param, Recovered, SharedAccess, SharedDecl, Skipped,
                          ValueFunction,
                          define_conditions, fold_int, names_builtin_width, split_lines,
                          undeclared_identifier)
from porter.frontend_config import ParseConfig
from porter.resources import package_path
from porter.token_reader import Reader, Tok

STUB_INCLUDE = package_path("parse_headers", "include")
STUB_RESOURCE = package_path("parse_headers", "resource")
# PyTorch declarations used only when the project's include path lacks the real headers
# (-idirafter: searched after every user and system folder), so that host launch code inside AT_DISPATCH_* parses
STUB_FALLBACK = package_path("parse_headers", "fallback")

# Calls whose meaning depends on the wavefront width.
CROSS_LANE_CALLS = frozenset({
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
    "__shfl_xor_sync", "__ballot", "__ballot_sync", "__activemask", "__any", "__all", "__any_sync", "__all_sync",
    "__match_any", "__match_any_sync", "__match_all_sync", "__syncwarp", "__popc", "__popcll", "__ffs", "__ffsll",
    "__clz", "__clzll", "__brev", "__brevll", "__lanemask_lt",
    # cooperative-groups tile members
    "shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "tiled_partition",
})

_BINOPS = {3: "*", 4: "/", 5: "%", 6: "+", 7: "-", 8: "<<", 9: ">>", 10: "<=>", 11: "<", 12: ">", 13: "<=",
           14: ">=", 15: "==", 16: "!=", 17: "&", 18: "^", 19: "|", 20: "&&", 21: "||", 22: "=", 23: "*=",
           24: "/=", 25: "%=", 26: "+=", 27: "-=", 28: "<<=", 29: ">>=", 30: "&=", 31: "^=", 32: "|=", 33: ","}
_OVERLOADABLE = {"=", "+=", "-=", "*=", "/=", "+", "-", "*", "/", "<", ">", "<=", ">=", "==", "!="}
_UNOPS = {1: "post++", 2: "post--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~", 10: "!"}
_CASTS = {"CSTYLE_CAST_EXPR": "c", "CXX_STATIC_CAST_EXPR": "static", "CXX_REINTERPRET_CAST_EXPR": "reinterpret",
          "CXX_FUNCTIONAL_CAST_EXPR": "functional", "CXX_CONST_CAST_EXPR": "const"}
_STMTS = {"COMPOUND_STMT": "block", "RETURN_STMT": "return", "BREAK_STMT": "break", "CONTINUE_STMT": "continue",
          "WHILE_STMT": "while", "DO_STMT": "do", "IF_STMT": "if", "DECL_STMT": "decls", "INIT_LIST_EXPR": "init_list",
          "CONDITIONAL_OPERATOR": "cond", "ARRAY_SUBSCRIPT_EXPR": "index", "FLOATING_LITERAL": "float",
          "CXX_BOOL_LITERAL_EXPR": "int", "SWITCH_STMT": "switch", "CASE_STMT": "case", "LAMBDA_EXPR": "lambda",
          "STATIC_ASSERT": "static_assert"}
# statements keep only their start position (findings point at expressions)
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\(([^)]*)\)")
_STATEMENTS = ("block", "decls", "return", "break", "continue", "while", "do", "if", "switch", "case")
_STATEMENT_KINDS = {k for k, v in _STMTS.items() if v in _STATEMENTS}
_SKIP = {"TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF", "CUDASHARED_ATTR", "CUDAGLOBAL_ATTR", "CUDADEVICE_ATTR",
         "CUDAHOST_ATTR", "CUDACONSTANT_ATTR", "UNEXPOSED_ATTR", "ALIGNED_ATTR", "PARM_DECL", "MEMBER_REF",
         "TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER", "ANNOTATE_ATTR", "VISIBILITY_ATTR",
         "CONST_ATTR", "PURE_ATTR", "NULL_STMT"}
_CONTAINERS = {"NAMESPACE", "LINKAGE_SPEC", "STRUCT_DECL", "CLASS_DECL", "CLASS_TEMPLATE",
               "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION", "UNEXPOSED_DECL"}
_FUNCTIONS = {"FUNCTION_DECL", "FUNCTION_TEMPLATE", "CXX_METHOD", "CONVERSION_FUNCTION"}  # operator T*() too
_TEMPLATE_ARG_TYPE, _TEMPLATE_ARG_INTEGRAL = 1, 4  # CXTemplateArgumentKind
_PARSE_OPTIONS = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | 0x200  # 0x200: keep going after fatal


class FrontendError(Exception):
    """A file could not be parsed at all; the message names the file and the problem."""


# ---------------------------------------------------------------------------------------------- libclang glue

_UINT_P = ctypes.POINTER(ctypes.c_uint)


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


# Functions the bindings do not declare (or declare with slow result wrapping): (name, argtypes, restype, errcheck)
_SIGNATURES = (
    ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int, None),
    ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int, None),
    ("clang_Cursor_Evaluate", [ci.Cursor], ctypes.c_void_p, None),
    ("clang_EvalResult_getKind", [ctypes.c_void_p], ctypes.c_int, None),
    ("clang_EvalResult_isUnsignedInt", [ctypes.c_void_p], ctypes.c_uint, None),
    ("clang_EvalResult_getAsUnsigned", [ctypes.c_void_p], ctypes.c_ulonglong, None),
    ("clang_EvalResult_getAsLongLong", [ctypes.c_void_p], ctypes.c_longlong, None),
    ("clang_EvalResult_dispose", [ctypes.c_void_p], None, None),
    ("clang_getFileLocation", [ci.SourceLocation, ctypes.POINTER(ctypes.c_void_p), _UINT_P, _UINT_P, _UINT_P],
     None, None),
    ("clang_getSpecializedCursorTemplate", [ci.Cursor], ci.Cursor, ci.Cursor.from_result),
    ("clang_Cursor_isMacroFunctionLike", [ci.Cursor], ctypes.c_uint, None),
    ("clang_Location_isFromMainFile", [ci.SourceLocation], ctypes.c_int, None),
    # the bindings map the kind through a table that lacks Pack (8) and later kinds and raise on them
    ("clang_Cursor_getTemplateArgumentKind", [ci.Cursor, ctypes.c_uint], ctypes.c_int, None),
    ("clang_getSkippedRanges", [ci.TranslationUnit, ci.File], ctypes.POINTER(_RangeList), None),
    ("clang_disposeSourceRangeList", [ctypes.POINTER(_RangeList)], None, None),
)
# A second handle on the same library, for calls without the bindings' per-result wrapping (Type objects,
# CXString conversions): extents and type spellings are read for almost every node.
_RAW_SIGNATURES = (
    ("clang_getCursorType", [ci.Cursor], ci.Type, None),
    ("clang_getTypeSpelling", [ci.Type], ci._CXString, None),
    ("clang_getCString", [ci._CXString], ctypes.c_char_p, None),
    ("clang_getCursorExtent", [ci.Cursor], ci.SourceRange, None),
    ("clang_getRangeStart", [ci.SourceRange], ci.SourceLocation, None),
    ("clang_getRangeEnd", [ci.SourceRange], ci.SourceLocation, None),
    ("clang_getCursorReferenced", [ci.Cursor], ci.Cursor, None),
    ("clang_getCursorLocation", [ci.Cursor], ci.SourceLocation, None),
    ("clang_getExpansionLocation", [ci.SourceLocation, ctypes.POINTER(ctypes.c_void_p), _UINT_P, _UINT_P, _UINT_P],
     None, None),
    ("clang_getFileName", [ctypes.c_void_p], ci._CXString, None),
    ("clang_getCursorSpelling", [ci.Cursor], ci._CXString, None),
    ("clang_Cursor_isNull", [ci.Cursor], ctypes.c_int, None),
    ("clang_Cursor_getVarDeclInitializer", [ci.Cursor], ci.Cursor, None),
    ("clang_Cursor_getNumArguments", [ci.Cursor], ctypes.c_int, None),
    ("clang_Cursor_getArgument", [ci.Cursor, ctypes.c_uint], ci.Cursor, None),
    ("clang_getCanonicalType", [ci.Type], ci.Type, None),
    ("clang_tokenize", [ci.TranslationUnit, ci.SourceRange, ctypes.POINTER(ctypes.POINTER(ci.Token)), _UINT_P],
     None, None),
    ("clang_disposeTokens", [ci.TranslationUnit, ctypes.POINTER(ci.Token), ctypes.c_uint], None, None),
    ("clang_getTokenKind", [ci.Token], ctypes.c_int, None),
    ("clang_getTokenLocation", [ci.TranslationUnit, ci.Token], ci.SourceLocation, None),
    ("clang_getTokenSpelling", [ci.TranslationUnit, ci.Token], ci._CXString, None),
    ("clang_Type_getSizeOf", [ci.Type], ctypes.c_longlong, None),
    ("clang_getTypeDeclaration", [ci.Type], ci.Cursor, None),
    ("clang_isInvalidDeclaration", [ci.Cursor], ctypes.c_uint, None),
)


def _declare(lib: ctypes.CDLL, signatures: tuple) -> ctypes.CDLL:
    for name, argtypes, restype, errcheck in signatures:
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, restype
        if errcheck is not None:
            fn.errcheck = errcheck
    return lib


def _load_libclang() -> ctypes.CDLL:
    """Load libclang from an empty private folder. The wheel's RPATH (`$ORIGIN/../lib:`) ends in an empty entry,
    which the dynamic linker reads as the current folder (and tls/, x86_64/, ... below it): from a checkout's root
    a committed `librt.so.1` would be loaded, and its constructor run, by plain `porter analyze .`."""
    here = os.open(".", getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY)
    try:
        with tempfile.TemporaryDirectory(prefix="porter-load-") as empty:
            os.chdir(empty)
            try:
                return ci.conf.lib
            finally:
                os.fchdir(here)
    finally:
        os.close(here)


_LIB = _declare(_load_libclang(), _SIGNATURES)
_RAW = _declare(ctypes.CDLL(ci.conf.get_filename()), _RAW_SIGNATURES)
# CursorKind.name is a linear search in the bindings; this table makes it a dict lookup. Built from the class's
# attributes: asking each kind its name rebuilds the bindings' name table every time (60 ms per worker).
_KIND_NAMES: dict[int, str] = {k.value: name for name, k in vars(ci.CursorKind).items()
                               if isinstance(k, ci.CursorKind)}
_EXPRESSION_KINDS = {k.value for k in ci.CursorKind.get_all_kinds() if k.is_expression()}
_INVALID_KINDS = {k.value for k in ci.CursorKind.get_all_kinds() if k.is_invalid()}
# Type kinds by number: Type.kind raises on kinds newer than the bindings' table (_Float16 is 32, __bf16 ...)
_POINTER, _CONSTANT_ARRAY, _BOOL = ci.TypeKind.POINTER.value, ci.TypeKind.CONSTANTARRAY.value, ci.TypeKind.BOOL.value
_ARRAY_TYPE_KINDS = {ci.TypeKind.CONSTANTARRAY.value, ci.TypeKind.INCOMPLETEARRAY.value,
                     ci.TypeKind.DEPENDENTSIZEDARRAY.value, ci.TypeKind.VARIABLEARRAY.value}


def _kind(c: ci.Cursor) -> str:
    return _KIND_NAMES.get(c._kind_id, "")


_VISIT = ci.callbacks["cursor_visit"]


def _decl_key(c: ci.Cursor) -> tuple[int, int]:
    """A declaration cursor's identity (kind, Decl pointer). Not clang_hashCursor: a 32-bit hash of the same, which
    collides (in ggml's binbcast.cu a parameter of one function took the id of a local of another)."""
    return c._kind_id, c.data[0]


def _found(cursor: ci.Cursor, of: ci.Cursor) -> ci.Cursor | None:
    """A cursor libclang returned for `of` through the raw handle, None for the null cursor: one call, where the
    bindings' result check makes two (null cursor and comparison) and scans the arguments for the unit."""
    if _RAW.clang_Cursor_isNull(cursor):
        return None
    cursor._tu = of._tu
    return cursor


def _referenced(c: ci.Cursor) -> ci.Cursor | None:
    """c.referenced."""
    return _found(_RAW.clang_getCursorReferenced(c), c)


def _initializer_of(c: ci.Cursor) -> ci.Cursor | None:
    """A variable's initializer expression, or None."""
    return _found(_RAW.clang_Cursor_getVarDeclInitializer(c), c)


def _spelling(c: ci.Cursor) -> str:
    """c.spelling through the raw handle, cached where the bindings cache it (getattr with a default: a caught
    AttributeError costs microseconds, and most cursors are spelled once)."""
    spelling: str | None = getattr(c, "_spelling", None)
    if spelling is None:
        cx = _RAW.clang_getCursorSpelling(c)
        spelling = (_RAW.clang_getCString(cx) or b"").decode("utf-8", "replace")
        c._spelling = spelling  # type: ignore[attr-defined]
    return spelling


# Type spellings by CXType identity (kind and the QualType's pointers, unique within one translation unit):
# a file has a few dozen distinct types and thousands of typed expressions. extract() clears it per file.
_TYPE_SPELLINGS: dict[tuple[int, int | None, int | None], str] = {}
# Bit width of every integer type spelling seen (typedefs such as u32 included), from the canonical type.
_INT_BITS: dict[str, int] = {}
_INTEGER_KINDS = range(3, 21)   # CXType_Bool .. CXType_Int128


def _type_spelling(c: ci.Cursor) -> str:
    """c.type.spelling."""
    t = _RAW.clang_getCursorType(c)
    key = (t._kind_id, t.data[0], t.data[1])
    spelling = _TYPE_SPELLINGS.get(key)
    if spelling is None:
        cx = _RAW.clang_getTypeSpelling(t)  # disposed by _CXString.__del__
        spelling = _TYPE_SPELLINGS[key] = (_RAW.clang_getCString(cx) or b"").decode("utf-8", "replace")
        canonical = _RAW.clang_getCanonicalType(t)
        # a typedef of a type no header declared (hypre's `typedef hypre_ulonglongint hypre_mask;` without
        # _hypre_utilities.h) is invalid and clang reads it as int: its width is unknown, not 32 bits
        if canonical._kind_id in _INTEGER_KINDS and not _RAW.clang_isInvalidDeclaration(
                _RAW.clang_getTypeDeclaration(t)):
            _INT_BITS[spelling] = 8 * _RAW.clang_Type_getSizeOf(canonical)
    return spelling


def _canonical_spelling(c: ci.Cursor) -> str:
    """The cursor's type with typedefs resolved, or "" when that is its spelling already."""
    t = _RAW.clang_getCursorType(c)
    cx = _RAW.clang_getTypeSpelling(_RAW.clang_getCanonicalType(t))
    canonical = (_RAW.clang_getCString(cx) or b"").decode("utf-8", "replace")
    return "" if canonical == _type_spelling(c) else canonical


_SINK: list[list[ci.Cursor]] = [[]]


def _collect_child(child: ci.Cursor, parent: ci.Cursor, acc: object) -> int:
    _SINK[0].append(child)
    return 1  # CXChildVisit_Continue


_COLLECT_CHILD = _VISIT(_collect_child)  # one ctypes thunk for every call, not one per call


def _children(c: ci.Cursor) -> list[ci.Cursor]:
    """Cursor.get_children without its per-child null-cursor check (a ctypes call per child). Not reentrant:
    the visitor only collects, so nothing runs inside it."""
    out: list[ci.Cursor] = []
    _SINK[0] = out
    _LIB.clang_visitChildren(c, _COLLECT_CHILD, None)
    _SINK[0] = []  # drop the reference: the cursors keep their translation unit alive
    tu = c._tu
    for child in out:
        child._tu = tu
    return out


def _preorder(c: ci.Cursor) -> Iterator[ci.Cursor]:
    """c.walk_preorder() over _children (the bindings' walk makes a ctypes thunk and a null check per child)."""
    yield c
    for child in _children(c):
        yield from _preorder(child)


def _arguments(c: ci.Cursor) -> list[ci.Cursor]:
    """c.get_arguments()."""
    found = (_found(_RAW.clang_Cursor_getArgument(c, i), c) for i in range(_RAW.clang_Cursor_getNumArguments(c)))
    return [arg for arg in found if arg is not None]


_COMMENT_TOKEN = ci.TokenKind.COMMENT.value


def _tokens(tu: ci.TranslationUnit, ext: ci.SourceRange) -> list[Tok]:
    """The tokens of an extent, comments left out: tu.get_tokens through the raw handle (the bindings make a
    Token, a SourceLocation and a File object per token and read each field with its own call)."""
    memory, count = ctypes.POINTER(ci.Token)(), ctypes.c_uint()
    _RAW.clang_tokenize(tu, ext, ctypes.byref(memory), ctypes.byref(count))
    if count.value < 1:
        return []
    try:
        out = []
        for i in range(count.value):
            tok = memory[i]
            if _RAW.clang_getTokenKind(tok) == _COMMENT_TOKEN:
                continue
            _RAW.clang_getExpansionLocation(_RAW.clang_getTokenLocation(tu, tok), *_OUT_ARGS)
            text = (_RAW.clang_getCString(_RAW.clang_getTokenSpelling(tu, tok)) or b"").decode("utf-8", "replace")
            out.append(Tok(text, _OUT_LINE.value, _OUT_COL.value))
        return out
    finally:
        _RAW.clang_disposeTokens(tu, memory, count)


def _code_only(toks: list[Tok], skipped: frozenset[int]) -> list[Tok]:
    """Tokens that are code: not on lines of preprocessor branches the parse skipped, nor on directive lines
    ('#pragma unroll', '#endif': a line whose first token is '#')."""
    out: list[Tok] = []
    directive = 0
    for t in toks:
        if t.line in skipped or t.line == directive:
            continue
        if t.text == "#" and (not out or out[-1].line != t.line):
            directive = t.line
            continue
        out.append(t)
    return out


def _evaluate_int(cursor: ci.Cursor) -> int | None:
    res = _LIB.clang_Cursor_Evaluate(cursor)
    if not res:
        return None
    try:
        if _LIB.clang_EvalResult_getKind(res) != 1:  # CXEval_Int
            return None
        if _LIB.clang_EvalResult_isUnsignedInt(res):
            return int(_LIB.clang_EvalResult_getAsUnsigned(res))
        return int(_LIB.clang_EvalResult_getAsLongLong(res))
    finally:
        _LIB.clang_EvalResult_dispose(res)


# Out-parameters of clang_getFileLocation, allocated once: it runs for every node (each worker is one thread).
_OUT_FILE, _OUT_LINE, _OUT_COL, _OUT_OFF = ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
_OUT_ARGS = (ctypes.byref(_OUT_FILE), ctypes.byref(_OUT_LINE), ctypes.byref(_OUT_COL), ctypes.byref(_OUT_OFF))


# What the two location calls below returned, by the location's raw encoding (CXSourceLocation.int_data, unique
# within one translation unit; extract() clears them per file). Each call costs ~2 us, and a template's
# instantiations share their source locations: in ggml's binbcast.cu 165,000 extent ends inside macros are 1,639
# distinct locations.
_EXPANSIONS: dict[int, tuple[int, int, int]] = {}
_FILE_LINE_COLS: dict[int, tuple[int, int, int]] = {}
_TOKS: dict[int, str] = {}   # _tok's, by the same key


def _expansion_line_col(cursor: ci.Cursor) -> tuple[int, int, int]:
    """(file handle, line, column) where the cursor's location is expanded (cursor.location's file/line/col)."""
    location = _RAW.clang_getCursorLocation(cursor)
    hit = _EXPANSIONS.get(location.int_data)
    if hit is None:
        _RAW.clang_getExpansionLocation(location, *_OUT_ARGS)
        hit = _EXPANSIONS[location.int_data] = (_OUT_FILE.value or 0, _OUT_LINE.value, _OUT_COL.value)
    return hit


def _file_line_col(location: ci.SourceLocation) -> tuple[int, int, int]:
    """(file handle, line, column) of the exact spelling place in a file (macro arguments resolved)."""
    hit = _FILE_LINE_COLS.get(location.int_data)
    if hit is None:
        _LIB.clang_getFileLocation(location, *_OUT_ARGS)
        hit = _FILE_LINE_COLS[location.int_data] = (_OUT_FILE.value or 0, _OUT_LINE.value, _OUT_COL.value)
    return hit


# ------------------------------------------------------------------------------------------------- arguments

def _cache_dir() -> Path:
    base = os.environ.get("PORTER_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "porter")
    return Path(base)


def _parse_arch(target: str) -> str:
    """The --offload-arch libclang parses with: from the target's file, since libclang 18 rejects names it does
    not know (gfx950, sm_90)."""
    from porter.targets import load_target
    try:
        return load_target(target).parse_arch
    except KeyError:
        return target  # not a porter target (a test's own arch): libclang says whether it knows it


def _base_args(config: ParseConfig) -> list[str]:
    return ["-x", "hip", f"-std={config.std}", "-nogpuinc", "-nogpulib", "--cuda-device-only",
            f"--offload-arch={_parse_arch(config.target)}", "-D__HIP_PLATFORM_AMD__", "-ferror-limit=0",
            # clang's default of 256 nested brackets drops the rest of a statement in generated code; extract()
            # handles ~2,000 levels
            "-fbracket-depth=1024", "-Wno-unknown-attributes",
            "-isystem", str(STUB_RESOURCE), "-isystem", str(STUB_INCLUDE), "-idirafter", str(STUB_FALLBACK)]


# Building a PCH performs the template instantiations its headers leave pending (<cmath>, <string>, <iostream>
# leave hundreds); without this every file that loads the PCH performs them again at its end: 68 of the 78 ms
# that loading porter's PCH cost per file.
_PCH_BUILD_ARGS = ["-fpch-instantiate-templates"]

_PCH_HEADER = "// porter precompiled header: the HIP stub and the standard headers hipified code includes most\n" \
    "#include <porter_hip_stub.h>\n" + "".join(f"#include <{h}>\n" for h in preamble.PRECOMPILED)


def precompiled_header(config: ParseConfig, broken: Path | None = None) -> Path | None:
    """Build (once, cached by content) a PCH of the stub and common STL headers; None if it cannot be built or
    stored (an unwritable cache folder: files are then parsed without it). Workers build it under a lock, each
    into its own temporary file renamed into place, so that no one ever reads a partial PCH; `broken` is a PCH
    that failed to load: it is rebuilt unless another worker has replaced it already."""
    stub = (STUB_INCLUDE / "porter_hip_stub.h").read_bytes()
    key = hashlib.sha256(json.dumps([_base_args(config), _PCH_BUILD_ARGS, __version__, ci.__file__]).encode() + stub
                         + _PCH_HEADER.encode()).hexdigest()[:16]
    pch = _cache_dir() / "pch" / f"stub-{config.target}-{key}.pch"
    if broken is None and pch.is_file():
        return pch
    try:
        pch.parent.mkdir(parents=True, exist_ok=True)
        with open(pch.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if pch.is_file() and (broken is None or not os.path.samefile(pch, broken)):
                return pch   # another worker built it while this one waited
            return _build_pch(pch, config)
    except OSError:
        return None


def _build_pch(pch: Path, config: ParseConfig) -> Path | None:
    # The PCH records its header's size and time: the header is written once and never rewritten (a rewrite,
    # even with the same text, invalidates every PCH built from it).
    header = pch.with_suffix(".h")
    if not header.is_file() or header.read_text() != _PCH_HEADER:
        tmp_header = header.with_suffix(f".{os.getpid()}.h.tmp")
        tmp_header.write_text(_PCH_HEADER)
        os.replace(tmp_header, header)
    tmp = pch.with_suffix(f".{os.getpid()}.tmp")
    try:
        tu = ci.Index.create().parse(str(header), args=_base_args(config) + _PCH_BUILD_ARGS,
                                     options=ci.TranslationUnit.PARSE_INCOMPLETE)
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            return None
        tu.save(str(tmp))
        os.replace(tmp, pch)
    except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        return None
    finally:
        tmp.unlink(missing_ok=True)
    return pch


def compile_db_args(db_path: str, source: Path) -> list[str]:
    """The -I/-D/-std/-include flags that compile_commands.json gives for `source` (nothing is executed)."""
    try:
        st = os.stat(db_path)
        index = _compile_db_index(db_path, st.st_mtime_ns, st.st_size)
    except OSError as exc:
        raise FrontendError(f"{db_path}: cannot read compile database: {exc.strerror or exc}") from exc
    if isinstance(index, str):
        raise FrontendError(index)
    entry = index.get(os.path.normpath(os.path.abspath(source))) or index.get(os.path.realpath(source))
    if entry is None:
        return []
    directory, argv = entry
    if isinstance(argv, str):
        try:
            argv = shlex.split(argv)
        except ValueError as exc:
            raise FrontendError(f"{db_path}: the command for {source} cannot be split: {exc}") from exc
    return _useful_flags(argv, directory)


@lru_cache(maxsize=2)
def _compile_db_index(db_path: str, mtime_ns: int, size: int) -> dict[str, tuple[Path, list[str] | str]] | str:
    """absolute normalized file -> (directory, arguments or command), read once per process (a database can hold
    100k entries; reading it for every file made a run 9x slower, and resolving every entry's symlinks cost ~20 s
    for 200k). A str is the reason it cannot be read."""
    try:
        entries = json.loads(Path(db_path).read_bytes())
    except (OSError, ValueError) as exc:
        return f"{db_path}: cannot read compile database: {exc}"
    index: dict[str, tuple[Path, list[str] | str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        directory = Path(entry.get("directory") if isinstance(entry.get("directory"), str) else ".")
        argv = entry.get("arguments")
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
            argv = entry.get("command") if isinstance(entry.get("command"), str) else []
        key = os.path.normpath(os.path.join(os.path.abspath(directory), entry["file"]))
        index.setdefault(key, (directory, argv))   # the first entry wins
    return index


def _useful_flags(argv: list[str], directory: Path) -> list[str]:
    out: list[str] = []
    it = iter(argv[1:])
    for arg in it:
        for flag in ("-I", "-isystem", "-D", "-U", "-include"):
            if arg == flag:
                value = next(it, "")
                break
            if arg.startswith(flag) and flag != "-include":
                value = arg[len(flag):]
                break
        else:
            if arg.startswith("-std="):
                out.append(arg)
            continue
        if flag in ("-I", "-isystem", "-include") and not os.path.isabs(value):
            value = str(directory / value)
        out += [flag, value]
    return out


def build_args(path: Path, config: ParseConfig, pch: Path | None) -> list[str]:
    args = _base_args(config)
    if pch is not None:
        args += ["-include-pch", str(pch)]
    else:
        args += ["-include", "porter_hip_stub.h"]
    for d in config.include_dirs:
        args += ["-I", d]
    for d in config.defines:
        args += ["-D", d]
    if config.compile_db:
        args += compile_db_args(config.compile_db, path)
    args += list(config.extra_args)
    return args


# ---------------------------------------------------------------------------------------------------- parsing

def check_readable(path: Path, config: ParseConfig) -> tuple[str, str]:
    """Return the file's text and, for a file that is not UTF-8, a note saying how it was read; or raise
    FrontendError saying why it cannot be analyzed."""
    if path.is_dir():
        raise FrontendError(f"{path}: is a directory, not a source file")
    if not path.name.endswith(NAMED_SUFFIXES):
        raise FrontendError(f"{path}: not a HIP/CUDA source (expected one of {' '.join(NAMED_SUFFIXES)})")
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read until the time limit; a device never ends
            raise FrontendError(f"{path}: not a regular file (a pipe, device or socket); not read")
        size = st.st_size
        if size > config.max_file_bytes:
            raise FrontendError(f"{path}: {size} bytes exceeds --max-file-size ({config.max_file_bytes} bytes)")
        data = path.read_bytes()
    except OSError as exc:
        raise FrontendError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if b"\0" in data[:65536]:
        raise FrontendError(f"{path}: binary file (contains NUL bytes), not C++ source")
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as exc:
        # real sources carry Latin-1 bytes in comments (a copyright sign, an author's name); clang reads them as
        # bytes, so the file is analyzed with each such byte as U+FFFD, and libclang is given that text
        line = data[:exc.start].count(b"\n") + 1
        bad = sum(1 for _ in _undecodable(data))
        return data.decode("utf-8", errors="replace"), (
            f"{path}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}"
            f"{f' and {bad - 1} more' if bad > 1 else ''}); read with each undecodable byte as U+FFFD")


def _undecodable(data: bytes) -> Iterator[int]:
    """Offsets of the bytes a UTF-8 decoder rejects."""
    at = 0
    while at < len(data):
        try:
            data[at:].decode("utf-8")
            return
        except UnicodeDecodeError as exc:
            yield at + exc.start
            at += exc.end


def _clang_name(path: Path) -> str:
    """The file name as libclang is given it: it joins the name to the command line, where "-x.hip" is a flag."""
    name = str(path)
    return f"./{name}" if name.startswith("-") else name


def parse(path: Path, config: ParseConfig, content: bytes | None = None) -> ci.TranslationUnit:
    """Parse with the PCH; a PCH that does not load (corrupt, truncated by an interrupted run, stale) is rebuilt
    once, and if that does not help the file is parsed without one. `content`: what libclang reads for the file
    instead of the bytes on disk."""
    pch = precompiled_header(config) if config.use_pch else None
    tu = _parse_with(path, config, pch, content)
    if pch is not None and (tu is None or _pch_failed(tu)):
        pch = precompiled_header(config, broken=pch)
        tu = _parse_with(path, config, pch, content) if pch is not None else None
        if tu is None or _pch_failed(tu):
            tu = _parse_with(path, config, None, content)
    assert tu is not None
    return tu


def _parse_with(path: Path, config: ParseConfig, pch: Path | None,
                content: bytes | None = None) -> ci.TranslationUnit | None:
    """None when libclang cannot load the PCH (or anything else) with one; without one a FrontendError."""
    args, unsaved = _context_args(config)
    if content is not None:
        unsaved = [*unsaved, (_clang_name(path), content)]
    try:
        return ci.Index.create(excludeDecls=True).parse(_clang_name(path), args=build_args(path, config, pch) + args,
                                                        unsaved_files=unsaved, options=_PARSE_OPTIONS)
    except ci.TranslationUnitLoadError as exc:
        if pch is None:
            raise FrontendError(f"{path}: libclang could not parse the file ({exc})") from exc
        return None


def _context_args(config: ParseConfig) -> tuple[list[str], list[tuple[str, str]]]:
    """The arguments and unsaved file that read a header's includer context first: a virtual header in the
    includer's folder (so that its quoted includes find what they find there), included after the -D macros."""
    if not config.context:
        return [], []
    includer = os.path.abspath(config.context_from.rpartition(":")[0])
    key = hashlib.sha256(config.context.encode()).hexdigest()[:16]
    virtual = os.path.join(os.path.dirname(includer), f".porter-context-{key}.h")
    return ["-include", virtual], [(virtual, config.context)]


_PCH_ERROR = re.compile(r"precompiled header|PCH file|AST file", re.IGNORECASE)


def _pch_failed(tu: ci.TranslationUnit) -> bool:
    return any(d.severity >= ci.Diagnostic.Error and _PCH_ERROR.search(d.spelling) for d in tu.diagnostics)


# ------------------------------------------------------------------------------------- precompiled preambles

@dataclass(frozen=True)
class Preamble:
    """What a unit parsed with a precompiled preamble needs to be read as the usual parse would be."""

    virtual: str                  # the PCH's header: its #defines are the command line's -D macros
    included: tuple[str, ...]     # files the precompiled include lines read, in order (the unit does not list them)
    hidden: frozenset[str]        # "file:line:col" of the macros porter's header defines: its PCH records none
    defines: frozenset[str]       # the -D macros: of the predefined ones, the only the usual parse records


def _parse_preamble(path: Path, config: ParseConfig, data: bytes) -> tuple[ci.TranslationUnit, Preamble] | None:
    """Parse with the file's leading includes precompiled (config.preamble_includes of them, shared by several
    files of the run, see analysis.run): the directives are blanked in the text libclang reads (lines and columns
    unchanged) and come from a PCH of porter's header followed by them, built by the first worker that needs it.
    With config.preamble_through, the includes are those of the file's own header (preamble.through) and the
    file is read unchanged. None: parse the usual way (no PCH could be had, another worker is building it, or it
    did not load)."""
    user = _user_args(config)
    if config.preamble_through:
        got = preamble.through(str(path), data, preamble.head)
        if got is None or got[0] != config.preamble_through:
            return None
        spans: list[tuple[int, int]] = []
        lines = [d.decode() for d in got[1][:config.preamble_includes]]
    else:
        spans = preamble.leading_includes(data)[:config.preamble_includes]
        lines = [data[a:b].decode() for a, b in spans]
    if user is None or len(lines) != config.preamble_includes:
        return None
    header = _preamble_header(user, lines)
    key = hashlib.sha256(json.dumps([_base_args(config), _PCH_BUILD_ARGS, user, header, os.path.dirname(str(path)), os.getcwd(),
                                     __version__, ci.__file__]).encode()
                         + (STUB_INCLUDE / "porter_hip_stub.h").read_bytes()).hexdigest()[:20]
    # the header lives (virtually) in the file's folder, so that `#include "x.h"` finds what it found there
    virtual = os.path.join(os.path.dirname(_clang_name(path)), f".porter-preamble-{key}.h")
    pch = Path(config.preamble_dir) / f"{key}.pch"
    listing = _ensure_preamble(pch, virtual, header, config, user)
    if listing is None:
        return None
    unsaved = [(_clang_name(path), preamble.blanked(data, spans)), (virtual, header)]
    try:
        tu = ci.Index.create(excludeDecls=True).parse(_clang_name(path), args=build_args(path, config, pch),
                                                      unsaved_files=unsaved, options=_PARSE_OPTIONS)
    except ci.TranslationUnitLoadError:
        return None
    if _pch_failed(tu):
        return None
    defines = frozenset(v.partition("=")[0] for f, v in zip(user[::2], user[1::2]) if f == "-D")
    return tu, Preamble(virtual, tuple(listing["user"]), frozenset(listing["porter"]), defines)


def _user_args(config: ParseConfig) -> list[str] | None:
    """The arguments after porter's own, when they are only -I/-isystem/-D pairs (what a preamble PCH can be
    built with exactly); None otherwise (a compile database gives each file its own)."""
    if config.compile_db:
        return None
    args = build_args(Path("."), config, None)[len(_base_args(config)) + 2:]   # after `-include porter_hip_stub.h`
    pairs = list(zip(args[::2], args[1::2]))
    if len(args) % 2 or any(flag not in ("-I", "-isystem", "-D") or "\n" in value for flag, value in pairs):
        return None
    return args


def _preamble_header(user: list[str], directives: list[str]) -> str:
    """porter's PCH header, then the command line's -D macros as #defines (porter's header was precompiled
    without them), then the file's include directives."""
    defines = []
    for flag, value in zip(user[::2], user[1::2]):
        if flag == "-D":
            name, eq, body = value.partition("=")
            defines.append(f"#define {name} {body if eq else '1'}\n")
    return _PCH_HEADER + "".join(defines) + "".join(d + "\n" for d in directives)


def _ensure_preamble(pch: Path, virtual: str, header: str, config: ParseConfig, user: list[str]
                     ) -> dict[str, list[str]] | None:
    """The listing of the preamble PCH `pch` (building both first if needed), or None when it cannot be used."""
    listing = pch.with_suffix(".json")
    try:
        if not listing.is_file():
            with open(pch.with_suffix(".lock"), "a") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return None   # another worker is building it: parse this file the usual way
                if not listing.is_file():
                    _build_preamble(pch, virtual, header, config, user)
        found = json.loads(listing.read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and pch.is_file() else None


def _build_preamble(pch: Path, virtual: str, header: str, config: ParseConfig, user: list[str]) -> None:
    """Build the PCH, then its listing (what Preamble records); a refusal is a listing without a PCH, so that no
    worker tries again. Refused when the PCH would not be what the usual parse sees: a diagnostic on the file's
    own include lines (they are the file's diagnostics), a fatal error, porter's header reading a file of a user
    include folder (one that shadows a standard header)."""
    tmp = pch.with_suffix(f".{os.getpid()}.tmp")
    listing: object = "refused"
    try:
        tu = ci.Index.create().parse(virtual, args=_base_args(config) + _PCH_BUILD_ARGS + user, unsaved_files=[(virtual, header)],
                                     options=_PARSE_OPTIONS | ci.TranslationUnit.PARSE_INCOMPLETE)
        first_user_line = _PCH_HEADER.count("\n") + sum(ln.startswith("#define ") for ln in header.splitlines()) + 1
        clean = not any(d.severity >= ci.Diagnostic.Fatal or d.severity >= ci.Diagnostic.Warning and
                        d.location.file is not None and d.location.file.name == virtual for d in tu.diagnostics)
        includes = list(tu.get_includes())
        split = next((i for i, inc in enumerate(includes) if inc.depth == 1 and inc.source is not None
                      and inc.source.name == virtual and inc.location.line >= first_user_line), len(includes))
        hidden = _porter_macros(tu, virtual, first_user_line)
        if clean and not _shadowed([inc.include.name for inc in includes[:split]], user, virtual):
            tu.save(str(tmp))
            os.replace(tmp, pch)
            listing = {"porter": hidden, "user": [inc.include.name for inc in includes[split:]]}
    except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        pass
    finally:
        tmp.unlink(missing_ok=True)
    out = pch.with_suffix(f".{os.getpid()}.json.tmp")
    out.write_text(json.dumps(listing))
    os.replace(out, pch.with_suffix(".json"))


def _porter_macros(tu: ci.TranslationUnit, virtual: str, first_user_line: int) -> list[str]:
    """"file:line:col" of the macros porter's header defines (the preprocessing record is in translation order:
    they come before the first of the file's include lines), less those the include lines define again (a
    standard header read twice): a use after them refers to the later definition, which the usual parse records."""
    ours: set[str] = set()
    theirs: set[str] = set()
    into = ours
    for c in _children(tu.cursor):
        kind = _kind(c)
        if kind == "INCLUSION_DIRECTIVE" and into is ours:
            loc = c.location
            if loc.line >= first_user_line and loc.file is not None and loc.file.name == virtual:
                into = theirs
        elif kind == "MACRO_DEFINITION":
            loc = c.location
            name = loc.file.name if loc.file is not None else ""
            if name != virtual:   # the -D macros: the usual parse has them from the command line, recorded
                into.add(f"{name}:{loc.line}:{loc.column}")
    return sorted(ours - theirs)


def _shadowed(ours: list[str], user: list[str], virtual: str) -> bool:
    """True when porter's header read a file of a user include folder or of the file's own folder: one that
    shadows a standard header, which porter's PCH was built without."""
    folders = [os.path.realpath(v) for f, v in zip(user[::2], user[1::2]) if f != "-D"]
    folders.append(os.path.realpath(os.path.dirname(virtual) or "."))
    for name in ours:
        real = os.path.realpath(name)
        if any(real == f or real.startswith(f + os.sep) for f in folders):
            return True
    return False


def analyze_file(path: Path, config: ParseConfig) -> FileFacts:
    """Read, parse and extract one file."""
    text, decoded = check_readable(path, config)
    got = _parse_preamble(path, config, text.encode()) if config.preamble_dir and not config.context else None
    tu, pre = got if got is not None else (parse(path, config, text.encode() if decoded else None), None)
    # extract() recurses once per nesting level (3 Python frames each): allow ~2,000 levels (measured safe on an
    # 8 MiB C stack up to ~6,000), and report deeper code by name instead of a RecursionError traceback.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        facts = replace(extract(tu, path, config.target, text, pre, config.context_from), decoded=decoded)
        return replace(facts, context=config.context_from) if config.context else facts
    except (RecursionError, ctypes.ArgumentError) as exc:
        # ctypes reports a RecursionError hit while converting an argument as ArgumentError
        if not isinstance(exc, RecursionError) and "RecursionError" not in str(exc):
            raise
        raise FrontendError(f"{path}: statements or expressions nested too deeply to analyze "
                            f"(over {_RECURSION_LIMIT // 3} levels)") from None
    finally:
        sys.setrecursionlimit(limit)


_RECURSION_LIMIT = 6000


# ------------------------------------------------------------------------------------------------- extraction

_INT_TYPES = ("int", "unsigned", "long", "short", "char", "size_t", "uint", "int32_t", "int64_t", "bool",
              "ptrdiff_t", "uint32_t", "uint64_t", "index_t")


@lru_cache(maxsize=4096)  # a file has few distinct type spellings; this runs for most expressions
def _is_int_type(spelling: str) -> bool:
    s = spelling.replace("const ", "").strip()
    return "*" not in s and "[" not in s and any(s.startswith(p) or s.endswith(p) for p in _INT_TYPES)


class _Extractor:
    def __init__(self, tu: ci.TranslationUnit, path: Path, target: str, text: str, pre: Preamble | None,
                 context_from: str = "") -> None:
        self.tu = tu
        self.pre = pre
        self.context_dir = os.path.dirname(os.path.abspath(context_from.rpartition(":")[0])) if context_from else ""
        self.path = str(path)
        self.target = target
        self.main_file = tu.get_file(_clang_name(path))
        self.main_handle: int | None = ctypes.cast(self.main_file, ctypes.c_void_p).value if self.main_file else None
        self.lines = split_lines(text)
        self.macro_at: dict[tuple[int, int], str] = {}
        self.conditions: dict[str, dict[int, tuple[str, ...]]] = {}   # header -> #define line -> its #ifs
        self.functions: list[Function] = []
        self.shared: list[SharedDecl] = []
        self.shared_refs: dict[str, SharedDecl] = {}
        self.accesses: list[SharedAccess] = []
        self.literals: list[IntLiteral] = []
        self.macros: dict[str, MacroDef] = {}
        self.macro_uses: list[MacroUse] = []
        self.cross_lane: list[CrossLaneCall] = []
        self.project_cross_lane: list[Loc] = []
        self.launches: list[Launch] = []
        self.globals: list[Node] = []
        self.current_fn = ""
        self.current_name, self.current_targs = "", ()   # the function being extracted: its name, template arguments
        self.seen_literals: set[tuple[int, int, int]] = set()
        self.ids: dict[tuple[int, int], str] = {}
        # (path, raw start, raw end) -> Loc: a template's instantiations repeat their pattern's extents
        self.locs: dict[tuple[str, int, int], Loc] = {}
        self.body_tokens: dict[tuple[int, int], tuple[list[Tok], dict[tuple[int, int], int]]] = {}
        self.skipped_by_file: dict[str, frozenset[int]] = {}
        self.file_names: dict[int, str] = {}   # file handle -> base name (handles belong to this TU)
        self.helper_refs: dict[tuple[int, int], ci.Cursor] = {}   # device functions of project headers the code calls
        self.wrappers: dict[tuple[int, int], tuple[str, list[tuple[int, _Default]]] | None] = {}   # _wrapper_shape
        self.returns: dict[tuple[int, int], ValueFunction | None] = {}   # _value_function, per declaration
        self.targs: dict[tuple[int, int], tuple[tuple[str, str], ...]] = {}   # _template_args, per declaration
        self.tparams: dict[tuple[int, int], tuple[tuple[str, bool], ...]] = {}   # _template_params, per pattern
        self.recovered: list[Recovered] = []
        self.undeclared: list[str] = []        # callees of template patterns that no declaration names
        self.skipped: list[Skipped] = []
        self.errors: list[Diagnostic] = []     # parse errors in the main file: where libclang may have dropped code

    # -- locations
    def _in_main(self, cursor: ci.Cursor) -> bool:
        """The cursor is written in the main file, or its name comes from a macro expanded there (rocPRIM's
        BEGIN_ROCPRIM_NAMESPACE opening `namespace rocprim {`, a kernel that a macro names): libclang's own test
        counts only the first, and everything inside such a namespace was lost."""
        if _LIB.clang_Location_isFromMainFile(_LIB.clang_getCursorLocation(cursor)):
            return True  # asking libclang first avoids building a File and its name per cursor
        return self.main_handle is not None and _expansion_line_col(cursor)[0] == self.main_handle

    def loc(self, cursor: ci.Cursor, with_end: bool = True) -> Loc:
        ext = _RAW.clang_getCursorExtent(cursor)
        key = (self.path, ext.begin_int_data, ext.end_int_data if with_end else -1)
        hit = self.locs.get(key)
        if hit is None:
            _, line, col = _file_line_col(_RAW.clang_getRangeStart(ext))
            if with_end:
                _, eline, ecol = _file_line_col(_RAW.clang_getRangeEnd(ext))
                hit = Loc(self.path, line, col, eline, ecol)
            else:
                hit = Loc(self.path, line, col)
            self.locs[key] = hit
        return hit

    def _id(self, cursor: ci.Cursor) -> str:
        """A stable id for a declaration: name@line:col in its file, plus template arguments. Cached: the same
        declarations are referenced over and over."""
        key = _decl_key(cursor)
        hit = self.ids.get(key)
        if hit is None:
            hit = self.ids[key] = self._make_id(cursor)
        return hit

    def _file_basename(self, handle: int) -> str:
        name = self.file_names.get(handle)
        if name is None:
            cx = _RAW.clang_getFileName(handle) if handle else None
            name = os.path.basename((_RAW.clang_getCString(cx) or b"").decode("utf-8", "replace")) if cx else ""
            self.file_names[handle] = name
        return name

    def _make_id(self, cursor: ci.Cursor) -> str:
        handle, line, col = _expansion_line_col(cursor)
        base = f"{_spelling(cursor)}@{self._file_basename(handle)}:{line}:{col}"
        args = self._template_args(cursor)
        return base + (f"<{','.join(v for _, v in args)}>" if args else "")

    def _template_args(self, cursor: ci.Cursor) -> tuple[tuple[str, str], ...]:
        """(index, value) of a function instantiation's template arguments; () for anything else. Cached per
        declaration: launches and ids ask for the same instantiations over and over."""
        if _kind(cursor) not in ("FUNCTION_DECL", "CXX_METHOD"):
            return ()
        key = _decl_key(cursor)
        hit = self.targs.get(key)
        if hit is None:
            hit = self.targs[key] = self._read_template_args(cursor)
        return hit

    def _template_params(self, pattern: ci.Cursor | None) -> tuple[tuple[str, bool], ...]:
        """(name, is bool) of a template's TEMPLATE_* children in order, read once per template."""
        if pattern is None:
            return ()
        key = _decl_key(pattern)
        hit = self.tparams.get(key)
        if hit is None:
            hit = self.tparams[key] = tuple((_spelling(ch), ch.type._kind_id == _BOOL) for ch in _children(pattern)
                                            if _kind(ch).startswith("TEMPLATE_"))
        return hit

    def _read_template_args(self, cursor: ci.Cursor) -> tuple[tuple[str, str], ...]:
        try:
            n = cursor.get_num_template_arguments()
        except Exception:
            return ()
        if n <= 0:
            return ()
        out = []
        bools: list[bool] | None = None  # which template parameters are bool, read once when needed
        for i in range(n):
            kind = _LIB.clang_Cursor_getTemplateArgumentKind(cursor, i)
            if kind == _TEMPLATE_ARG_INTEGRAL:
                value = cursor.get_template_argument_value(i)
                if bools is None:
                    bools = [b for _, b in self._template_params(_LIB.clang_getSpecializedCursorTemplate(cursor))]
                if i < len(bools) and bools[i]:
                    out.append((str(i), "true" if value else "false"))  # libclang reads a bool true as -1
                else:
                    out.append((str(i), str(value)))
            elif kind == _TEMPLATE_ARG_TYPE:
                out.append((str(i), cursor.get_template_argument_type(i).spelling))
            else:  # a parameter pack, template, expression or declaration argument: no value libclang gives
                out.append((str(i), "?"))
        return tuple(out)

    # -- top level
    def run(self) -> FileFacts:
        top = self.tu.cursor
        items = list(_children(top))
        for c in items:
            if not self._in_main(c):
                continue
            kind = _kind(c)
            if kind == "MACRO_DEFINITION":
                self._macro_def(c)
            elif kind == "MACRO_INSTANTIATION":
                ref = _referenced(c)
                where = ref.location.file.name if ref is not None and ref.location.file is not None else None
                if self.pre is not None and self._hidden_macro(_spelling(c), ref, where):
                    continue   # defined in porter's PCH, which records no macros: the usual parse sees no use
                if self.pre is not None and where == self.pre.virtual:
                    where = None   # a -D macro: the usual parse has it from the command line
                _, line, col = _file_line_col(c.location)
                self.macro_at[(line, col)] = _spelling(c)
                self.macro_uses.append(MacroUse(_spelling(c), Loc(self.path, line, col)))
                if ref is not None and _spelling(c) not in self.macros and \
                        (where is None or not where.startswith(str(STUB_INCLUDE))):
                    # a -D macro counts as a #define would (-D WARP_SIZE=warpSize), at no line of any file
                    self._macro_def(ref, COMMAND_LINE if where is None else None)
        diags = self._diagnostics()
        self.errors = [d for d in diags if d.severity in ("error", "fatal") and d.loc.line > 1 or
                       d.severity == "error"]
        decls: list[ci.Cursor] = []
        for c in items:
            if self._in_main(c):
                self._top_level(c, decls)
        left_out = self._surplus_instances(decls)
        for i, c in enumerate(decls):
            if i in left_out:
                continue
            if _kind(c) in _FUNCTIONS:
                self._function(c)
            else:
                node = self.convert(c)
                if node is not None:
                    self.globals.append(node)
        helpers = self._helpers()
        return FileFacts(path=self.path, target=self.target, functions=tuple(self.functions), helpers=helpers,
                         shared=tuple(self.shared), shared_accesses=tuple(self.accesses),
                         literals=tuple(self.literals), macros=tuple(self.macros.values()),
                         macro_uses=tuple(self.macro_uses), cross_lane=tuple(self.cross_lane),
                         launches=tuple(ln for ln in self.launches if not ln.wrapper),
                         lambda_launches=tuple(ln for ln in self.launches if ln.wrapper), diagnostics=diags,
                         globals=tuple(self.globals),
                         int_bits=tuple(sorted(_INT_BITS.items())),
                         project_cross_lane=tuple(self.project_cross_lane), recovered=tuple(self.recovered),
                         undeclared=self._undeclared(), skipped=tuple(self.skipped),
                         inactive_lines=tuple(sorted(self._skipped_lines(self.main_file))),
                         value_functions=self._value_calls(), lines=self.lines)

    def _hidden_macro(self, name: str, ref: ci.Cursor | None, where: str | None) -> bool:
        """With a precompiled preamble: a macro the usual parse has from porter's PCH (which has no
        preprocessing record), where it records no expansion: porter's headers and clang's predefined macros."""
        assert self.pre is not None
        if where is None:
            return name not in self.pre.defines
        return ref is not None and f"{where}:{ref.location.line}:{ref.location.column}" in self.pre.hidden

    def _macro_def(self, c: ci.Cursor, loc: Loc | None = None) -> None:
        tokens = [t.spelling for t in c.get_tokens()]
        if not tokens:
            return
        name = tokens[0]
        params: tuple[str, ...] | None = None
        body = tokens[1:]
        if _LIB.clang_Cursor_isMacroFunctionLike(c) and body and body[0] == "(":
            close = body.index(")") if ")" in body else len(body) - 1
            params = tuple(t for t in body[1:close] if t != ",")
            body = body[close + 1:]
        value = _macro_int_value(body)
        if loc is None:
            loc = Loc(c.location.file.name if c.location.file else self.path, c.location.line, c.location.column)
        conditions = self._header_conditions(loc.path).get(loc.line, ()) if loc.path != self.path else ()
        self.macros[name] = MacroDef(name, params, " ".join(body), value, loc, conditions)

    def _header_conditions(self, path: str) -> dict[int, tuple[str, ...]]:
        """The conditional directives around each #define line of a header, read once per header."""
        hit = self.conditions.get(path)
        if hit is None:
            try:
                text = Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            hit = self.conditions[path] = define_conditions(split_lines(text))
        return hit

    def _top_level(self, c: ci.Cursor, out: list[ci.Cursor]) -> None:
        """Functions and file-scope variables, in file order, looking into namespaces and classes."""
        kind = _kind(c)
        if kind in _FUNCTIONS or kind == "VAR_DECL":
            out.append(c)
        elif kind in _CONTAINERS:
            for ch in _children(c):
                self._top_level(ch, out)

    def _surplus_instances(self, decls: list[ci.Cursor]) -> set[int]:
        """Positions in `decls` of kernel instantiations left out: a kernel template is analyzed in at most
        MAX_KERNEL_INSTANCES instantiations (dispatch switches multiply them: five BOOL_SWITCHes over three widths
        make 96 copies of one 250-line kernel, ~0.1 s each). The ones kept cover every value of every template
        argument, and every component of a type argument (`Traits<128, 4, float>`), before any value repeats;
        the rest are said in a Skipped note. Host and device-function instantiations are all kept: the first
        launch the kernels (their blocks), the second are what kernels call."""
        groups: dict[tuple[int, int], list[tuple[int, tuple[tuple[str, str], ...]]]] = {}
        patterns: dict[tuple[int, int], ci.Cursor] = {}
        for i, c in enumerate(decls):
            if _kind(c) != "FUNCTION_DECL":
                continue
            args = self._template_args(c)
            if not args:
                continue
            pattern = _LIB.clang_getSpecializedCursorTemplate(c)
            if pattern is None:
                continue
            groups.setdefault(_decl_key(pattern), []).append((i, args))
            patterns[_decl_key(pattern)] = pattern
        out: set[int] = set()
        for key, members in groups.items():
            if len(members) <= MAX_KERNEL_INSTANCES or \
                    not any(_kind(ch) == "CUDAGLOBAL_ATTR" for ch in _children(patterns[key])):
                continue
            kept = _covering(members, MAX_KERNEL_INSTANCES)
            out.update(i for i, _ in members if i not in kept)
            pattern = patterns[key]
            self.skipped.append(Skipped(_spelling(pattern), (
                f"{len(kept)} of its {len(members)} instantiations analyzed (chosen to cover every template argument "
                f"value); the other {len(members) - len(kept)} were not"), self.loc(pattern, with_end=False)))
        return out

    def _note_helper(self, ref: ci.Cursor) -> None:
        """Remember a called function defined in one of the project's headers (not HIP's, not the system's)."""
        if self._in_main(ref) or _decl_key(ref) in self.helper_refs or len(self.helper_refs) >= MAX_HELPERS:
            return
        where = ref.location.file
        if where is None or not _project_header(where.name):
            return
        if not ref.is_definition():
            ref = ref.get_definition()
            if ref is None or ref.location.file is None:
                return
        self.helper_refs[_decl_key(ref)] = ref

    def _helpers(self) -> tuple[Function, ...]:
        """Device functions of the project's headers that the file's code calls, and what those call in turn
        (warpReduceSum in a utils header, blockReduce<warpReduceSum>): a rule can then judge a call site by what
        the helper does. Their locations name the header; nothing else they contain is recorded as the file's
        own (shared arrays, literals, launches: those are reported when the header itself is analyzed)."""
        main = (self.path, self.macro_at, self.errors, self.lines, self.functions, self.skipped,
                set(self.seen_literals))
        lists = self._per_function_facts()
        marks = [len(x) for x in lists]
        out: list[Function] = []
        done: set[tuple[int, int]] = set()
        try:
            self.macro_at, self.errors, self.lines, self.functions, self.skipped = {}, [], (), out, []
            while len(done) < MAX_HELPERS:
                pending = [c for h, c in list(self.helper_refs.items()) if h not in done]
                if not pending:
                    break
                for c in pending:
                    done.add(_decl_key(c))
                    if "CUDADEVICE_ATTR" in {_kind(ch) for ch in _children(c)}:
                        self.path = c.location.file.name
                        self._function(c)
        finally:
            self.path, self.macro_at, self.errors, self.lines, self.functions, self.skipped, self.seen_literals = main
            for x, n in zip(lists, marks):
                del x[n:]
        return tuple(f for f in out if f.body is not None)

    def _per_function_facts(self) -> tuple[list, ...]:
        """The lists that extracting a function appends to, besides the function itself: what is rolled back when
        its extraction fails, or when it is a header helper (whose contents are not the file's own)."""
        return (self.shared, self.accesses, self.literals, self.cross_lane, self.launches, self.recovered,
                self.project_cross_lane, self.undeclared)

    def _function(self, c: ci.Cursor) -> None:
        """Extract one function; a porter bug on it costs that function (a Skipped note), not the file."""
        lists = (self.functions, *self._per_function_facts())
        marks = [len(x) for x in lists]
        try:
            self._function_facts(c)
        except (RecursionError, ctypes.ArgumentError):
            raise  # too deep to analyze: analyze_file names the file
        except Exception as exc:  # noqa: BLE001 - any failure is contained to this function
            for x, n in zip(lists, marks):
                del x[n:]
            self.current_fn = ""
            self.skipped.append(Skipped(_spelling(c), f"not analyzed: porter could not extract it "
                                                      f"({type(exc).__name__}: {str(exc)[:120]}); please report it",
                                        self.loc(c, with_end=False)))

    def _function_facts(self, c: ci.Cursor) -> None:
        children = list(_children(c))
        kinds = {_kind(ch) for ch in children}
        body_cursor = next((ch for ch in children if _kind(ch) == "COMPOUND_STMT"), None)
        if "CUDAGLOBAL_ATTR" in kinds:
            fkind = "kernel"
        elif "CUDADEVICE_ATTR" in kinds:
            fkind = "host_device" if "CUDAHOST_ATTR" in kinds else "device"
        else:
            fkind = "host"
        fid = self._id(c)
        params = tuple(Param(_spelling(ch), _type_spelling(ch), _canonical_spelling(ch), _literal_default(ch),
                             self._id(ch), self.loc(ch))
                       for ch in children if _kind(ch) == "PARM_DECL")
        tparams = [_spelling(ch) for ch in children if _kind(ch).startswith("TEMPLATE_")
                   and _kind(ch).endswith("_PARAMETER")]
        is_pattern = bool(tparams) and _kind(c) == "FUNCTION_TEMPLATE"
        targs = self._template_args(c)
        if targs:
            # name the arguments after the template's parameters
            names = [n for n, _ in self._template_params(_LIB.clang_getSpecializedCursorTemplate(c))]
            if len(names) == len(targs):
                targs = tuple((n, v) for n, (_, v) in zip(names, targs))
        self.current_fn, self.current_name, self.current_targs = fid, _spelling(c), targs
        body = self.convert(body_cursor) if body_cursor is not None else None
        if body is not None and self.errors:
            body = self._recover(body, body_cursor, params)  # type: ignore[arg-type]
        self.current_fn = ""
        if fkind == "host" and self._calls_hip_cross_lane(fid):
            # HIP's cross-lane intrinsics are device-only: a "host" function that calls them lost its qualifier
            # to a macro from a header the parse lacks (sglang's SGL_DEVICE, defined in utils.cuh)
            fkind = "device"
        bound_args = self._launch_bounds_args(c)
        bounds = self._launch_bounds(bound_args, dict(targs), body)
        block_param = bound_args[0] if is_pattern and bound_args and bound_args[0] in tparams else ""
        self._resolve_blocks(fid, body)
        self.functions.append(Function(name=_spelling(c), usr=fid, kind=fkind, loc=self.loc(c), params=params,
                                       template_args=targs, is_template=is_pattern,
                                       template_params=tuple(tparams) if is_pattern else (),
                                       owner=_owner(c), launch_bounds=bounds, block_param=block_param,
                                       body=body))

    def _calls_hip_cross_lane(self, fid: str) -> bool:
        own = set(self.project_cross_lane)
        return any(x.function == fid and x.name.startswith("__") and x.loc not in own for x in self.cross_lane)

    def _resolve_blocks(self, fid: str, body: Node | None) -> None:
        """A launch whose block is a local variable (`dim3 threads(16, 4)`, `int nthreads = 256`) takes the
        variable's initializer, when nothing in the function assigns the variable or one of its fields."""
        pending = [i for i, ln in enumerate(self.launches)
                   if ln.caller == fid and ln.block_dims is None and ln.block is not None]
        if not pending or body is None:
            return
        decls: dict[str, Node] = {}
        assigned: set[str] = set()
        for n in body.walk():
            if n.kind == "decl":
                decls[n.ref] = n
            elif n.children and ((n.kind == "binop" and n.op.endswith("=") and n.op not in ("==", "!=", "<=", ">="))
                                 or (n.kind == "unop" and n.op in ("++", "--", "&"))):
                target = n.children[0]
                while target.kind in ("member", "cast", "other") and target.children:
                    target = target.children[0]
                assigned.add(target.ref)
        for i in pending:
            ln = self.launches[i]
            dims, decl = _local_dims(ln.block, decls, assigned)  # type: ignore[arg-type]
            if dims is None or all(d is None for d in dims):
                continue
            source = ""
            if decl is not None:
                what = f"{decl.type.replace('const ', '')} {decl.op}"
                source = f"`{what}` at {Path(decl.loc.path).name}:{decl.loc.line}"
            if None in dims:
                self.launches[i] = replace(ln, block_partial=dims, block_source=source or ln.block_source)
            elif decl is not None:
                self.launches[i] = replace(ln, block_dims=dims, block_source=source)  # type: ignore[arg-type]

    # -- what libclang dropped, read from tokens
    def _recover(self, body: Node, body_cursor: ci.Cursor, params: tuple[Param, ...]) -> Node:
        """Repair a body that has parse errors inside it: initializers libclang dropped, calls of unresolved names
        (kept without their callee), and statements it dropped whole are read from the body's tokens."""
        ext = body_cursor.extent
        first, last = ext.start.line, ext.end.line
        errors = [d for d in self.errors if first <= d.loc.line <= last]
        if not errors:
            return body
        toks, at = self._body_tokens(ext)
        # a parameter whose every use clang dropped (`sh_ninter[4 * tid] = nl` with `nl` of an undeclared type)
        # is still the function's parameter in the statements read from tokens
        names = {p.name: (p.ref, p.type) for p in params if p.name and p.ref}
        names.update((n.op, (n.ref, n.type)) for n in body.walk() if n.kind in ("decl", "ref") and n.op and n.ref)
        repaired = _Repair(self, toks, at, names, errors).node(body)
        spans = {(n.loc.line, n.loc.end_line) for n in repaired.walk()
                 if n.loc.line and n.kind not in ("block", "for", "while", "do", "if", "switch")}
        covered = {line for a, b in spans for line in range(a, max(a, b) + 1)}
        extra: list[Node] = []
        done: set[tuple[int, int]] = set()
        for d in errors:
            if d.loc.line in covered or d.loc.line in done:
                continue
            span = _statement_around(toks, d.loc.line)
            if span is None:
                continue
            done.update(range(toks[span[0]].line, toks[span[1] - 1].line + 1))
            stmts = Reader(toks[span[0]:span[1]], self.path, names).statements()
            for st in stmts:
                self._recovered_node(st, d.message)
            extra += stmts
        if not extra:
            return repaired
        return replace(repaired, children=repaired.children + (Node("block", op="tokens", loc=repaired.loc,
                                                                    children=tuple(extra)),))

    def _body_tokens(self, ext: ci.SourceRange) -> tuple[list[Tok], dict[tuple[int, int], int]]:
        """A body's tokens (comments left out) and the index of each by position, read once per extent: a
        template's instantiations have their pattern's body (reading tokens costs several libclang calls each)."""
        key = (ext.begin_int_data, ext.end_int_data)
        hit = self.body_tokens.get(key)
        if hit is None:
            toks = _code_only(_tokens(self.tu, ext), self._skipped_lines(ext.start.file))
            hit = self.body_tokens[key] = (toks, {(t.line, t.col): i for i, t in enumerate(toks)})
        return hit

    def _skipped_lines(self, file: ci.File | None) -> frozenset[int]:
        """Lines of `file` in preprocessor branches the parse did not take (`#if !defined(USE_ROCM)` under
        -DUSE_ROCM): raw tokens include them, and code there is not compiled for the target."""
        if file is None:
            return frozenset()
        name = file.name
        hit = self.skipped_by_file.get(name)
        if hit is None:
            ranges = _LIB.clang_getSkippedRanges(self.tu, file)
            try:
                hit = frozenset(line for r in ranges.contents.ranges[:ranges.contents.count]
                                for line in range(r.start.line, r.end.line + 1))
            finally:
                _LIB.clang_disposeSourceRangeList(ranges)
            self.skipped_by_file[name] = hit
        return hit

    def _recovered_node(self, node: Node, reason: str) -> None:
        """Record what a tree read from tokens holds (literals, cross-lane calls, __shared__ accesses)."""
        end = max((n.loc for n in node.walk() if n.loc.line), key=lambda l: (l.end_line or l.line, l.end_col))
        self.recovered.append(Recovered(self.current_fn, Loc(self.path, node.loc.line, node.loc.col,
                                                             end.end_line or end.line, end.end_col), reason))
        for n in node.walk():
            if n.kind == "int" and n.value is not None and (n.loc.line, n.loc.col, n.value) not in self.seen_literals:
                self.seen_literals.add((n.loc.line, n.loc.col, n.value))
                self.literals.append(IntLiteral(n.value, n.loc))
            elif n.kind == "call" and n.op in CROSS_LANE_CALLS:
                self.cross_lane.append(CrossLaneCall(self.current_fn, n.op, n.children, n.loc))
            elif n.kind == "index":
                self._maybe_shared_access(n)

    def _undeclared(self) -> tuple[str, ...]:
        """Names the file uses that no declaration it can see defines: clang's `use of undeclared identifier`,
        and the callees of template patterns whose lookup found nothing (clang defers those to instantiation and
        says nothing). Their header is not on the include path; what they mean is guessed from the name. A
        function the file defines after a template that calls it is found at instantiation: not undeclared."""
        names = set(self.undeclared) | {undeclared_identifier(d) for d in self.errors}
        return tuple(sorted(names - {""} - {f.name for f in self.functions}))

    def _launch_bounds_args(self, c: ci.Cursor) -> list[str]:
        """The arguments of __launch_bounds__(a, b) as spelled. It is a macro of the stub (its uses are not
        recorded when it comes from the precompiled header): read from the source between the declaration's
        start and its name."""
        start, name = c.extent.start, c.location
        if not (0 < start.line <= name.line <= len(self.lines)):
            return []
        text = "\n".join(self.lines[start.line - 1:name.line])
        m = _LAUNCH_BOUNDS.search(text) or _LAUNCH_BOUNDS.search(self._expand_qualifier_macro(text))
        return [part.strip() for part in m.group(1).split(",")] if m is not None else []

    def _expand_qualifier_macro(self, text: str) -> str:
        """The body of the first function-like macro used in `text` that spells __launch_bounds__, with its
        arguments put in (rocSPARSE's `ROCSPARSE_KERNEL(BLOCKSIZE)` for `__launch_bounds__(BLOCKSIZE) static
        __global__`); "" when there is none."""
        for call in re.finditer(r"\b([A-Za-z_]\w*)\s*\(([^()]*)\)", text):
            mac = self.macros.get(call.group(1))
            if mac is None or not mac.params or "__launch_bounds__" not in mac.body:
                continue
            args = [a.strip() for a in call.group(2).split(",")]
            if len(args) != len(mac.params):
                continue
            bound = dict(zip(mac.params, args))
            return re.sub(r"\b[A-Za-z_]\w*\b", lambda w: bound.get(w.group(0), w.group(0)), mac.body)
        return ""

    def _launch_bounds(self, args: list[str], targs: dict[str, str], body: Node | None) -> tuple[int, ...]:
        """The values of __launch_bounds__'s arguments: each may be a literal, an object-like macro, a file-scope
        integer constant or (in an instantiation) a template parameter or a static constant of a class template
        argument (`Ktraits::kNThreads`); () when one is none of these."""
        vals = []
        for name in args:
            v = _parse_int(name)
            if v is None and name in self.macros:
                v = self.macros[name].value
            if v is None and name in targs:
                v = _parse_int(targs[name])
            if v is None:
                v = next((g.value for g in self.globals if g.kind == "decl" and g.op == name), None)
            if v is None and "::" in name and targs:
                v = self._member_constant(name, list(targs), body)
            if v is None:
                return ()
            vals.append(v)
        return tuple(vals)

    @staticmethod
    def _member_constant(name: str, params: list[str], body: Node | None) -> int | None:
        """`P::member` with P a template parameter, in an instantiation: the value the body's references to
        `member` have (libclang does not list the members of an implicitly instantiated class, but the body's
        `P::member` and `constexpr int member = P::member` are evaluated); None unless they all agree."""
        head, _, member = (part.strip() for part in name.partition("::"))
        if head not in params or not member.isidentifier() or body is None:
            return None
        values = {n.value for n in body.walk() if n.kind in ("ref", "decl") and n.op == member and n.value is not None}
        return values.pop() if len(values) == 1 else None

    # -- expressions and statements
    def convert(self, c: ci.Cursor) -> Node | None:
        kind = _kind(c)
        if kind in _SKIP:
            return None
        if kind == "UNEXPOSED_EXPR":
            cursors = _children(c)
            kids = self._converted(cursors)
            failed = self._failed_intrinsic_call(c, cursors, kids)
            if failed is not None:
                return failed
            if not kids:
                return Node("default", type=_type_spelling(c)) if _expansion_line_col(c)[1] == 0 else None
            if len(kids) == 1:
                inner = kids[0]
                tspell = _type_spelling(c)
                if tspell == inner.type or not tspell or inner.kind not in ("int", "ref", "member", "call",
                                                                          "binop", "unop", "cond", "index", "cast",
                                                                          "mcall"):
                    return inner
                return Node("cast", op="implicit", type=tspell, value=inner.value, loc=inner.loc, children=(inner,))
            return Node("other", type=_type_spelling(c), loc=self.loc(c), children=tuple(kids))
        if kind == "PAREN_EXPR":
            kids = self._converted(_children(c))
            return kids[0] if len(kids) == 1 else None
        loc = self.loc(c, with_end=kind not in _STATEMENT_KINDS)
        if kind == "INTEGER_LITERAL":
            return self._int_literal(c, loc)
        if kind == "DECL_REF_EXPR":
            return self._decl_ref(c, loc)
        if kind == "MEMBER_REF_EXPR":
            kids = self._converted(_children(c))
            return Node("member", op=_spelling(c), type=_type_spelling(c), loc=loc,
                        macro=self.macro_at.get((loc.line, loc.col), ""), children=kids)
        if kind == "CALL_EXPR":
            return self._call(c, loc)
        if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR"):
            kids = self._converted(_children(c))
            op = _BINOPS.get(_LIB.clang_getCursorBinaryOperatorKind(c), "?")
            tspell = _type_spelling(c)
            value = _fold(op, kids, tspell) if len(kids) == 2 else None
            return Node("binop", op=op, type=tspell, value=value, loc=loc, children=kids)
        if kind == "UNARY_OPERATOR":
            kids = self._converted(_children(c))
            op = _UNOPS.get(_LIB.clang_getCursorUnaryOperatorKind(c), "?")
            value = _fold_unary(op, kids[0].value) if kids and kids[0].value is not None else None
            return Node("unop", op=op, type=_type_spelling(c), value=value, loc=loc, children=kids)
        if kind in ("CXX_UNARY_EXPR", "UNARY_EXPR"):  # sizeof / alignof
            return Node("int", op="sizeof", type=_type_spelling(c), value=_evaluate_int(c), loc=loc)
        if kind in _CASTS:
            kids = self._converted(_children(c))
            size = _pointee_size(c.type)
            tspell = _type_spelling(c)
            value = kids[-1].value if kids and _is_int_type(tspell) else None
            return Node("cast", op=_CASTS[kind], type=tspell, value=value, ref=str(size or ""), loc=loc,
                        children=kids[-1:])
        if kind == "VAR_DECL":
            return self._var_decl(c, loc)
        if kind == "FOR_STMT":
            return self._for(c, loc)
        if kind == "CXX_FOR_RANGE_STMT":
            kids = self._converted(_children(c))
            return Node("for", op="range", loc=loc, children=kids)
        mapped = _STMTS.get(kind, "other")
        kids = self._converted(_children(c))
        if mapped in _STATEMENTS:
            return Node(mapped, loc=loc, children=kids)
        if mapped == "index":
            node = Node("index", type=_type_spelling(c), ref=str(_size(c.type) or ""), loc=loc, children=kids)
            self._maybe_shared_access(node)
            return node
        if mapped == "int":  # bool literal
            return Node("int", value=1 if _spelling(c) == "true" or _tok(c) == "true" else 0, type="bool", loc=loc)
        if mapped == "other" and not kids and c._kind_id not in _EXPRESSION_KINDS:
            return None
        return Node(mapped, op=_spelling(c) if mapped == "other" else "", type=_type_spelling(c)
                    if c._kind_id in _EXPRESSION_KINDS else "", loc=loc, children=kids)

    def _failed_intrinsic_call(self, c: ci.Cursor, cursors: list[ci.Cursor], kids: tuple[Node, ...]) -> Node | None:
        """clang's recovery expression for a call of one of HIP's cross-lane intrinsics that overload resolution
        rejected: they are device-only, and a function whose `__device__` came from a macro of a header the
        parse lacks (Kokkos' KOKKOS_INLINE_FUNCTION, set by the generated KokkosCore_config.h) is host code to
        clang. The call is still the intrinsic's, with the type of its one declaration: read it as that call
        (which then makes the function device code, see _function_facts)."""
        if not self.current_fn or not kids or kids[0].kind != "ref" or len(cursors) != len(kids) or \
                _kind(cursors[0]) not in ("OVERLOADED_DECL_REF", "DECL_REF_EXPR"):
            return None
        name = _spelling(cursors[0]) or _qualified_overload(cursors[0]) or _tok(cursors[0])
        tspell = _type_spelling(c)
        if not name.startswith("__") or name not in CROSS_LANE_CALLS or not tspell or "<" in tspell:
            return None
        loc = self.loc(c)
        self.cross_lane.append(CrossLaneCall(self.current_fn, name, kids[1:], loc))
        return Node("call", op=name, type=tspell, loc=loc, children=kids[1:])

    def _converted(self, cursors: list[ci.Cursor]) -> tuple[Node, ...]:
        """The cursors converted, in order, leaving out those that convert to nothing (one loop: nested generators
        cost a microsecond per cursor, and most cursors are some node's children)."""
        out = []
        for ch in cursors:
            node = self.convert(ch)
            if node is not None:
                out.append(node)
        return tuple(out)

    def _int_literal(self, c: ci.Cursor, loc: Loc) -> Node:
        value = _evaluate_int(c)
        if value is None:
            value = _parse_int(_tok(c))
        macro = ""
        if _expansion_line_col(c)[1:] == (loc.line, loc.col):
            macro = self.macro_at.get((loc.line, loc.col), "")
        key = (loc.line, loc.col, value if value is not None else -1)
        if value is not None and key not in self.seen_literals:
            self.seen_literals.add(key)
            self.literals.append(IntLiteral(value, loc, macro))
        return Node("int", type=_type_spelling(c), value=value, macro=macro, loc=loc)

    def _decl_ref(self, c: ci.Cursor, loc: Loc) -> Node:
        if not _spelling(c):  # substituted template parameter in an instantiation
            # the substituted value is not a literal of the source: evaluate it without recording it
            value = _evaluate_int(c)
            if value is not None:
                return Node("int", type=_type_spelling(c), value=value, op="template", loc=loc)
            named = self._template_id(c, loc)
            if named is not None:
                return named
        ref = _referenced(c)
        rid = self._id(ref) if ref is not None else ""
        value = None
        tspell = _type_spelling(c)
        if ref is not None and _kind(ref) in ("ENUM_CONSTANT_DECL", "VAR_DECL", "TEMPLATE_NON_TYPE_PARAMETER") and \
                _is_int_type(tspell) and ("const" in tspell or _kind(ref) == "ENUM_CONSTANT_DECL"):
            value = _evaluate_int(c) if not names_builtin_width(rid) else None
        return Node("ref", op=_spelling(c), type=tspell, value=value, ref=rid,
                    macro=self.macro_at.get((loc.line, loc.col), ""), loc=loc)

    def _template_id(self, c: ci.Cursor, loc: Loc) -> Node | None:
        """`k<T, 2, 32>` in a template pattern, which clang resolves only per instantiation (`kernel =
        &k<T, 2, 32>`): a ref named after the template, with one child per explicit template argument in order
        (a type argument as an 'other' node spelling the type), so rules can read the values a host pattern
        gives a kernel template."""
        kids = _children(c)
        if len(kids) < 2 or _kind(kids[0]) != "OVERLOADED_DECL_REF":
            return None
        args = tuple(Node("other", op="type", type=_spelling(k), loc=self.loc(k)) if _kind(k) == "TYPE_REF"
                     else self.convert(k) for k in kids[1:])
        if any(a is None for a in args):
            return None
        return Node("ref", op=_spelling(kids[0]), type=_type_spelling(c), loc=loc,
                    children=tuple(a for a in args if a is not None))

    def _call(self, c: ci.Cursor, loc: Loc) -> Node | None:
        children = list(_children(c))
        config = next((ch for ch in children if _kind(ch) == "CALL_EXPR" and
                       _spelling(ch) in ("__hipPushCallConfiguration", "hipConfigureCall")), None)
        name = _spelling(c)
        wrapper = None   # the one function template a dependent call's lookup found, read as a shuffle wrapper
        if not name and children and _kind(children[0]) in ("OVERLOADED_DECL_REF", "DECL_REF_EXPR",
                                                              "UNEXPOSED_EXPR"):
            # a call with type-dependent arguments in a template pattern: clang resolves the callee only per
            # instantiation; the pattern still names it (`__shfl_down(v, o)` with `T v`)
            name = _spelling(children[0]) or _qualified_overload(children[0]) or _tok(children[0])
            name = name if name.isidentifier() else ""
            if name and self.current_fn and _finds_no_declaration(children[0]):
                self.undeclared.append(name)
            elif name and self.current_fn:
                # the project header's templates it may name are helpers, as an instantiation's callee would be
                decls = _overloaded_decls(children[0])
                for decl in decls:
                    self._note_helper(decl)
                wrapper = decls[0] if len(decls) == 1 else None
        if name.startswith("operator") and name[8:] in _OVERLOADABLE:
            # `h = x` on struct types (__half, float4) is an operator call: keep it an assignment/binop
            kids = [k for k in (self.convert(ch) for ch in children) if k is not None and
                    not (k.kind in ("ref", "cast") and any(n.kind == "ref" and n.op.startswith("operator")
                                                           for n in k.walk()))]
            if len(kids) == 2:
                return Node("binop", op=name[8:], type=_type_spelling(c), loc=loc, children=tuple(kids))
        aligned = [self.convert(a) for a in _arguments(c)]
        args = tuple(k for k in aligned if k is not None)
        if len(args) == 1 and name and name == _type_spelling(c) and \
                args[0].type.replace("const ", "").rstrip(" &") == name:
            return args[0]  # a copy construction of a struct value (__half, float4): the value itself
        base = None
        if children and _kind(children[0]) == "MEMBER_REF_EXPR":
            inner = list(_children(children[0]))
            base = self.convert(inner[0]) if inner else None
        if config is not None:
            cfg = self._converted(_arguments(config))
            node = Node("launch", op=name, type="void", loc=loc, children=cfg + args)
            self._launch(c, name, children, cfg, args, loc)
            return node
        # which function (which template instantiation) is called, for user functions only; a free function that
        # has a cooperative-groups member's name (FBGEMM's `shfl_xor(mask, v, lane, width)`) is one of them
        intrinsic = name.startswith("__") or (name in CROSS_LANE_CALLS and base is not None)
        ref = _referenced(c) if name and not intrinsic else None
        if ref is None and children and not _spelling(c) and name not in CROSS_LANE_CALLS:
            # a call through a function passed as a template argument (`template <fn_ptr F> ... F(x)`): in the
            # instantiation the callee is the substituted function
            ref = _function_target(children[0])
            name = _spelling(ref) if ref is not None else name
        rid = self._id(ref) if ref is not None and _expansion_line_col(ref)[0] else ""   # declared in a file
        if ref is not None and rid and self.current_fn:
            self._note_helper(ref)
        wrapper = ref if ref is not None else wrapper
        inlined = self._through_wrapper(wrapper, aligned, loc) if wrapper is not None and base is None else None
        if inlined is not None:
            name, args = inlined
            if ref is None and _expansion_line_col(wrapper)[0]:
                rid = self._id(wrapper)   # the template a dependent call reads through, as a resolved call's
        if self.current_fn and ref is not None and any(
                n.kind == "decl" and n.macro == "shared" for a in args if a.kind == "lambda" for n in a.walk()):
            self._lambda_launch(c, ref, aligned, loc)
        if base is not None:
            # a member call that depends on a template parameter (`shared.getPointer()` on a `SharedMemory<U>`)
            # has no callee until instantiation; the pattern still spells the member's name
            op = name or _spelling(children[0]) or _member_name(children[0])
            node = Node("mcall", op=op, type=_type_spelling(c), ref=rid, loc=loc, children=(base,) + args)
        else:
            if not intrinsic and inlined is None and len(args) < len(aligned):
                # an argument clang could not type (a parameter of a type no header declared) keeps its place,
                # so that argument positions still match the callee's parameters
                args = tuple(k if k is not None else Node("empty", loc=loc) for k in aligned)
            node = Node("call", op=name, type=_type_spelling(c), ref=rid, loc=loc, children=args)
        held = self._held_array_use(node, c, loc) if name.startswith("operator") else None
        if held is not None:
            return held
        if name in CROSS_LANE_CALLS and self.current_fn:
            self.cross_lane.append(CrossLaneCall(self.current_fn, name, args, loc))
            decl = _referenced(c)
            where = decl.location.file if decl is not None else None
            if where is not None and not where.name.startswith(str(STUB_INCLUDE)) and inlined is None:
                self.project_cross_lane.append(loc)   # the project's own wrapper, not HIP's intrinsic
        return node

    def _held_array_use(self, node: Node, c: ci.Cursor, loc: Loc) -> Node | None:
        """A __shared__ array wrapper (see _held_array) used as the array it holds: `s[i]` through its
        `operator[]` becomes the subscript, `T* p = s` through its `operator T*` the array's decay."""
        base = node.children[0] if node.children else None
        while base is not None and base.kind == "cast" and base.op == "implicit" and base.children:
            base = base.children[0]
        decl = self.shared_refs.get(base.ref) if base is not None and base.kind == "ref" else None
        if decl is None or not decl.dims or base.type.rstrip(" &").endswith("]"):
            return None
        if node.op == "operator[]" and len(node.children) == 2:
            index = Node("index", type=node.type, ref=str(_size(c.type) or ""), loc=loc,
                         children=(base, node.children[1]))
            self._maybe_shared_access(index)
            return index
        if len(node.children) == 1 and node.type.endswith("*"):
            return Node("cast", op="implicit", type=node.type, loc=loc, children=(base,))
        return None

    def _through_wrapper(self, ref: ci.Cursor, args: list[Node | None], loc: Loc
                         ) -> tuple[str, tuple[Node, ...]] | None:
        """A call of a project's shuffle wrapper (THC's `WARP_SHFL_XOR(value, laneMask, width = warpSize, mask =
        0xffffffff)`, whose body is one `return __shfl_xor(value, laneMask, width);`) read as the shuffle it makes:
        (intrinsic, its arguments), each the call's argument for that parameter or the parameter's default (a
        literal, or warpSize: the intrinsic's own default), placed at the call. None for any other function."""
        shape = self._wrapper_shape(ref)
        if shape is None:
            return None
        intrinsic, params = shape
        out: list[Node] = []
        for index, default in params:
            given = args[index] if index < len(args) else None
            if given is not None and given.kind != "default":
                out.append(given)
            elif default is None:
                return None      # a default the wrapper computes: not read here
            elif default == "warpSize":
                out.append(Node("default", type="int"))
            else:
                value, spelled = default
                # no end: the call's text is not this literal's (messages spell it, fixes leave it alone)
                out.append(Node("int", type="unsigned int", value=value, op=spelled,
                                loc=Loc(loc.path, loc.line, loc.col)))
        return intrinsic, tuple(out)

    def _value_calls(self) -> tuple[ValueFunction, ...]:
        """The one-return functions (_value_function) that the main file calls without arguments anywhere the
        parse kept, function bodies or not (a class template's static constexpr member, a template parameter's
        default): found from the text, each call resolved at its name."""
        skipped = self._skipped_lines(self.main_file)
        found: dict[str, ValueFunction] = {}
        calls: dict[str, list[tuple[int, int]]] = {}
        for number, line in enumerate(self.lines, 1):
            if number in skipped or "()" not in line.replace(" ", ""):
                continue
            raw = line.encode("utf-8").decode("latin-1")   # clang's columns count bytes
            for m in _ZERO_ARGUMENT_CALL.finditer(raw.split("//", 1)[0]):
                at = ci.Cursor.from_location(self.tu, ci.SourceLocation.from_position(
                    self.tu, self.main_file, number, m.start(1) + 1))
                ref = _referenced(at) if at is not None and _kind(at) in _CALLEE_REFS else None
                rid = self._id(ref) if ref is not None else ""
                value = self._value_function(ref, rid) if rid else None   # cached per declaration
                if value is not None:
                    found[rid] = value
                    calls.setdefault(rid, []).append((number, m.start(1) + 1))
        return tuple(replace(f, calls=tuple(calls[rid])) for rid, f in found.items())

    def _value_function(self, ref: ci.Cursor, rid: str, depth: int = 0) -> ValueFunction | None:
        """What a call of `ref` gives when it is a function without parameters whose body is one `return E;` and
        E reads HIP's warpSize, itself or through such a function (QUDA's `constexpr int warp_size() { return
        warpSize; }`, and its `max_block_size()`, `std::max(warp_size(), 1024 / ...)`), or E is an integer
        constant (rocPRIM's device_warp_size() returns ROCPRIM_WAVEFRONT_SIZE, 64 in the device pass); None for
        anything else. Cached per declaration."""
        key = _decl_key(ref)
        if key in self.returns:
            return self.returns[key]
        self.returns[key] = None   # a function that reaches itself gives nothing known
        if _kind(ref) not in ("FUNCTION_DECL", "CXX_METHOD") or depth > 4 or \
                _RAW.clang_Cursor_getNumArguments(ref) != 0:
            return None
        defn = ref if ref.is_definition() else ref.get_definition()
        body = next((ch for ch in _children(defn) if _kind(ch) == "COMPOUND_STMT"), None) if defn else None
        stmts = _children(body) if body is not None else []
        expr = _children(stmts[0]) if len(stmts) == 1 and _kind(stmts[0]) == "RETURN_STMT" else []
        if len(expr) != 1:
            return None
        handle, line, _ = _expansion_line_col(defn)
        where = f"{self._file_basename(handle)}:{line}"
        extent = defn.extent
        if any(extent.start.line <= n <= extent.end.line for n in self._skipped_lines(extent.start.file)):
            return None   # a body with a branch this parse skipped (`#ifdef __HIP_DEVICE_COMPILE__`) differs by pass
        for n in itertools.islice(_preorder(expr[0]), 200):
            kind = _kind(n)
            if kind == "DECL_REF_EXPR" and _spelling(n) == "warpSize" and _is_builtin_width(n):
                break
            callee = _referenced(n) if kind == "CALL_EXPR" and _RAW.clang_Cursor_getNumArguments(n) == 0 else None
            inner = self._value_function(callee, self._id(callee), depth + 1) if callee is not None else None
            if inner is not None and inner.reads_width:
                break
        else:
            value = _evaluate_int(expr[0])
            self.returns[key] = None if value is None else ValueFunction(_spelling(ref), rid, where, value=value)
            return self.returns[key]
        self.returns[key] = ValueFunction(_spelling(ref), rid, where, reads_width=True)
        return self.returns[key]

    def _wrapper_shape(self, ref: ci.Cursor) -> tuple[str, list[tuple[int, _Default]]] | None:
        """(intrinsic, [(parameter index, its default)]) when `ref` is a project function whose body is only
        `return <shuffle>(p, q, ...)` over its own parameters; cached per declaration."""
        key = _decl_key(ref)
        if key in self.wrappers:
            return self.wrappers[key]
        self.wrappers[key] = None
        where = ref.location.file
        if _kind(ref) not in ("FUNCTION_DECL", "FUNCTION_TEMPLATE") or where is None or \
                not _project_header(where.name):
            return None
        defn = ref if ref.is_definition() else ref.get_definition()
        body = next((ch for ch in _children(defn) if _kind(ch) == "COMPOUND_STMT"), None) if defn else None
        stmts = _children(body) if body is not None else []
        if len(stmts) != 1 or _kind(stmts[0]) != "RETURN_STMT":
            return None
        call = _unwrapped(stmts[0])
        if call is None or _kind(call) != "CALL_EXPR" or not _callee_name(call).startswith("__shfl"):
            return None
        params = [p for p in _children(defn) if _kind(p) == "PARM_DECL"]
        keys = {_decl_key(p): i for i, p in enumerate(params)}
        mapping: list[tuple[int, _Default]] = []
        for arg in call.get_arguments():
            inner = _unwrapped(arg)
            target = _referenced(inner) if inner is not None and _kind(inner) == "DECL_REF_EXPR" else None
            index = keys.get(_decl_key(target)) if target is not None else None
            if index is None:
                return None
            mapping.append((index, _parameter_default(params[index])))
        self.wrappers[key] = (_callee_name(call), mapping)
        return self.wrappers[key]

    def _launch(self, c: ci.Cursor, name: str, children: list[ci.Cursor], cfg: tuple[Node, ...],
                args: tuple[Node, ...], loc: Loc) -> None:
        """Record a launch. `name` is the callee as written (in a template pattern the kernel can be dependent and
        unresolved, `k<T><<<...>>>`); a launch through a local function pointer (`auto kernel = &k<Traits, B>;
        kernel<<<...>>>`, the dispatch-lambda idiom) names the kernel instantiation the pointer is set to."""
        callee = children[0] if children else None
        ref = _referenced(c)
        if ref is not None and _kind(ref) == "VAR_DECL":
            init = _initializer_of(ref)
            target = _function_target(init) if init is not None else None
            if target is not None:
                ref, name = target, _spelling(target)
        elif ref is None and callee is not None and (target := _function_target(callee)) is not None:
            # a parenthesized kernel (`hipLaunchKernelGGL((k<256, 64>), ...)`, the form launch macros need
            # for a template argument list's commas): the call names no callee of its own
            ref, name = target, _spelling(target)
        targs: tuple[str, ...] = ()
        if callee is not None:
            lits = [self.convert(ch) for ch in _preorder(callee) if _kind(ch) in ("INTEGER_LITERAL", "TYPE_REF")]
            targs = tuple(str(n.value) if n is not None and n.value is not None else "?" for n in lits)
        if ref is not None and self._template_args(ref):
            targs = tuple(v for _, v in self._template_args(ref))
        block = cfg[1] if len(cfg) > 1 else None
        self.launches.append(Launch(caller=self.current_fn, kernel=name,
                                    kernel_usr=self._id(ref) if ref is not None else "", template_args=targs,
                                    grid=cfg[0] if cfg else None, block=block, block_dims=_dims(block),
                                    shared_bytes=cfg[2] if len(cfg) > 2 and cfg[2].kind != "default" else None,
                                    args=args, loc=loc))

    def _lambda_launch(self, c: ci.Cursor, ref: ci.Cursor, aligned: list[Node | None], loc: Loc) -> None:
        """A device lambda that declares __shared__ arrays, handed to a launch wrapper (`forall_2D(n, X, Y, [=] __device__ (int e) {...})`, which
        passes it on to a `<<<grid, dim3(X, Y, BZ)>>>` launch of a kernel that calls it) runs with the block the
        wrapper builds from its arguments: recorded as a launch of the enclosing function, whose body holds the
        lambda, with that block spelled in the caller's arguments."""
        lambdas = {i for i, a in enumerate(_arguments(c)) if _is_lambda(a)}
        block = _wrapped_block(ref, {i: None for i in lambdas}, dict(enumerate(aligned)), 0)
        if block is None:
            return
        dims = tuple(d if isinstance(d, Node) else Node("int", type="int", value=d, loc=loc) for d in block)
        node = Node("call", op="dim3", type="dim3", loc=loc, children=dims)
        self.launches.append(Launch(caller=self.current_fn, kernel=self.current_name, kernel_usr=self.current_fn,
                                    template_args=tuple(v for _, v in self.current_targs), grid=None, block=node,
                                    block_dims=_dims(node), shared_bytes=None, args=(), loc=loc,
                                    block_source=f"`{_spelling(ref)}`'s launch of the lambda at line {loc.line}",
                                    wrapper=_spelling(ref)))

    def _var_decl(self, c: ci.Cursor, loc: Loc) -> Node:
        init_cursor = _initializer_of(c)
        init = None
        tspell = _type_spelling(c)
        if init_cursor is not None and init_cursor._kind_id not in _INVALID_KINDS:
            init = self.convert(init_cursor)
            if init is not None and "dependent" in init.type and _is_int_type(tspell):
                # a template pattern: every instantiation converts the value to the declared type
                init = Node("cast", op="implicit", type=tspell, loc=init.loc, children=(init,))
        # array bounds are expressions too (their literals and macros belong in the Facts); the initializer,
        # when there is one, is the last child
        children = _children(c)
        exprs = [ch for ch in children if ch._kind_id in _EXPRESSION_KINDS]
        if init_cursor is not None and exprs and exprs[-1] == init_cursor:
            exprs.pop()
        bounds = self._converted(exprs)
        is_shared = any(_kind(ch) == "CUDASHARED_ATTR" for ch in children)
        rid = self._id(c)
        value = init.value if init is not None and "const" in tspell and _is_int_type(tspell) else None
        node = Node("decl", op=_spelling(c), type=tspell, value=value, ref=rid,
                    macro="shared" if is_shared else "", loc=loc,
                    children=((init,) if init is not None else ()) + ((Node("bounds", children=bounds),) if bounds else ()))
        if is_shared:
            self._shared_decl(c, rid, loc)
        return node

    def _shared_decl(self, c: ci.Cursor, rid: str, loc: Loc) -> None:
        t = c.type
        dims: list[int | None] = []
        while t._kind_id in _ARRAY_TYPE_KINDS:
            dims.append(t.get_array_size() if t._kind_id == _CONSTANT_ARRAY else None)
            t = t.element_type
        held = _held_array(t) if not dims else None
        if held is not None:
            t, dims = held[0], [held[1]]
        elem_bytes = _element_bytes(self.tu, c, t)
        total = None
        if elem_bytes and dims and all(d is not None for d in dims):
            total = elem_bytes
            for d in dims:
                total *= d  # type: ignore[operator]
        elif elem_bytes and not dims:
            total = elem_bytes
        decl = SharedDecl(function=self.current_fn, name=_spelling(c), ref=rid, elem_type=t.spelling,
                          elem_bytes=elem_bytes, dims=tuple(dims), total_bytes=total,
                          is_extern=c.storage_class == ci.StorageClass.EXTERN, loc=loc,
                          elem_param=t.get_canonical().spelling.startswith("type-parameter-"))
        self.shared.append(decl)
        self.shared_refs[rid] = decl

    def _for(self, c: ci.Cursor, loc: Loc) -> Node:
        raw = list(_children(c))
        parts: list[Node] = [self.convert(ch) or Node("empty") for ch in raw]
        empty = Node("empty")
        if len(parts) == 4:
            init, cond, inc, body = parts
        else:
            body = parts[-1] if parts else empty
            rest = parts[:-1]
            init = next((p for p in rest if p.kind == "decls" or (p.kind == "binop" and p.op == "=")), empty)
            cond = next((p for p in rest if p.kind == "binop" and p.op in ("<", ">", "<=", ">=", "!=", "==",
                                                                          "&&", "||")), empty)
            inc = next((p for p in rest if p is not init and p is not cond), empty)
        return Node("for", loc=loc, children=(init, cond, inc, body))

    def _maybe_shared_access(self, node: Node) -> None:
        """Record an access `arr[i][j]` when `arr` is a __shared__ array (directly or through a cast)."""
        indices: list[Node] = []
        cur = node
        while cur.kind == "index" and len(cur.children) == 2:
            indices.append(cur.children[1])
            cur = cur.children[0]
        base = cur
        while base.kind == "cast" and base.op == "implicit" and base.children:
            base = base.children[0]
        width = int(node.ref) if node.ref else None
        elem_type = node.type
        if base.kind == "cast" and base.op in ("reinterpret", "c", "static") and base.children:
            inner = base.children[0]
            if inner.kind == "unop" and inner.op == "&" and inner.children:
                inner = inner.children[0]
            while inner.kind == "cast" and inner.op == "implicit" and inner.children:
                inner = inner.children[0]
            if inner.kind == "index":
                # reinterpret of &tile[r][c]: the address is tile's index plus this subscript times the new width
                return self._record_access(inner, node, extra=tuple(reversed(indices)), width=width, elem_type=elem_type)
            base = inner
        if base.kind == "ref" and base.ref in self.shared_refs:
            decl = self.shared_refs[base.ref]
            self._add_access(SharedAccess(function=self.current_fn, array=decl.name, ref=decl.ref,
                                              indices=tuple(reversed(indices)), is_write=False,
                                              elem_type=elem_type, width_bytes=width, loc=node.loc))

    def _record_access(self, inner: Node, node: Node, extra: tuple[Node, ...], width: int | None,
                       elem_type: str) -> None:
        idx: list[Node] = []
        cur = inner
        while cur.kind == "index" and len(cur.children) == 2:
            idx.append(cur.children[1])
            cur = cur.children[0]
        while cur.kind == "cast" and cur.op == "implicit" and cur.children:
            cur = cur.children[0]
        if cur.kind == "ref" and cur.ref in self.shared_refs:
            decl = self.shared_refs[cur.ref]
            self._add_access(SharedAccess(function=self.current_fn, array=decl.name, ref=decl.ref,
                                              indices=tuple(reversed(idx)) + extra, is_write=False,
                                              elem_type=elem_type, width_bytes=width, loc=node.loc))

    def _add_access(self, access: SharedAccess) -> None:
        """`tile[r][c]` is converted inside out: the partial `tile[r]` was recorded just before; the full
        subscript replaces it."""
        last = self.accesses[-1] if self.accesses else None
        if last is not None and last.ref == access.ref and (last.loc.line, last.loc.col) == \
                (access.loc.line, access.loc.col) and len(last.indices) < len(access.indices):
            self.accesses[-1] = access
        else:
            self.accesses.append(access)

    def _diagnostics(self) -> tuple[Diagnostic, ...]:
        out = []
        names = {2: "warning", 3: "error", 4: "fatal"}
        outside: str | None = None
        main = self.main_file.name
        for d in self.tu.diagnostics:
            # severity and location are read once: each read is a libclang call (a file with missing headers has
            # hundreds of errors)
            severity = d.severity
            if severity < ci.Diagnostic.Warning:
                continue
            where = d.location
            f = where.file
            in_main = f is not None and f.name == main
            if not in_main and severity < ci.Diagnostic.Fatal:
                continue
            # where a macro argument was written (a name inside an AT_DISPATCH_* lambda), else where the macro
            # was expanded: clang's own location of such a diagnostic is the outermost expansion
            loc = Loc(self.path, *_file_line_col(where)[1:]) if in_main else Loc(self.path, 1, 1)
            if outside is None:
                outside = self._outside_include()
            message = d.spelling if not outside else self._withheld(d.spelling, outside)
            notes = self._notes(d, main, bool(outside)) if in_main and severity >= ci.Diagnostic.Error else ()
            out.append(Diagnostic(names.get(severity, "warning"), message, loc, notes))
        return tuple(out)

    def _notes(self, d: ci.Diagnostic, main: str, outside: bool) -> tuple[tuple[str, int], ...]:
        """An error's notes, with their lines in the main file (0 elsewhere): why a constant expression is none
        (`initializer of 'warpSize' is unknown`, `in call to 'warp_size()'` at the use). For a file that includes
        text from outside the analyzed folders only what reveals none of it is kept: that a note names
        warpSize, and a call without arguments whose name the file's line spells."""
        out = []
        for note in d.children:
            where, text = note.location, note.spelling
            line = where.line if where.file is not None and where.file.name == main else 0
            if outside:
                call = _NOTE_CALL.fullmatch(text)
                if "'warpSize'" in text:
                    text = "'warpSize'"
                elif not (call and 0 < line <= len(self.lines) and
                          re.search(rf"\b{call.group(1)}\b", self.lines[line - 1])):
                    continue
            out.append((text, line))
        return tuple(out)

    def _withheld(self, message: str, outside: str) -> str:
        """What is kept of a diagnostic of a file that includes text from outside the analyzed folders: an
        undeclared name the analyzed file spells itself (C10_WARP_SIZE from a header not on -I, which rules read
        as evidence) reveals nothing from outside, so `use of undeclared identifier 'X'` stays, without clang's
        suggestion (a name that may come from the outside text); so does clang's fixed report that a constant
        expression is none (`constexpr variable 'x' must be initialized by a constant expression`, with a name
        the file spells); anything else is withheld."""
        name = undeclared_identifier(Diagnostic("error", message, NO_LOC))
        if name and name in self._own_words:
            return f"use of undeclared identifier '{name}'"
        fixed = _NOT_CONSTANT_REPORT.fullmatch(message)
        if fixed and (fixed.group(1) is None or fixed.group(1) in self._own_words):
            return message
        return f"(message withheld: the file includes {outside}, outside the analyzed folders)"

    @cached_property
    def _own_words(self) -> frozenset[str]:
        return frozenset(re.findall(r"\w+", "\n".join(self.lines)))

    def _outside_include(self) -> str:
        """The first file the translation unit read from outside the analyzed file's folder (and its includer's,
        for a header read in an includer context), the current folder and the compiler's headers, or "". Clang's messages quote names and values from included text
        (`enum E {\n#include "/proc/self/environ"\n};` and a template argument of type E), so a diagnostic of
        such a file could echo any readable file into a CI log."""
        roots = [Path(self.path).resolve().parent, *([Path(self.context_dir).resolve()] if self.context_dir else []),
                 Path.cwd(), STUB_INCLUDE, STUB_RESOURCE, STUB_FALLBACK, Path("/usr/include"),
                 Path("/usr/lib/gcc"), Path("/usr/local/include")]
        listed = [inc.include.name for inc in self.tu.get_includes()]
        for included in [*self.pre.included, *listed] if self.pre is not None else listed:
            name = Path(included).resolve()
            if not any(name.is_relative_to(r) for r in roots):
                return str(name)
        return ""


def extract(tu: ci.TranslationUnit, path: Path, target: str, text: str, pre: Preamble | None = None,
            context_from: str = "") -> FileFacts:
    """`pre`: the unit was parsed with a precompiled preamble (_parse_preamble); `context_from`: after the
    includer context of "includer:line" (_context_args)."""
    _TYPE_SPELLINGS.clear()  # keyed by pointers into this translation unit's AST
    _EXPANSIONS.clear()
    _FILE_LINE_COLS.clear()
    _TOKS.clear()
    _INT_BITS.clear()
    facts = replace(_Extractor(tu, path, target, text, pre, context_from).run(), sha256=hashlib.sha256(text.encode()).hexdigest())
    return _mark_writes(facts)


def _mark_writes(facts: FileFacts) -> FileFacts:
    """Shared accesses that are the left side of an assignment are writes."""
    written: set[tuple[int, int]] = set()
    for fn in facts.functions:
        if fn.body is None:
            continue
        for node in fn.body.walk():
            if node.kind == "binop" and node.op.endswith("=") and node.op not in ("==", "!=", "<=", ">=") \
                    and node.children:
                lhs = node.children[0]
                written.add((lhs.loc.line, lhs.loc.col))
    if not written:
        return facts
    accesses = tuple(a if (a.loc.line, a.loc.col) not in written else
                     SharedAccess(a.function, a.array, a.ref, a.indices, True, a.elem_type, a.width_bytes, a.loc)
                     for a in facts.shared_accesses)
    return replace(facts, shared_accesses=accesses)


class _Repair:
    """Rebuild a converted body, filling in from tokens what libclang dropped."""

    def __init__(self, ex: _Extractor, toks: list[Tok], at: dict[tuple[int, int], int],
                 names: dict[str, tuple[str, str]], errors: list[Diagnostic]) -> None:
        self.ex, self.toks, self.at, self.names, self.errors = ex, toks, at, names, errors

    def reason(self, line: int) -> str:
        """The parse error nearest to `line` (the one that dropped the code there)."""
        return min(self.errors, key=lambda d: abs(d.loc.line - line)).message

    def node(self, n: Node) -> Node:
        if n.kind == "decl" and not any(k.kind != "bounds" for k in n.children):
            init = self._initializer(n)
            if init is not None:
                init = Node("cast", op="implicit", type=n.type, value=init.value, loc=init.loc, children=(init,))
                self.ex._recovered_node(init, self.reason(init.loc.line))
                return replace(n, children=(init,) + n.children)
        if n.kind == "other" and "dependent" in n.type and n.children and n.children[0].kind == "ref" and \
                (not n.children[0].op or n.children[0].children):   # an unresolved name, or template-id
            i = self.at.get((n.children[0].loc.line, n.children[0].loc.col))
            if i is not None and self.toks[i].text.isidentifier():
                args = tuple(self.node(k) for k in n.children[1:])
                call = Node("call", op=self.toks[i].text, loc=n.loc, children=args)
                self.ex._recovered_node(call, self.reason(call.loc.line))
                return call
        if n.kind == "index" and len(n.children) == 1:
            # the array of a subscript read from an invalid declaration (`__shared__ float s[1024 / warpSize]`
            # in a template: clang keeps the index but exposes no array): its name is the subscript's first token
            i = self.at.get((n.loc.line, n.loc.col))
            if i is not None and self.toks[i].text in self.names:
                ref, typ = self.names[self.toks[i].text]
                t = self.toks[i]
                base = Node("ref", op=t.text, type=typ, ref=ref, loc=Loc(self.ex.path, t.line, t.col, t.line,
                                                                         t.col + len(t.text)))
                index = replace(n, children=(base, self.node(n.children[0])))
                self.ex._recovered_node(index, self.reason(index.loc.line))
                return index
        changed = False
        kids = []
        for k in n.children:   # a loop, not generators: this runs for every node of a body with parse errors
            repaired = self.node(k)
            changed = changed or repaired is not k
            kids.append(repaired)
        return replace(n, children=tuple(kids)) if changed else n

    def _initializer(self, decl: Node) -> Node | None:
        """`T name = <dropped>`: read the initializer's tokens up to the declaration's end."""
        i = self.at.get((decl.loc.line, decl.loc.col))
        if i is None:
            return None
        while i < len(self.toks) and self.toks[i].text != decl.op and self.toks[i].text not in (";", "{", "}"):
            i += 1
        i += 1
        depth = 0
        while i < len(self.toks) and (self.toks[i].text == "[" or depth):
            depth += {"[": 1, "]": -1}.get(self.toks[i].text, 0)
            i += 1
        if i >= len(self.toks) or self.toks[i].text != "=":
            return None
        end = _expression_end(self.toks, i + 1)
        return Reader(self.toks[i + 1:end], self.ex.path, self.names).assignment()


def _expression_end(toks: list[Tok], i: int) -> int:
    """Index of the `;` or top-level `,` that ends the expression starting at i."""
    depth = 0
    while i < len(toks):
        t = toks[i].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            if depth == 0:
                return i
            depth -= 1
        elif t in (";", ",") and depth == 0:
            return i
        i += 1
    return i


def _statement_around(toks: list[Tok], line: int) -> tuple[int, int] | None:
    """The token span [start, end) of the statement(s) holding `line`: from after the previous `;`/`{`/`}` to
    the `;` that ends the last one on that line."""
    on_line = [i for i, t in enumerate(toks) if t.line == line]
    if not on_line:
        return None
    start = on_line[0]
    while start > 0 and toks[start - 1].text not in (";", "{", "}"):
        start -= 1
    end = on_line[-1] + 1
    if toks[end - 1].text not in (";", "}"):
        # a call or condition that the line leaves open continues on the next lines: read it to its `)`
        depth = sum((t.text == "(") - (t.text == ")") for t in toks[start:end])
        while depth > 0 and end < len(toks):
            depth += (toks[end].text == "(") - (toks[end].text == ")")
            end += 1
        end = _expression_end(toks, end) + 1
    return start, min(end, len(toks))


# ---------------------------------------------------------------------------------------------------- helpers


def _overload_set(callee: ci.Cursor) -> ci.Cursor | None:
    """The unresolved lookup a template pattern's dependent callee is (`warpReduceSum(v)` with `T v`)."""
    refs = [callee] if _kind(callee) == "OVERLOADED_DECL_REF" else \
        [ch for ch in _children(callee) if _kind(ch) == "OVERLOADED_DECL_REF"]
    return refs[0] if refs else None


def _callee_name(call: ci.Cursor) -> str:
    """The function a call names; in a template pattern (`__shfl(value, lane, width)` with `T value`) the name
    its dependent lookup spells."""
    kids = _children(call) if not _spelling(call) else []
    ref = _overload_set(kids[0]) if kids else None
    return _spelling(call) or (_spelling(ref) if ref is not None else "")


def _finds_no_declaration(callee: ci.Cursor) -> bool:
    """A dependent callee (`WARP_SHFL(v, l)` with `T v`) whose unqualified lookup found no declaration at all:
    the call is an unresolved lookup over an empty overload set."""
    ref = _overload_set(callee)
    return ref is not None and _LIB.clang_getNumOverloadedDecls(ref) == 0


def _overloaded_decls(callee: ci.Cursor) -> list[ci.Cursor]:
    """The declarations a dependent callee's lookup found (function templates and overloads)."""
    ref = _overload_set(callee)
    count = _LIB.clang_getNumOverloadedDecls(ref) if ref is not None else 0
    return [_LIB.clang_getOverloadedDecl(ref, i) for i in range(min(count, 8))]


def _member_name(c: ci.Cursor) -> str:
    """The member a dependent member expression names (`getPointer` in `shared.getPointer`): libclang spells it
    only after instantiation, so it is read from the expression's last tokens ('' where they are not
    `. name` or `-> name`)."""
    try:
        toks = [t.spelling for t in c.get_tokens()]
    except Exception:
        return ""
    return toks[-1] if len(toks) >= 2 and toks[-2] in (".", "->") and toks[-1].isidentifier() else ""


# a wrapper parameter's default as _parameter_default reads it
_Default = tuple[int, str] | str | None


def _unwrapped(c: ci.Cursor) -> ci.Cursor | None:
    """The expression under a statement's or an implicit conversion's single child."""
    while _kind(c) in ("RETURN_STMT", "UNEXPOSED_EXPR"):
        kids = _children(c)
        if len(kids) != 1:
            return None
        c = kids[0]
    return c


def _parameter_default(param: ci.Cursor) -> _Default:
    """A parameter's default when it is an integer literal ((value, spelling)) or warpSize ("warpSize"), else
    None."""
    kids = [k for k in _children(param) if _kind(k) not in ("TYPE_REF", "TEMPLATE_REF", "NAMESPACE_REF")]
    expr = _unwrapped(kids[-1]) if kids else None
    if expr is None:
        return None
    if _kind(expr) == "DECL_REF_EXPR" and _spelling(expr) == "warpSize" and _is_builtin_width(expr):
        return "warpSize"
    if _kind(expr) == "INTEGER_LITERAL":
        value = _evaluate_int(expr)
        return (value, _tok(expr)) if value is not None else None
    return None


def _literal_default(param: ci.Cursor) -> int | None:
    """A parameter's default when it is an integer literal."""
    if "*" in _type_spelling(param):
        return None   # `float a[4]` is a pointer whose 4 is no default
    default = _parameter_default(param)
    return default[0] if isinstance(default, tuple) else None


def _qualified_overload(callee: ci.Cursor) -> str:
    """The function name of a qualified callee in a template pattern (`phi::gpu::Shuffle(mask, v)` is a nameless
    reference whose children are the namespaces and then the overload set): its first token is the namespace."""
    return next((_spelling(k) for k in _children(callee) if _kind(k) == "OVERLOADED_DECL_REF"), "")


def _is_builtin_width(ref_expr: ci.Cursor) -> bool:
    """`warpSize` that names the stub header's builtin, not a project declaration that shadows it."""
    decl = _referenced(ref_expr)
    where = decl.location.file if decl is not None else None
    return where is not None and where.name.startswith(str(STUB_INCLUDE))


def _tok(c: ci.Cursor) -> str:
    """The single token at a cursor's location (get_tokens on a macro-expanded literal is unreliable). Cached by
    the location (_TOKS): a dispatch macro's expanded copies repeat the same literals (`false`, `0`)."""
    key = _RAW.clang_getCursorLocation(c).int_data
    hit = _TOKS.get(key)
    if hit is None:
        loc = c.location
        try:
            toks = list(c.translation_unit.get_tokens(extent=ci.SourceRange.from_locations(loc, loc)))
        except Exception:
            toks = []
        hit = _TOKS[key] = toks[0].spelling if toks else ""
    return hit


MAX_KERNEL_INSTANCES = 8   # per kernel template and file; not a hardware number
# clang's reports that an expression needed as a constant is none, which quote at most a variable's name.
_NOT_CONSTANT_REPORT = re.compile(r"constexpr variable '(\w+)' must be initialized by a constant expression|"
                                  r"non-type template argument is not a constant expression|"
                                  r"static assertion expression is not an integral constant expression")
# clang's note at a call inside a constant evaluation, of a function without arguments.
_NOTE_CALL = re.compile(r"in call to '(?:\w+::)*(\w+)\(\)'")
# `name()` or `name<...>()`: a call without arguments, its name the first group.
_ZERO_ARGUMENT_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;(){}<>]*>)?\s*\(\s*\)")
_CALLEE_REFS = frozenset({"DECL_REF_EXPR", "MEMBER_REF_EXPR", "CALL_EXPR"})
MAX_HELPERS = 24           # header functions read per file for their call sites; bounds the cost on big headers
_SYSTEM_HEADERS = ("/usr/include", "/usr/lib", "/usr/local/include", "/opt/rocm")


def _project_header(name: str) -> bool:
    """A header of the analyzed project: not porter's HIP stubs, clang's resource headers or the system's
    (normalized first: libstdc++ is reached as /usr/bin/../lib/gcc/...)."""
    name = os.path.normpath(name)
    return not (name.startswith((str(STUB_INCLUDE), str(STUB_RESOURCE))) or name.startswith(_SYSTEM_HEADERS))


def _covering(members: list[tuple[int, tuple[tuple[str, str], ...]]], k: int) -> set[int]:
    """Greedily pick k members whose template arguments together show as many distinct (position, value)
    pairs as possible, type arguments also by their own arguments; among those adding as many, the one whose
    values the picks so far showed least often, so that each value is seen with several others (faiss's
    binaryDistanceLimitSize<NumWarpQ, NumThreadQ, BinaryType, ..>: else unsigned int takes every NumWarpQ and
    the one unsigned char instance kept may be one whose `if constexpr` body is discarded on ROCm); remaining
    ties go to the earlier one."""
    features = [{(p, part) for p, (_, v) in enumerate(args) for part in (v, *_type_arguments(v))}
                for _, args in members]
    shown: Counter[tuple[int, str]] = Counter()
    left = list(range(len(members)))
    chosen: set[int] = set()
    while left and len(chosen) < k:
        best = max(left, key=lambda j: (sum(1 for f in features[j] if f not in shown),
                                        -sum(shown[f] for f in features[j]), -j))
        left.remove(best)
        chosen.add(members[best][0])
        shown.update(features[best])
    return chosen


def _type_arguments(spelling: str) -> list[str]:
    """`Traits<128, 4, Foo<a, b>>` -> ['0:128', '1:4', '2:Foo<a, b>']; [] for a spelling without arguments."""
    start = spelling.find("<")
    if start < 0 or not spelling.endswith(">"):
        return []
    parts, depth, cur = [], 0, []
    for ch in spelling[start + 1:-1]:
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        depth += {"<": 1, ">": -1}.get(ch, 0)
        cur.append(ch)
    parts.append("".join(cur).strip())
    return [f"{i}:{p}" for i, p in enumerate(parts)]


def _owner(c: ci.Cursor) -> str:
    """The class a member function belongs to, as named without template arguments ('' for a free function)."""
    if _kind(c) not in ("CXX_METHOD", "CONVERSION_FUNCTION", "FUNCTION_TEMPLATE"):
        return ""
    parent = c.semantic_parent
    if parent is None or _kind(parent) not in ("STRUCT_DECL", "CLASS_DECL", "CLASS_TEMPLATE",
                                                 "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION"):
        return ""
    return _spelling(parent)


def _function_target(c: ci.Cursor, depth: int = 0) -> ci.Cursor | None:
    """The function an expression denotes (`f`, `&f`, `&k<T, 4>`, a substituted function template argument),
    following only implicit casts, parentheses and `&`; None for anything computed."""
    kind = _kind(c)
    if kind == "DECL_REF_EXPR":
        ref = _referenced(c)
        if ref is not None and _kind(ref) in ("FUNCTION_DECL", "CXX_METHOD"):
            return ref
    if depth > 4 or kind not in ("DECL_REF_EXPR", "UNEXPOSED_EXPR", "PAREN_EXPR", "UNARY_OPERATOR"):
        return None
    if kind == "UNARY_OPERATOR" and _LIB.clang_getCursorUnaryOperatorKind(c) != 5:  # 5: & (address of)
        return None
    kids = [k for k in _children(c) if _kind(k) not in _SKIP]
    return _function_target(kids[0], depth + 1) if len(kids) == 1 else None


def _parse_int(text: str) -> int | None:
    t = text.strip().rstrip("uUlL")
    try:
        return int(t, 0)
    except ValueError:
        return None


def _macro_int_value(body: list[str]) -> int | None:
    toks = [t for t in body if t not in ("(", ")")]
    if len(toks) == 1:
        return _parse_int(toks[0])
    return None


def _held_array(t: ci.Type) -> tuple[ci.Type, int | None] | None:
    """(element type, length) of the one array a class holds (`uninitialized_array<T, N>`, read through its
    `operator[]` or `operator T*`). Raw storage (`alignas(T) unsigned char data_[N * sizeof(T)]`) holds the
    class's first type argument. In a template pattern (`uninitialized_array<V, B>` with V, B the pattern's own
    parameters) the class template's one field says it: its element is the argument given for the parameter it
    is spelled with (V, open like any `__shared__ V buf[B]`), its length left open. None for other types."""
    record = t.get_canonical()
    if record.kind != ci.TypeKind.RECORD:
        return _held_pattern(t)
    fields = list(record.get_fields())
    if len(fields) != 1 or fields[0].type.get_canonical().kind != ci.TypeKind.CONSTANTARRAY:
        return None
    storage = fields[0].type.get_canonical()
    elem, count = storage.element_type, storage.element_count
    if _size(elem) == 1:
        held = next((a for a in (record.get_template_argument_type(i)
                                 for i in range(max(record.get_num_template_arguments(), 0)))
                     if a.kind != ci.TypeKind.INVALID), None)
        width = _size(held) if held is not None else None
        if held is not None and width and count % width == 0:
            return held, count // width
    return elem, count


def _held_pattern(t: ci.Type) -> tuple[ci.Type, None] | None:
    """_held_array for a specialization that depends on the pattern's parameters: read from the class template."""
    template = t.get_declaration()
    if _kind(template) != "CLASS_TEMPLATE":
        return None
    children = _children(template)
    fields = [ch for ch in children if _kind(ch) == "FIELD_DECL"]
    if len(fields) != 1 or fields[0].type._kind_id not in _ARRAY_TYPE_KINDS:
        return None
    params = [ch for ch in children if _kind(ch) in ("TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER",
                                                     "TEMPLATE_TEMPLATE_PARAMETER")]
    elem = fields[0].type.element_type
    spelled = elem.spelling.replace("const", "").strip()
    pos = next((i for i, p in enumerate(params) if _kind(p) == "TEMPLATE_TYPE_PARAMETER" and p.spelling == spelled),
               None)
    if pos is None and _size(elem) == 1:   # raw byte storage: the class's first type argument
        pos = next((i for i, p in enumerate(params) if _kind(p) == "TEMPLATE_TYPE_PARAMETER"), None)
    if pos is None:
        return (elem, None) if _size(elem) else None
    arg = t.get_template_argument_type(pos) if pos < t.get_num_template_arguments() else None
    return (arg, None) if arg is not None and arg.kind != ci.TypeKind.INVALID else None


# OpenCL C's built-in unsigned scalar names, which code ported from OpenCL (vision kernels) keeps as typedefs of a
# project header; glibc declares ushort/uint/ulong, so only uchar is commonly undeclared in a partial parse
_OPENCL_SCALAR_BYTES = {"uchar": 1, "ushort": 2, "uint": 4, "ulong": 8}


def _element_bytes(tu: ci.TranslationUnit, decl: ci.Cursor, elem: ci.Type) -> int | None:
    """The element size of a __shared__ declaration. An element type no header declared (`uchar` from a missing
    header) makes the declaration invalid and clang reads the type as int: its size is then that of the OpenCL
    scalar it is spelled as, or unknown, not 4 bytes. An invalid bound (`float s[1024 / warpSize]`) leaves a
    written element type alone."""
    if elem.spelling != "int" or not _RAW.clang_isInvalidDeclaration(decl):
        return _size(elem)
    # from the start of the declaration's line: an extent that begins in a macro (`__shared__`) tokenizes to nothing
    where = decl.location
    line = ci.SourceRange.from_locations(ci.SourceLocation.from_position(tu, where.file, where.line, 1),
                                         decl.extent.end) if where.file is not None else decl.extent
    spelled = [tok.text for tok in _tokens(tu, line)]
    if "int" in spelled:
        return _size(elem)
    return next((_OPENCL_SCALAR_BYTES[w] for w in spelled if w in _OPENCL_SCALAR_BYTES), None)


def _size(t: ci.Type) -> int | None:
    try:
        s = t.get_size()
    except Exception:
        return None
    return s if s and s > 0 else None


def _pointee_size(t: ci.Type) -> int | None:
    if t._kind_id == _POINTER:
        return _size(t.get_pointee())
    return None


def _is_lambda(c: ci.Cursor) -> bool:
    while _kind(c) in ("UNEXPOSED_EXPR", "") and len(kids := _children(c)) == 1:
        c = kids[0]
    return _kind(c) == "LAMBDA_EXPR"


_WRAPPER_DEPTH = 6   # forall_2D -> ForallWrap -> HipWrap<2>::run -> HipWrap2D -> <<<>>>: layers of launch wrappers


def _wrapped_block(fn: ci.Cursor, carried: dict[int, Node | int | None], outer: dict[int, Node | int | None],
                   depth: int) -> tuple[Node | int | None, ...] | None:
    """The block (x, y, z) with which function `fn` launches a kernel that receives the lambda in its parameters
    `carried` (indices), each extent the caller's argument it is made of (`outer`: parameter index -> the
    caller's value, a Node at the first call, an int where a wrapper passes a constant, None: unknown); None when
    no such launch is found within _WRAPPER_DEPTH calls."""
    body = next((ch for ch in _children(fn) if _kind(ch) == "COMPOUND_STMT"), None)
    if body is None or depth > _WRAPPER_DEPTH:
        return None
    params = {_decl_key(p): i for i, p in enumerate(_arguments(fn) if _kind(fn) != "FUNCTION_TEMPLATE" else [])}
    if not params:
        params = {_decl_key(p): i for i, p in enumerate(ch for ch in _children(fn) if _kind(ch) == "PARM_DECL")}
    lambda_params = {k for k, i in params.items() if i in carried}

    def value(e: ci.Cursor, seen: int = 0) -> Node | int | None:
        while _kind(e) in ("UNEXPOSED_EXPR", "PAREN_EXPR", "") and len(kids := _children(e)) == 1:
            e = kids[0]
        target = _referenced(e) if _kind(e) == "DECL_REF_EXPR" else None
        if target is not None and _decl_key(target) in params:
            return outer.get(params[_decl_key(target)])
        if target is not None and _kind(target) == "VAR_DECL" and seen < 4:
            init = _initializer_of(target)
            return value(init, seen + 1) if init is not None else None
        return _evaluate_int(e) if _kind(e) in ("INTEGER_LITERAL", "DECL_REF_EXPR") else None

    def dims(e: ci.Cursor) -> tuple[Node | int | None, ...]:
        while _kind(e) in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CALL_EXPR", "") and len(kids := _children(e)) == 1:
            e = kids[0]
        target = _referenced(e) if _kind(e) == "DECL_REF_EXPR" else None
        if target is not None and _kind(target) == "VAR_DECL" and "dim3" in _type_spelling(target):
            init = _initializer_of(target)
            return dims(init) if init is not None else (None, None, None)
        if _kind(e) == "CALL_EXPR" and "dim3" in _type_spelling(e):
            xs = [value(a) for a in _arguments(e)]
            return tuple((xs + [1, 1, 1])[:3])
        return (value(e), 1, 1)

    for node in _preorder(body):
        if _kind(node) != "CALL_EXPR":
            continue
        args = _arguments(node)
        passes = [i for i, a in enumerate(args) if any(
            _kind(x) == "DECL_REF_EXPR" and (t := _referenced(x)) is not None and _decl_key(t) in lambda_params
            for x in _preorder(a))]
        if not passes:
            continue
        config = next((ch for ch in _children(node) if _kind(ch) == "CALL_EXPR" and
                       _spelling(ch) in ("__hipPushCallConfiguration", "hipConfigureCall")), None)
        if config is not None:
            cfg = _arguments(config)
            return dims(cfg[1]) if len(cfg) > 1 else None
        callee = _referenced(node)
        if callee is None:
            continue
        found = _wrapped_block(callee, {i: None for i in passes}, {i: value(a) for i, a in enumerate(args)},
                               depth + 1)
        if found is not None:
            return found
    return None


def _dims(block: Node | None) -> tuple[int, int, int] | None:
    if block is None:
        return None
    node = block
    while node.kind in ("cast", "other") and len(node.children) == 1:
        node = node.children[0]
    if node.value is not None:
        return (node.value, 1, 1)
    if (node.kind == "call" and node.op == "dim3") or (node.kind == "init_list" and node.type.endswith("dim3")):
        vals = [c.value if c.kind != "default" else 1 for c in node.children]
        if all(v is not None for v in vals):
            vals = (vals + [1, 1, 1])[:3]
            return (vals[0], vals[1], vals[2])  # type: ignore[return-value]
    return None


def _local_dims(node: Node, decls: dict[str, Node], assigned: set[str],
                depth: int = 0) -> tuple[tuple[int | None, int | None, int | None] | None, Node | None]:
    """_dims through local variables: the block dims (None for a dimension that is not a constant) and the
    variable declaration they were read from."""
    while node.value is None and node.kind in ("cast", "other") and len(node.children) == 1:
        node = node.children[0]
    if depth > 8:
        return None, None
    if node.kind == "ref" and node.value is None:
        decl = decls.get(node.ref) if node.ref not in assigned else None
        init = decl.children[0] if decl is not None and decl.children and decl.children[0].kind != "bounds" else None
        if init is None:
            return None, None
        dims, inner = _local_dims(init, decls, assigned, depth + 1)
        return dims, inner or decl
    if node.kind == "call" and node.op == "dim3" or node.kind == "init_list" and node.type.endswith("dim3"):
        vals: list[int | None] = []
        source = None
        for c in node.children:
            if c.kind == "default":
                vals.append(1)
                continue
            d, src = _local_dims(c, decls, assigned, depth + 1)
            vals.append(d[0] if d is not None and d[1:] == (1, 1) else None)
            source = source or src
        vals = (vals + [1, 1, 1])[:3]
        return (vals[0], vals[1], vals[2]), source
    return _dims(node), None


def _fold(op: str, kids: tuple[Node, ...], type_spelling: str) -> int | None:
    a, b = kids[0].value, kids[1].value
    v = fold_int(op, a, b) if a is not None and b is not None else None
    if v is not None and "unsigned" in type_spelling:
        bits = 64 if "long" in type_spelling else 32
        v &= (1 << bits) - 1
    return v


def _fold_unary(op: str, a: int) -> int | None:
    return {"-": -a, "+": a, "~": ~a, "!": int(not a)}.get(op)
