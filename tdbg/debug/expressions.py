"""The expression bridge's service: C expressions (``tdbg.expr``) evaluated in the current
core's selected frame, through one ``SessionContext`` per tile selection (it keeps the value
history), breakpoint conditions, and the addresses expressions designate."""

from __future__ import annotations

from collections.abc import Callable

from tdbg.debug.memory import check_range
from tdbg.debug.target import Target
from tdbg.debug.breakpoints import Breakpoint
from tdbg.errors import SessionError
from tdbg import expr
from tdbg.expr import EvalContext, ExprError, Value
from tdbg.expr.values import value_as_address


class Expressions:
    """Evaluates in the context ``make_context`` builds (``tdbg.debug.expr_context``)."""

    def __init__(self, target: Target, make_context: Callable[[], EvalContext]) -> None:
        self.t = target
        self._make_context = make_context
        self._context: EvalContext | None = None
        self._selection = target.selections

    def expression_context(self) -> EvalContext:
        """The context ``tdbg.expr`` evaluates in (one per selected tile: it keeps the history)."""
        if self._context is None or self._selection != self.t.selections:
            self._context, self._selection = self._make_context(), self.t.selections
        return self._context

    def evaluate(self, text: str) -> Value:
        """Evaluate a C expression (``tdbg.expr``) in the current core's innermost frame."""
        return expr.evaluate(text, self.expression_context())

    def condition_true(self, bp: Breakpoint) -> bool:
        """Evaluate a breakpoint condition (an error counts as true, so the user sees it)."""
        try:
            return bool(expr.evaluate(bp.condition, self.expression_context()).raw)
        except (ExprError, SessionError):
            return True

    def address_of(self, expression: str) -> int:
        """The address an expression designates, as GDB's ``*EXPR`` location and ``x`` take
        it (an array's or function's own address, a pointer's or integer's value)."""
        try:
            address = value_as_address(self.evaluate(expression))
        except ExprError as exc:
            raise SessionError(str(exc)) from None
        check_range(address, 1)
        return address
