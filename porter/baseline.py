"""Baselines: record today's findings so that only new ones are reported (fingerprints survive lines moving)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from porter import __version__
from porter.findings import Finding
from porter.fsutil import atomic_write


class BaselineError(Exception):
    pass


def write_baseline(path: str, findings: list[Finding]) -> int:
    entries = [{"fingerprint": f.fingerprint, "rule_id": f.rule_id, "path": f.path, "line": f.line,
                "message": f.message} for f in findings if not f.suppressed]
    atomic_write(path, json.dumps({"tool": "porter", "version": __version__, "findings": entries}, indent=1) + "\n")
    return len(entries)


def load_baseline(path: str) -> Counter[str]:
    try:
        data = json.loads(Path(path).read_text())
        return Counter(e["fingerprint"] for e in data["findings"])
    except FileNotFoundError as exc:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from exc
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"{path}: not a porter baseline ({exc})") from exc


def filter_baseline(findings: list[Finding], known: Counter[str]) -> tuple[list[Finding], int]:
    """Drop findings the baseline knows (each baseline entry absorbs one finding). Returns (new, absorbed)."""
    left = Counter(known)
    out, absorbed = [], 0
    for f in findings:
        if left[f.fingerprint] > 0:
            left[f.fingerprint] -= 1
            absorbed += 1
        else:
            out.append(f)
    return out, absorbed
