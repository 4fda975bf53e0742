"""The errors ckpt_torch raises."""

__all__ = ["OverBudget", "PlanError", "PlanMismatch"]


class PlanError(Exception):
    """The plan cannot be made, read or applied; the message says why."""


class PlanMismatch(PlanError):
    """The module's op calls differ from those the plan was made for."""


class OverBudget(PlanError):
    """No plan fits the budget; `lowest` is the lowest peak one reached."""

    def __init__(self, message: str, lowest: int):
        super().__init__(message)
        self.lowest = lowest
