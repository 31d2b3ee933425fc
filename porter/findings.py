"""What rules report: matches from matchers, and the findings users see."""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.facts import Loc

SEVERITIES = ("note", "warning", "error")
CONFIDENCES = ("low", "medium", "high")


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text between two positions (1-based line/col, end exclusive) with `text`."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str


@dataclass(frozen=True, slots=True)
class Match:
    """A matcher's raw result: where, the values for the rule's message, and optional overrides."""

    loc: Loc
    args: dict[str, str] = field(default_factory=dict)
    confidence: str | None = None
    severity: str | None = None
    edits: tuple[Edit, ...] = ()            # a mechanical fix-it, applied by --fix
    suggestion: str = ""                    # a fix that needs a person (changes meaning or is not local)


@dataclass(frozen=True, slots=True)
class Finding:
    rule_id: str
    category: str
    severity: str
    confidence: str
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    message: str
    fix: str
    edits: tuple[Edit, ...] = ()
    fingerprint: str = ""                   # stable id for baselines and SARIF partialFingerprints
    suppressed: str = ""                    # the in-source ignore's justification, when suppressed
    confirmed: str = ""                     # porter analyze --confirm: "confirmed: ...", "not confirmed: ...", "not run: ..."

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.rule_id)


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)
