"""Guard instructions that check dynamic input shapes before anything runs.

The runtime checks every input against its planned shape: exactly for a
static input, per dimension against the upper bound for a dynamic one
(Method::set_input). What the file's sizes cannot say is checked here, at
the start of the method, with upstream's primitive operators and
`aten::_assert_scalar` (whose message names the input and dimension):

  * a static dimension of a dynamic input has its exported size
    (x: [b, 3, 32, 32] must keep 3, 32, 32);
  * a dynamic dimension is at least its lower bound (Dim(min=...));
  * dimensions exported as the same Dim are equal (x: [b, 4], y: [b, 4]),
    and dimensions exported as an expression of Dims (2 * b, b + 1) equal
    that expression.

Programs with static inputs only get no guards. `aten::_assert_scalar` is a
torchedge kernel; upstream's runtime lacks it, so a program meant for
upstream is exported with `to_pte(input_guards=False)`.
"""

from __future__ import annotations

from typing import Callable, Optional, Protocol

import sympy
import torch
import torch.fx
from torch.export import ExportedProgram
from torch.utils._sympy.functions import FloorDiv

from torchedge.emit.tensor_values import is_dynamic
from torchedge.emit.value_table import ValueTable
from torchedge.serialize import schema as s

SYM_SIZE = ("aten::sym_size", "int")
ASSERT = ("aten::_assert_scalar", "")
_BINARY = {
    sympy.Add: ("executorch_prim::add", "Scalar"),
    sympy.Mul: ("executorch_prim::mul", "Scalar"),
    FloorDiv: ("executorch_prim::floordiv", "Scalar"),
}


class GuardEmitter(Protocol):
    """What the guards need from the method emitter (MethodEmitter provides
    it; this module does not import it)."""

    program: ExportedProgram  # for its range_constraints
    values: ValueTable

    def value_of(self, node: torch.fx.Node) -> int: ...

    def kernel_call(self, kernel: tuple[str, str], args: list[int],
                    node: Optional[torch.fx.Node]) -> None: ...


class _Guards:
    def __init__(self, emitter: GuardEmitter, anchor: torch.fx.Node) -> None:
        self.em = emitter
        self.anchor = anchor  # the node whose source line the guards report
        self.known: dict[sympy.Symbol, tuple[int, str]] = {}  # symbol -> (size value, where)

    def size_of(self, tensor: int, dim: int, bound: int) -> int:
        value = self.em.values.add(s.Int(bound))
        self.em.kernel_call(SYM_SIZE, [tensor, self.em.values.int(dim), value], self.anchor)
        return value

    def check(self, kernel: str, a: int, b: int, message: str) -> None:
        holds = self.em.values.add(s.Bool(False))
        self.em.kernel_call((kernel, "Scalar"), [a, b, holds], self.anchor)
        self.em.kernel_call(ASSERT, [holds, self.em.values.string(message)], self.anchor)

    def expression(self, expr: sympy.Expr) -> Optional[int]:
        """The value of `expr` over known symbols, or None if it cannot be built."""
        if expr.is_Integer:
            return self.em.values.int(int(expr))
        if isinstance(expr, sympy.Symbol):
            return self.known[expr][0] if expr in self.known else None
        kernel = next((k for t, k in _BINARY.items() if isinstance(expr, t)), None)
        parts = [self.expression(a) for a in expr.args]
        if kernel is None or any(p is None for p in parts) or len(parts) < 2:
            return None
        value = parts[0]
        for part in parts[1:]:
            result = self.em.values.add(s.Int(0))
            self.em.kernel_call(kernel, [value, part, result], self.anchor)
            value = result
        return value


def _described(expr: sympy.Expr, known: dict) -> str:
    names = {sym: where for sym, (_, where) in known.items()}
    return str(expr.subs({sym: sympy.Symbol(f"({w})") for sym, w in names.items()}))


def emit_input_guards(emitter: GuardEmitter, inputs: list[torch.fx.Node]) -> None:
    """Emits the guards of every dynamic tensor input (see the module docstring)."""
    if not inputs:
        return
    guards = _Guards(emitter, inputs[0])
    pending: list[Callable[[], None]] = []
    for position, node in enumerate(inputs):
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor) or not is_dynamic(value):
            continue
        tensor = emitter.value_of(node)
        for dim, size in enumerate(value.shape):
            where = f"input {position} ('{node.name}') dimension {dim}"
            pending.append(_guard_dim(guards, tensor, dim, size, where))
    plain = [g for g in pending if getattr(g, "plain", False)]
    for guard in plain + [g for g in pending if not getattr(g, "plain", False)]:
        guard()


def _guard_dim(guards: _Guards, tensor: int, dim: int, size, where: str) -> Callable[[], None]:
    static = size if isinstance(size, int) else size.node.maybe_as_int()
    if static is not None:
        def guard_static() -> None:
            got = guards.size_of(tensor, dim, int(static))
            guards.check("executorch_prim::eq", got, guards.em.values.int(int(static)),
                         f"{where} must be {static} (it was exported with that static size)")
        return guard_static
    expr = size.node.expr
    bounds = size.node.shape_env.bound_sympy(expr)
    upper = int(bounds.upper) if bounds.upper.is_finite else 0

    def guard_symbolic() -> None:
        got = guards.size_of(tensor, dim, upper)
        if isinstance(expr, sympy.Symbol) and expr not in guards.known:
            guards.known[expr] = (got, where)
            # The user's range (the shape environment's own lower bound is
            # at least 2, since export treats sizes 0 and 1 specially).
            declared = guards.em.program.range_constraints.get(expr, bounds)
            lower = int(declared.lower) if declared.lower.is_finite else 0
            if lower > 0:
                guards.check("executorch_prim::ge", got, guards.em.values.int(lower),
                             f"{where} must be at least {lower} (the minimum of its dynamic "
                             "dimension)")
            return
        if isinstance(expr, sympy.Symbol):
            first = guards.known[expr][1]
            guards.check("executorch_prim::eq", got, guards.known[expr][0],
                         f"{where} must equal {first} (they were exported as the same "
                         "dynamic dimension)")
            return
        wanted = guards.expression(expr)
        if wanted is not None:
            guards.check("executorch_prim::eq", got, wanted,
                         f"{where} must equal {_described(expr, guards.known)}")
    guard_symbolic.plain = isinstance(expr, sympy.Symbol)  # type: ignore[attr-defined]
    return guard_symbolic
