"""Specific exceptions of the C-RASP package (each message names the offending operation)."""


class CraspError(ValueError):
    """Base class of every error raised by :mod:`constructions.crasp`."""


class CraspTypeError(CraspError, TypeError):
    """An operand has the wrong sort (a Count where a Boolean is needed, or vice versa)."""


class NotPeriodicError(CraspError):
    """A positional relation phi given to ``Positional`` is not periodic (Definition 8, C-RASP[periodic])."""


class NotLocalError(CraspError):
    """A binary relation psi given to ``Count`` is not local and translation-invariant."""


class ProgramError(CraspError):
    """A program is malformed: no definitions, duplicate names, output not Boolean, bad alphabet."""


class ParseError(CraspError):
    """A program text is malformed; carries 1-based ``line`` and ``column``."""

    def __init__(self, message: str, line: int, column: int):
        self.line = line
        self.column = column
        self.bare_message = message
        super().__init__(f"line {line}, column {column}: {message}")


class InputError(CraspError):
    """An input string is empty (outside Definition 8) or uses a symbol outside the alphabet."""


class UnknownProgramError(CraspError):
    """No benchmark program of that name."""
