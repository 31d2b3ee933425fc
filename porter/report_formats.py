"""Formatting findings for people (text), tools (json), code scanning (sarif) and CI logs (github)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable
from urllib.parse import quote

from porter import __version__
from porter.facts import split_lines
from porter.findings import Finding

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "note": "note"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def format_text(findings: Iterable[Finding], *, show_fix: bool = False) -> str:
    lines = []
    for f in findings:
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.rule_id} [{f.severity}] {f.message} (confidence: {f.confidence})")
        if f.confirmed:
            lines.append(f"    {f.confirmed}")
        if show_fix:
            lines.append(f"    fix: {f.fix}")
    return "\n".join(lines) + ("\n" if lines else "")


def finding_json(f: Finding) -> dict:
    return {"rule_id": f.rule_id, "category": f.category, "severity": f.severity, "confidence": f.confidence,
            "path": f.path, "line": f.line, "column": f.col, "end_line": f.end_line, "end_column": f.end_col,
            "message": f.message, "fix": f.fix, "fingerprint": f.fingerprint,
            "edits": [{"line": e.line, "column": e.col, "end_line": e.end_line, "end_column": e.end_col,
                       "text": e.text} for e in f.edits],
            **({"confirmation": f.confirmed} if f.confirmed else {}),
            **({"suppressed": f.suppressed} if f.suppressed else {})}   # the ignore's justification


def _one_per_line(items: list) -> str:
    """A JSON array with one compact item per line: readable and grep-able, and written by json's C encoder
    (indent= falls back to the pure-Python encoder, which took ~0.2 s for 3,000 findings)."""
    if not items:
        return "[]"
    return "[\n  " + ",\n  ".join(json.dumps(x, ensure_ascii=False) for x in items) + "\n ]"


def format_json(findings: Iterable[Finding], *, files: int, errors: list[str], notes: list[str],
                coverage: list[dict] | None = None) -> str:
    head = json.dumps({"tool": "porter", "version": __version__, "files": files})[1:-1]
    return (f"{{{head},\n \"findings\": {_one_per_line([finding_json(f) for f in findings])},\n"
            f" \"errors\": {_one_per_line(errors)},\n \"notes\": {_one_per_line(notes)},\n"
            f" \"coverage\": {_one_per_line(coverage or [])}\n}}\n")


# ------------------------------------------------------------------------------------------------------ SARIF

def _artifact(path: str, root: Path) -> dict:
    """Repository-relative, '/'-separated, percent-encoded against SRCROOT; an absolute file URI (and no base)
    outside the root."""
    p = Path(path).resolve()
    try:
        return {"uri": quote(p.relative_to(root.resolve()).as_posix()), "uriBaseId": "SRCROOT"}
    except ValueError:
        return {"uri": p.as_uri()}


class _Utf16Columns:
    """clang's 1-based byte columns -> SARIF's default column unit, 1-based UTF-16 code units."""

    def __init__(self, path: str) -> None:
        try:
            text = Path(path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""   # columns stay as they are: the file is gone or was not analyzed
        self.lines = split_lines(text)

    def __call__(self, line: int, col: int) -> int:
        if not 0 < line <= len(self.lines) or col < 1:
            return col
        before = self.lines[line - 1].encode("utf-8")[:col - 1].decode("utf-8", "replace")
        return len(before.encode("utf-16-le")) // 2 + 1


def _region(line: int, col: int, end_line: int, end_col: int, columns: _Utf16Columns) -> dict:
    region = {"startLine": max(line, 1), "startColumn": max(columns(line, col), 1)}
    if end_line >= line and end_col > 0 and (end_line, end_col) > (line, col):
        region.update(endLine=end_line, endColumn=columns(end_line, end_col))
    return region


def format_sarif(findings: list[Finding], *, root: Path, errors: list[str], notes: list[str]) -> str:
    from porter.cli.rules import doc
    from porter.ruleset import load_rules

    rules = list(load_rules())
    index = {r.id: i for i, r in enumerate(rules)}
    driver_rules = [{
        "id": r.id,
        "name": "".join(w.capitalize() for w in r.title.replace("-", " ").split() if w.isalnum())[:64] or r.id,
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": " ".join(r.why.split())},
        "help": {"text": doc(r), "markdown": _help_markdown(r)},
        "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
        "properties": {"tags": [r.category, "porter"], "precision": {"high": "high", "medium": "medium",
                                                                     "low": "low"}[r.confidence]},
    } for r in rules]
    results = []
    columns: dict[str, _Utf16Columns] = {}
    for f in findings:
        cols = columns.get(f.path) or columns.setdefault(f.path, _Utf16Columns(f.path))
        location = {"physicalLocation": {"artifactLocation": _artifact(f.path, root),
                                         "region": _region(f.line, f.col, f.end_line, f.end_col, cols)}}
        result: dict = {"ruleId": f.rule_id, "level": _SARIF_LEVEL[f.severity], "message": {"text": f.message},
                        "locations": [location],
                        "partialFingerprints": {"porterFingerprint/v1": f.fingerprint},
                        "properties": {"confidence": f.confidence, "category": f.category}}
        if f.rule_id in index:
            result["ruleIndex"] = index[f.rule_id]
        if f.confirmed:
            result["properties"]["confirmation"] = f.confirmed
        if f.suppressed:
            result["suppressions"] = [{"kind": "inSource", "justification": f.suppressed}]
        if f.edits:
            result["fixes"] = [{"description": {"text": f.fix},
                                "artifactChanges": [{"artifactLocation": _artifact(f.path, root),
                                                     "replacements": [{"deletedRegion": _region(
                                                         e.line, e.col, e.end_line, e.end_col, cols) if (
                                                         e.end_line, e.end_col) != (e.line, e.col) else
                                                         {"startLine": e.line, "startColumn": cols(e.line, e.col),
                                                          "endLine": e.line, "endColumn": cols(e.line, e.col)},
                                                         "insertedContent": {"text": e.text}}
                                                                      for e in f.edits]}]}]
        results.append(result)
    notifications = [{"level": "error", "message": {"text": e}} for e in errors] + \
                    [{"level": "note", "message": {"text": n}} for n in notes]
    doc_ = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "porter", "version": __version__, "semanticVersion": __version__,
                            "informationUri": "https://github.com/porter-hip/porter", "rules": driver_rules}},
        "originalUriBaseIds": {"SRCROOT": {"uri": root.resolve().as_uri() + "/"}},
        "columnKind": "utf16CodeUnits",
        "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": notifications}],
        "results": results}]}
    return json.dumps(doc_, indent=1) + "\n"


def _help_markdown(rule) -> str:  # type: ignore[no-untyped-def]
    return (f"**{rule.title}**\n\n{' '.join(rule.why.split())}\n\n**Fix:** {' '.join(rule.fix.split())}\n\n"
            f"Bad:\n```cpp\n{rule.bad.strip()}\n```\nGood:\n```cpp\n{rule.good.strip()}\n```\n")


# ----------------------------------------------------------------------------------------------- GitHub log

def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


# Where the Actions runner starts a line (it reads CR, LF and CRLF as line ends; Python's splitlines() also breaks at
# the others, so they are treated as line starts too) and the whitespace it trims before looking for `::`.
_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile(f"([{_BREAKS}])")
_COMMAND_START = re.compile(f"^([^\\S{_BREAKS}]*)(?=::)")
# Lines that format_github wrote: the only workflow commands porter means to give.
_OWN_COMMANDS: set[str] = set()


def under_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def neutralize_commands(line: str) -> str:
    """One line of log output with no workflow command in it: a leading `::` (after whitespace) gets a backslash
    before it, and `##[` (the old syntax, recognized anywhere in a line) becomes `##\\[`."""
    return _COMMAND_START.sub(r"\1\\", line).replace("##[", "##\\[")


class ActionsSafeStream:
    """A text stream for GitHub Actions logs: every line but porter's own annotations is neutralized, so a file
    name, message or libclang diagnostic from the checkout cannot forge annotations or stop command processing."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self._stream = stream
        self._partial = ""
        self._midline = False  # the buffered text continues a line already written (flushed mid-line)

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError("ActionsSafeStream.write() takes str")
        parts = _BREAK.split(self._partial + text)
        out = []
        for line, sep in zip(parts[0:-1:2], parts[1::2]):
            out.append(self._safe(line) + sep)
            self._midline = False
        self._partial = parts[-1]
        if out:
            self._stream.write("".join(out))
        return len(text)

    def _safe(self, line: str) -> str:
        if self._midline:
            return line.replace("##[", "##\\[")
        return line if line in _OWN_COMMANDS else neutralize_commands(line)

    def flush(self) -> None:
        if self._partial:
            self._stream.write(self._safe(self._partial))
            self._partial, self._midline = "", True
        self._stream.flush()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._stream, name)


def protect_actions_log() -> None:
    """Under GitHub Actions, route porter's stdout and stderr through ActionsSafeStream."""
    if under_actions():
        import sys
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if stream is not None and not isinstance(stream, ActionsSafeStream):
                setattr(sys, name, ActionsSafeStream(stream))


def format_github(findings: Iterable[Finding], *, root: Path) -> str:
    """Workflow commands (::error file=...::message); GitHub shows 10 per level and step, SARIF has them all.
    Every value is escaped, so one finding is one command whatever its message or file name holds."""
    out = []
    for f in findings:
        if f.suppressed:
            continue
        path = os.path.relpath(Path(f.path).resolve(), root.resolve())
        props = [f"file={_escape_property(path)}", f"line={f.line}", f"col={f.col}"]
        if f.end_line >= f.line:
            props += [f"endLine={f.end_line}", f"endColumn={max(f.end_col, 1)}"]
        props.append(f"title={_escape_property(f'{f.rule_id} ({f.confidence} confidence)')}")
        out.append(f"::{_GITHUB_LEVEL[f.severity]} {','.join(props)}::{_escape_data(f.message)}")
    _OWN_COMMANDS.update(out)
    return "\n".join(out) + ("\n" if out else "")


def render(fmt: str, findings: list[Finding], *, files: int, errors: list[str], notes: list[str],
           show_fix: bool = False, root: Path | None = None, coverage: list[dict] | None = None) -> str:
    """coverage: per-file records of what was analyzed how (porter.analysis.coverage), for json."""
    root = root or Path.cwd()
    if fmt == "json":
        return format_json(findings, files=files, errors=errors, notes=notes, coverage=coverage)
    if fmt == "sarif":
        return format_sarif(findings, root=root, errors=errors, notes=notes)
    if fmt == "github":
        return format_github(findings, root=root)
    return format_text([f for f in findings if not f.suppressed], show_fix=show_fix)
