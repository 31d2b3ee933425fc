"""LDS bank-conflict model (issue 3): exact per-lane evaluation of shared-memory accesses against each target's
bank and phase tables, plus a padding / swizzle search. Independent of parsing."""

from porter.lds.affine import Affine, EvalError, Expr, affine_of, evaluate, from_json, symbols, to_c
from porter.lds.model import (Access, ConflictResult, LdsModel, LdsModelError, PhaseCost, PhaseTable, analyze,
                              as_model, load_model, model_from_target, thread_of)
from porter.lds.padding import (ArrayAccess, LayoutOption, PaddingResult, SharedArray, Swizzle, element_offset,
                                find_padding, to_access)

__all__ = [
    "Access", "Affine", "ArrayAccess", "ConflictResult", "EvalError", "Expr", "LayoutOption", "LdsModel",
    "LdsModelError", "PaddingResult", "PhaseCost", "PhaseTable", "SharedArray", "Swizzle", "affine_of", "analyze",
    "as_model", "element_offset", "evaluate", "find_padding", "from_json", "load_model", "model_from_target",
    "symbols", "thread_of", "to_access", "to_c",
]
