"""Specific exceptions of :mod:`constructions.tasks` (each message says what to fix)."""


class TaskError(ValueError):
    """A task was given bad parameters (period, index, omega, error target) or a string outside its alphabet."""
