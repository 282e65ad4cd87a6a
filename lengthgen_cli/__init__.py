"""The command-line convention shared by every ``lengthgen`` tool (README, "Command-line tools").

* :class:`Parser`: usage errors are one line ``PROG: error: MESSAGE`` on stderr with exit status 2, never a
  usage dump or a traceback; no option abbreviations; :func:`usage_errors` turns library errors raised
  after parsing into the same line; :func:`command` makes ``main(argv)`` return the exit status.
* :mod:`lengthgen_cli.types`: exact rationals (``1/100``, ``0.01``, ``1e-2``), finite reals and integers with
  a named upper limit (sizes beyond what the machine can do are refused before any work).
* :mod:`lengthgen_cli.options`: the shared option names (``--period`` for the period Delta, ``--delta`` only for
  the agreement delta, ``--eps``, ``--precision-bits``, ``--json``) and their help texts.
* :mod:`lengthgen_cli.output`: the one output writer (``check_target`` before work, ``write_file`` /
  ``write_atomic`` / ``write_text``: atomic, confined to the folder named, never over a device or a file of
  another format) and ``--out FILE [--resume]`` with the same semantics in every tool.
* :mod:`lengthgen_cli.deadline`: a wall-clock limit on a computation that a legal request can make unbounded.
* :mod:`lengthgen_cli.inputs`: input paths that are not regular files (directories, FIFOs, devices) refused.
* :mod:`lengthgen_cli.progress`: a tqdm progress bar on stderr (only on a terminal).
* :mod:`lengthgen_cli.process`: settings of a tool's own process (freed memory reused, one BLAS thread).
* :mod:`lengthgen_cli.sweep`: many independent jobs on local processes or Ray (one atomic record per job,
  resumable), and the ``--executor`` / ``--workers`` / ``--ray-address`` options.

This package imports nothing else of the project, so definitions (``constructions``) and checks may all use it.
"""

from lengthgen_cli.inputs import loads_json, read_json, require_regular_file
from lengthgen_cli.options import (
    add_delta_option,
    add_eps_option,
    add_json_option,
    add_period_option,
    add_precision_bits_option,
    options_without_help,
)
from lengthgen_cli.output import JsonlOutput, add_output_options, check_output
from lengthgen_cli.parser import (
    Parser,
    UsageError,
    command,
    given_options,
    program_name,
    refuse_unused,
    usage_errors,
)
from lengthgen_cli.progress import progress
from lengthgen_cli.types import bounded_int, finite_real, int_list, rational

__all__ = [
    "JsonlOutput", "Parser", "UsageError", "add_delta_option", "add_eps_option", "add_json_option",
    "add_output_options", "add_period_option", "add_precision_bits_option", "bounded_int", "check_output", "command",
    "finite_real", "given_options", "loads_json", "read_json", "int_list", "options_without_help", "program_name", "progress", "rational",
    "refuse_unused", "require_regular_file", "usage_errors",
]
