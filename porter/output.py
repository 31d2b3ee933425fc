"""Formatting findings for people (text) and tools (json)."""

from __future__ import annotations

import json
from typing import Iterable

from porter import __version__
from porter.findings import Finding

FORMATS = ("text", "json")


def format_text(findings: Iterable[Finding], *, show_fix: bool = False) -> str:
    lines = []
    for f in findings:
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.rule_id} [{f.severity}] {f.message} (confidence: {f.confidence})")
        if show_fix:
            lines.append(f"    fix: {f.fix}")
    return "\n".join(lines) + ("\n" if lines else "")


def finding_json(f: Finding) -> dict:
    return {"rule_id": f.rule_id, "category": f.category, "severity": f.severity, "confidence": f.confidence,
            "path": f.path, "line": f.line, "column": f.col, "end_line": f.end_line, "end_column": f.end_col,
            "message": f.message, "fix": f.fix,
            "edits": [{"line": e.line, "column": e.col, "end_line": e.end_line, "end_column": e.end_col,
                       "text": e.text} for e in f.edits]}


def format_json(findings: Iterable[Finding], *, files: int, errors: list[str], notes: list[str]) -> str:
    doc = {"tool": "porter", "version": __version__, "files": files,
           "findings": [finding_json(f) for f in findings], "errors": errors, "notes": notes}
    return json.dumps(doc, indent=2) + "\n"


def render(fmt: str, findings: list[Finding], *, files: int, errors: list[str], notes: list[str],
           show_fix: bool = False) -> str:
    if fmt == "json":
        return format_json(findings, files=files, errors=errors, notes=notes)
    return format_text(findings, show_fix=show_fix)
