"""Template families for `porter convert` and `porter verify`: one folder each, named once in FAMILIES.

porter/families/<name>/ holds the family's kernel.py.j2 and manifest.toml (_common/ holds the shared base).
"""

from __future__ import annotations

from pathlib import Path

# Recognition priority: a tie between candidates of equal score goes to the family listed first.
FAMILIES = (
    "attention",
    "batched_gemm",
    "gemm",
    "softmax",
    "layernorm",
    "rmsnorm",
    "row_reduce",
    "transpose",
    "elementwise",
)

FOLDER = Path(__file__).resolve().parent
