"""The errors ckpt_torch raises."""

__all__ = ["PlanError", "PlanMismatch"]


class PlanError(Exception):
    """The plan cannot be made, read or applied; the message says why."""


class PlanMismatch(PlanError):
    """The module's op calls differ from those the plan was made for."""
