"""C-RASP (Huang et al. Definition 8): typed AST and DSL, text syntax, exact interpreter, benchmark programs.

See :mod:`constructions.crasp.ast` for the node classes (the compiler codes against them) and
``docs/crasp.md`` for the language, the text syntax and the command-line tool.
"""

from constructions.crasp.ast import *  # noqa: F401,F403
from constructions.crasp.errors import (  # noqa: F401
    CraspError,
    CraspTypeError,
    InputError,
    NotLocalError,
    NotPeriodicError,
    ParseError,
    ProgramError,
    UnknownProgramError,
)
