"""Rules as data: one TOML file per rule in rules/, run through named Python matchers in porter/matchers."""

from __future__ import annotations

import importlib
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterable

from porter.findings import CONFIDENCES, SEVERITIES, Finding, Match
from porter.resources import data_dir
from porter.rule_context import RuleContext
from porter.targets import Target

REQUIRED = ("id", "title", "category", "severity", "confidence", "matcher", "message", "why", "fix", "bad", "good")
CATEGORIES = ("wave64", "lds")
_TARGET_FIELDS = ("name", "vendor", "wave_size")

Matcher = Callable[[RuleContext, dict[str, Any]], Iterable[Match]]


class RuleError(Exception):
    """A rule file is malformed; names the file and the problem."""


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    category: str
    severity: str
    confidence: str
    matcher: str
    params: dict[str, Any]
    message: str
    why: str
    fix: str
    bad: str
    good: str
    references: tuple[str, ...]
    path: str
    explain_only: bool = False  # runs only under `porter analyze --explain` (diagnostic notes)
    # target fields the rule needs (e.g. wave_size = 64): a rule about 64-lane wavefronts says nothing on a
    # 32-lane target; empty = every target
    applies_to: tuple[tuple[str, Any], ...] = ()

    def applies(self, target: Target) -> bool:
        return all(getattr(target, key) == value for key, value in self.applies_to)

    def matcher_fn(self) -> Matcher:
        module, _, name = self.matcher.partition(":")
        mod = importlib.import_module(f"porter.matchers.{module}")
        fn = getattr(mod, name, None)
        if fn is None:
            raise RuleError(f"{self.path}: matcher '{self.matcher}' does not exist")
        return fn


def _load(path: Path) -> Rule:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RuleError(f"{path}: {exc}") from exc
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise RuleError(f"{path}: missing keys {', '.join(missing)}")
    if data["severity"] not in SEVERITIES or data["confidence"] not in CONFIDENCES:
        raise RuleError(f"{path}: severity must be one of {SEVERITIES}, confidence one of {CONFIDENCES}")
    if data["category"] not in CATEGORIES:
        raise RuleError(f"{path}: category must be one of {CATEGORIES}")
    if path.stem != data["id"]:
        raise RuleError(f"{path}: file name must be the rule id ({data['id']}.toml)")
    applies_to = data.get("applies_to", {})
    unknown = sorted(set(applies_to) - set(_TARGET_FIELDS))
    if not isinstance(applies_to, dict) or unknown:
        raise RuleError(f"{path}: applies_to takes target fields ({', '.join(_TARGET_FIELDS)}); unknown: {unknown}")
    return Rule(id=data["id"], title=data["title"], category=data["category"], severity=data["severity"],
                confidence=data["confidence"], matcher=data["matcher"], params=data.get("params", {}),
                message=data["message"], why=data["why"].strip(), fix=data["fix"].strip(), bad=data["bad"],
                good=data["good"], references=tuple(data.get("references", ())), path=str(path),
                explain_only=bool(data.get("explain_only", False)), applies_to=tuple(sorted(applies_to.items())))


@cache
def load_rules() -> tuple[Rule, ...]:
    return tuple(_load(p) for p in sorted(data_dir("rules").glob("*.toml")))


def rule_by_id(rule_id: str) -> Rule | None:
    return next((r for r in load_rules() if r.id == rule_id), None)


def select_rules(select: Iterable[str] = (), ignore: Iterable[str] = (), explain: bool = False) -> list[Rule]:
    """Rules whose id starts with one of `select` (all when empty) and with none of `ignore`; explain-only
    rules only when `explain` is set."""
    sel, ign = tuple(select), tuple(ignore)
    return [r for r in load_rules() if (not sel or r.id.startswith(sel)) and not (ign and r.id.startswith(ign))
            and (explain or not r.explain_only)]


def run_rules(ctx: RuleContext, rules: Iterable[Rule],
              overrides: dict[str, Any] | None = None, notes: list[str] | None = None) -> list[Finding]:
    """`overrides` replace rule params of the same name (command-line options such as default_block). With
    `notes`, a rule whose matcher fails (a porter bug) costs that rule only: its findings in this file are
    dropped and a note naming the rule is appended; without it the exception propagates."""
    findings: dict[tuple, Finding] = {}
    for rule in rules:
        if not rule.applies(ctx.target):
            continue
        params = {**rule.params, **{k: v for k, v in (overrides or {}).items() if k in rule.params}}
        try:
            found = _rule_findings(ctx, rule, params)
        except Exception as exc:  # noqa: BLE001 - contained to this rule, reported as a note
            if notes is None:
                raise
            notes.append(f"{ctx.facts.path}: {rule.id} not checked: porter's matcher {rule.matcher} failed "
                         f"({type(exc).__name__}: {str(exc)[:120]}); please report it")
            continue
        for f in found:
            # template patterns and their instantiations report the same place once
            findings.setdefault((rule.id, f.line, f.col), f)
    return sorted(findings.values(), key=Finding.sort_key)


def _rule_findings(ctx: RuleContext, rule: Rule, params: dict[str, Any]) -> list[Finding]:
    out = []
    for m in rule.matcher_fn()(ctx, params):
        try:
            message = rule.message.format(**m.args)
        except (KeyError, IndexError) as exc:
            raise RuleError(f"{rule.path}: message needs {exc} which matcher {rule.matcher} did not give") from exc
        fix = m.suggestion or rule.fix.splitlines()[0]
        out.append(Finding(rule_id=rule.id, category=rule.category, severity=m.severity or rule.severity,
                           confidence=m.confidence or rule.confidence, path=ctx.facts.path, line=m.loc.line,
                           col=m.loc.col, end_line=m.loc.end_line or m.loc.line, end_col=m.loc.end_col or m.loc.col,
                           message=message, fix=fix, edits=m.edits))
    return out
