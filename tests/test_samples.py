"""Every annotated sample, both ways: each `expect` fires on its line, each `ok` does not, each `todo` is a known
miss (xfail, strict: it fails once the rule starts catching it), and no finding goes unannotated."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from porter.analysis import Request, analyze_one, with_includer_contexts
from porter.findings import Finding
from porter.frontend_config import make_config

from sample_annotations import ROOT, Annotation, annotations, sample_files


@cache
def findings_for(path: Path) -> tuple[Finding, ...]:
    from porter.ruleset import rule_by_id
    # explain-only rules (LDS-000) run where a sample annotates them, as `porter analyze --explain` would
    explain = any((r := rule_by_id(a.rule_id)) is not None and r.explain_only for a in annotations(path))
    req = Request(path=str(path), config=make_config(target="gfx942"), target="gfx942", explain=explain)
    # a header is read in its includer's context, as `porter analyze` reads it (samples/wave64/includer_context)
    result = analyze_one(with_includer_contexts([req])[0])
    assert not result.error, result.error
    return tuple(result.findings)


def _fired(ann: Annotation) -> bool:
    return any(f.rule_id == ann.rule_id and f.line == ann.line for f in findings_for(ann.path))


ALL = [a for p in sample_files() for a in annotations(p)]


@pytest.mark.parametrize("ann", [a for a in ALL if a.kind == "expect"], ids=str)
def test_expected_finding_fires(ann: Annotation) -> None:
    got = [f"{f.line}:{f.rule_id}" for f in findings_for(ann.path)]
    assert _fired(ann), f"{ann}: expected {ann.rule_id} on line {ann.line}; findings: {got}"


@pytest.mark.parametrize("ann", [a for a in ALL if a.kind == "ok"], ids=str)
def test_ok_line_is_silent(ann: Annotation) -> None:
    assert not _fired(ann), f"{ann}: {ann.rule_id} must not fire on line {ann.line}"


def test_known_misses_still_miss() -> None:
    """`todo` marks a known miss; once the rule catches it the annotation must become `expect`."""
    now_fire = [str(a) for a in ALL if a.kind == "todo" and _fired(a)]
    assert not now_fire, f"known misses that now fire (change 'todo' to 'expect'): {now_fire}"


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_unannotated_findings(path: Path) -> None:
    expected = {(a.line, a.rule_id) for a in annotations(path) if a.kind in ("expect", "todo")}
    extra = [f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}" for f in findings_for(path)
             if (f.line, f.rule_id) not in expected]
    assert not extra, "findings without an annotation:\n" + "\n".join(extra)


def test_every_rule_has_positive_and_negative_samples() -> None:
    from porter.ruleset import load_rules
    kinds: dict[str, set[str]] = {}
    for a in ALL:
        kinds.setdefault(a.rule_id, set()).add(a.kind)
    missing = [r.id for r in load_rules() if not {"expect", "ok"} <= kinds.get(r.id, set())]
    assert not missing, f"rules without both an expect and an ok sample: {missing}"
