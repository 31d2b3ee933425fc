"""elementwise: one output element per thread from inputs at the same position, with a bias, an activation, a
run-time scale and shift and accumulation into the output where the stored value shows them."""

from __future__ import annotations

import math

from porter.convert.recognize import (ERF, EXP, MAX, TANH, Candidate, Features, KernelReading, base_name, positional,
                                      roots_in, same_expr, scored)
from porter.fact_queries import strip
from porter.facts import Node


def candidate(k: KernelReading) -> Candidate:
    f, inputs, outputs, row_map = k.f, k.inputs, k.outputs, k.row_map
    swapped = k.copy_shape[1]
    act = _activation(f)
    bias = k.gamma_beta
    ew_params, ew_map = _elementwise(f, outputs)
    sizes = row_map[2:]
    if not row_map[2][1] and row_map[3][1]:     # one size only: a flat map over N elements
        ew_params["flat"], sizes = True, row_map[3:]
    foreign = _foreign_constants(f, act)
    unknown_select = bool(f.conds) and act != "relu"
    # math the template does not compose (fminf in a leaky ReLU, logf, powf): its result would differ
    other_math = sorted(f.calls & OTHER_MATH)
    if bias and not _added_to(f, outputs, bias[0], row_map[0][1]):
        bias = []      # a second input that is not added to x (grad * silu'(x)) has no template argument
    return scored("elementwise", {"one output element per thread from inputs at the same position":
                                  bool(outputs) and not swapped and bool(inputs)},
                  {"a reduction": bool(f.shuffles or f.accumulations or f.macs or f.shared_reduce),
                   "square roots": k.has_rsqrt,
                   f"constants the template does not have ({', '.join(map(str, foreign))})": bool(foreign),
                   "a conditional value (c ? a : b) other than ReLU": unknown_select,
                   f"functions the template does not have ({', '.join(other_math)})": bool(other_math)},
                  {"dtype": k.dtype, "bias": bool(bias), "activation": act, **ew_params},
                  [("x", row_map[0][1])] + positional(("bias",), bias) + [("y", row_map[1][1])] + sizes + ew_map)


def _elementwise(f: Features, outputs: list[str]) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """Run-time scale, where it applies (inside or outside the activation) and accumulation into the output
    (`y = a * x + y`), read from the stored expression."""
    if len(outputs) != 1 or not f.stores.get(outputs[0]):
        return {}, []
    out = outputs[0]
    value = strip(f.stores[out][0][1])
    accumulate = False
    if value.kind == "binop" and value.op == "+" and len(value.children) == 2:
        for i, child in enumerate(value.children):
            if base_name(child) == out:
                accumulate, value = True, strip(value.children[1 - i])
                break
    params: dict[str, object] = {"accumulate": accumulate}
    shift: list[tuple[str, str]] = []
    if value.kind == "binop" and value.op == "+" and len(value.children) == 2:
        for i, child in enumerate(value.children):
            child = strip(child)
            if child.kind == "ref" and child.op in f.floats:     # `... + bias` with a run-time scalar bias
                params["shift"], shift, value = True, [("shift", child.op)], strip(value.children[1 - i])
                break
    passed = _names_passed_to_calls(value)
    scales = [n.op for n in value.walk() if n.kind == "ref" and n.op in f.floats and n.op not in passed]
    if len(set(scales)) != 1:
        return {**params, "scale": False}, shift
    outside = value.kind == "binop" and value.op == "*" and any(
        strip(c).kind == "ref" and strip(c).op == scales[0] for c in value.children)
    return {**params, "scale": True, "order": "bias_act_scale" if outside else "scale_bias_act"}, \
        [("scale", scales[0])] + shift


# math that changes a value in a way no elementwise activation composes (a leaky ReLU's fminf, a clamp, a log)
OTHER_MATH = {"fminf", "fmin", "min", "__hmin", "fabsf", "fabs", "abs", "logf", "log", "__logf", "log2f", "log1pf",
              "powf", "pow", "__powf", "sinf", "cosf", "__sinf", "__cosf", "floorf", "ceilf", "roundf", "truncf",
              "rintf", "copysignf", "erfcf", "expm1f", "__saturatef", "fmodf", "sigmoid"}


def _added_to(f: Features, outputs: list[str], bias: str, x: str) -> bool:
    """The stored value adds a second operand to (an expression of) `x`, as the template's bias does (the bias
    may reach it through shared memory); `grad * f(x)` or `f(grad, x)` has no `+` of that shape."""
    for _, value in f.stores.get(outputs[0], []) if len(outputs) == 1 else []:
        for n in value.walk():
            if n.kind == "binop" and n.op == "+" and len(n.children) == 2:
                for i, side in enumerate(n.children):
                    other = n.children[1 - i]
                    if roots_in(side, [x]) and not roots_in(other, [x]) and any(
                            m.kind in ("index", "ref") and m.op not in f.floats for m in other.walk()) and (
                            roots_in(other, [bias]) or not roots_in(side, [bias])):
                        return True
    return False


def _names_passed_to_calls(value: Node) -> set[str]:
    """Names passed directly as an argument of a call (`op_leaky_relu(x, slope)`): parameters of that function,
    not factors of the value."""
    return {strip(c).op for n in value.walk() if n.kind == "call" for c in n.children if strip(c).kind == "ref"}


# Float constants each activation is written with; any other constant in an elementwise kernel changes the result
# in a way the template does not express (a leaky-ReLU slope, a clamp bound, an offset).
ACTIVATION_CONSTANTS = {"none": {1.0}, "relu": {0.0, 1.0}, "silu": {0.0, 1.0},
                        "gelu": {0.0, 0.5, 1.0, 2.0, 0.7071067811865476, 1.4142135623730951},
                        "gelu_tanh": {0.0, 0.5, 1.0, 0.7978845608028654, 0.044715, 3.0,
                                      2.0, math.pi}}      # sqrt(2 / pi) written out


def _activation(f: Features) -> str:
    if f.calls & ERF or f.calls & TANH:
        return "gelu_tanh" if f.calls & TANH else "gelu"
    if f.calls & EXP:
        return "silu"
    if f.calls & MAX or (f.conds and all(_is_relu(c, f.float_values) for c in f.conds)):
        return "relu"
    return "none"


def _is_relu(cond: Node, floats: dict[int, float]) -> bool:
    """`v > 0 ? v : 0` (or `v < 0 ? 0 : v`)."""
    test, a, b = (strip(c) for c in cond.children)
    if test.kind != "binop" or test.op not in (">", ">=", "<", "<=") or len(test.children) != 2:
        return False
    kept, dropped = (a, b) if test.op in (">", ">=") else (b, a)
    var, bound = strip(test.children[0]), strip(test.children[1])
    return _is_zero(dropped, floats) and _is_zero(bound, floats) and same_expr(kept, var)


def _is_zero(node: Node, floats: dict[int, float]) -> bool:
    return (node.kind == "int" and node.value == 0) or (node.kind == "float" and floats.get(id(node)) == 0.0)


def _foreign_constants(f: Features, activation: str) -> list[float]:
    allowed = ACTIVATION_CONSTANTS[activation]
    return sorted({v for v in f.float_values.values() if not any(abs(v - a) <= 1e-6 * max(1.0, abs(a)) for a in allowed)})
