"""``python -m bounds.experiments.figures``: every figure under ``docs/results`` redrawn from the committed JSON, or checked.

    python -m bounds.experiments.figures                 # redraw every figure from its results file (PNG + SVG)
    python -m bounds.experiments.figures --check         # redraw in memory and compare with the committed figures
    python -m bounds.experiments.figures --dir DIR [--json]

Which results file draws which figures (:data:`RULES`, by file name):

* ``izzo2025-{modp,simple}-<preset>.json`` (``python -m bounds.experiments.measure``): Izzo et al. Figures 1-3
  (:mod:`bounds.experiments.training.plots`) into ``figures/`` for the quick preset, ``figures/<preset>/`` otherwise;
* ``ahuja2024-table<k>-<name>.json`` (``python -m bounds.experiments.reproduce ahuja2024``): the test loss against length
  (and Fig. 3 for Table 1) beside the file, same stem;
* ``huang2024-fig1-<preset>.json``, ``golowich2025-{sparse-parity,scratchpad}-<preset>.json``
  (``python -m bounds.experiments.reproduce huang2024 | golowich2025``): beside the file, same stem;
* ``huang2024-certify-<preset>.json`` (``python -m bounds.experiments.huang2024_certify``): each one-layer seed's
  accuracy beside its certificate per margin, beside the file, same stem;
* ``izzo2025-certify-<name>.json`` (``python -m bounds.certify --runs ... --summary``): certified against measured
  generalization, ``figures/certify-{modp,simple}-<name>``;
* ``izzo2025-threshold-<name>.json`` (``python -m bounds.experiments.threshold``): the threshold measured by
  certificate, ``figures/threshold-<name>``.

Every figure is saved with the arrays it plots embedded (:mod:`lengthgen_cli.figure_data`).  ``--check`` draws each
figure from its JSON again without saving and compares those arrays with the ones embedded in the committed PNG
and SVG; it reports a figure that differs (stale or edited), one that is missing, one without embedded data, and
one that no results file draws, and a PNG that no Markdown page beside the results folder shows (``--pages``).
Exit status 1 if any problem is found.  Usage errors exit 2 with one line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable

from lengthgen_cli import Parser, UsageError, add_json_option, command, read_json, usage_errors
from lengthgen_cli.options import from_strict_json

DEFAULT_DIR = "docs/results"
FIGURE_EXTENSIONS = (".png", ".svg")


def _izzo(summary: dict, json_path: str) -> dict:
    from bounds.experiments.training.plots import figures

    preset = summary.get("preset", "")
    if not (isinstance(preset, str) and re.fullmatch(r"[\w-][\w.-]*", preset) and ".." not in preset):
        raise UsageError(f"{json_path}: the field 'preset' must be a preset name (letters, digits, _ - .), got "
                         f"{str(preset)[:60]!r}")
    folder = os.path.join(os.path.dirname(json_path), "figures", *([] if preset == "quick" else [preset]))
    return {os.path.join(folder, stem): fig for (_, stem), fig in figures(summary, preset).items()}


def _ahuja(summary: dict, json_path: str) -> dict:
    from bounds.experiments.ahuja2024 import figures

    stem = os.path.splitext(json_path)[0]
    return {stem + suffix: fig for suffix, fig in figures(summary["table"], summary["records"]).items()}


def _huang(summary: dict, json_path: str) -> dict:
    from bounds.experiments.huang2024 import figure

    return {os.path.splitext(json_path)[0]: figure(summary)}


def _huang_certify(summary: dict, json_path: str) -> dict:
    from bounds.experiments.huang2024_certify import figure

    return {os.path.splitext(json_path)[0]: figure(summary)}


def _golowich(summary: dict, json_path: str) -> dict:
    from bounds.experiments.golowich2025 import figure

    fig = figure(summary)
    return {} if fig is None else {os.path.splitext(json_path)[0]: fig}


def _certify(summary: dict, json_path: str) -> dict:
    from bounds.certify.runs import figures

    name = os.path.basename(json_path)[len("izzo2025-certify-"):-len(".json")]
    folder = os.path.join(os.path.dirname(json_path), "figures")
    return {os.path.join(folder, f"{stem}-{name}"): fig for stem, fig in figures(summary).items()}


def _threshold(summary: dict, json_path: str) -> dict:
    from bounds.experiments.threshold import figure

    name = os.path.basename(json_path)[len("izzo2025-threshold-"):-len(".json")]
    return {os.path.join(os.path.dirname(json_path), "figures", f"threshold-{name}"): figure(summary)}


# results file name -> the function drawing its figures: (summary, json path) -> {figure stem: Figure}
RULES: tuple[tuple[re.Pattern, Callable[[dict, str], dict], int], ...] = (
    (re.compile(r"izzo2025-(modp|simple)-[\w.-]+\.json"), _izzo, 120),
    (re.compile(r"ahuja2024-table[123]-[\w.-]+\.json"), _ahuja, 100),
    (re.compile(r"huang2024-fig1-[\w.-]+\.json"), _huang, 120),
    (re.compile(r"huang2024-certify-[\w.-]+\.json"), _huang_certify, 110),
    (re.compile(r"golowich2025-(sparse-parity|scratchpad)-[\w.-]+\.json"), _golowich, 110),
    (re.compile(r"izzo2025-certify-[\w.-]+\.json"), _certify, 110),
    (re.compile(r"izzo2025-threshold-[\w.-]+\.json"), _threshold, 110),
)


def _rule(name: str):
    return next(((draw, dpi) for pattern, draw, dpi in RULES if pattern.fullmatch(name)), None)


def results_files(folder: str) -> list[str]:
    """The results files in ``folder`` that draw figures (sorted)."""
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json") and _rule(f))


def draw(json_path: str) -> dict:
    """The figures of one results file, drawn but not saved: ``{stem: Figure}``."""
    summary = from_strict_json(read_json(json_path, "results file"))  # "inf" of strict JSON back to a float
    if not isinstance(summary, dict):
        raise UsageError(f"results file {json_path} does not hold a JSON object")
    try:
        return _rule(os.path.basename(json_path))[0](summary, json_path)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as e:
        raise UsageError(f"results file {json_path} does not have the fields its figures are drawn from "
                         f"({type(e).__name__}: {e})") from None


def regenerate(folder: str = DEFAULT_DIR) -> list[str]:
    """Redraw every figure of every results file in ``folder``; returns the paths written.  Every figure is drawn
    and its paths checked (inside ``folder``, not over a file of another kind: :func:`lengthgen_cli.output.check_target`)
    before the first is written."""
    from lengthgen_cli.figure_data import save
    from lengthgen_cli.output import check_target

    drawn = []
    for path in results_files(folder):
        dpi = _rule(os.path.basename(path))[1]
        for stem, fig in draw(path).items():
            for ext in FIGURE_EXTENSIONS:
                check_target(stem + ext, what="figure", within=folder, make_folder=True)
            drawn.append((fig, stem, os.path.basename(path), dpi))
    return [p for fig, stem, source, dpi in drawn for p in save(fig, stem, source, dpi=dpi, within=folder)]


def figure_files(folder: str) -> list[str]:
    """Every PNG and SVG under ``folder`` (recursively, sorted)."""
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(FIGURE_EXTENSIONS))


def shown_figures(pages: str) -> set[str]:
    """The figures shown by the Markdown pages in ``pages`` (``![caption](path)``, resolved from each page)."""
    shown = set()
    for name in sorted(os.listdir(pages)):
        if name.endswith(".md"):
            with open(os.path.join(pages, name), encoding="utf-8") as fh:
                text = fh.read()
            shown.update(os.path.abspath(os.path.join(pages, link))
                         for link in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text))
    return shown


def check(folder: str = DEFAULT_DIR, pages: str | None = None) -> list[str]:
    """Problems of the figures under ``folder`` against their results files (empty: all agree); with ``pages``, also
    every PNG (or its SVG twin) that no Markdown page in ``pages`` shows."""
    import matplotlib.pyplot as plt

    from lengthgen_cli.figure_data import differences, embedded, record

    problems, expected = [], set()
    for path in results_files(folder):
        source = os.path.basename(path)
        for stem, fig in draw(path).items():
            want = record(fig, source)
            plt.close(fig)
            for ext in FIGURE_EXTENSIONS:
                figure = os.path.normpath(stem + ext)
                expected.add(figure)
                if not os.path.exists(figure):
                    problems.append(f"{figure}: missing (drawn from {source})")
                    continue
                if not os.path.isfile(figure):  # a FIFO would block the read, a device never end
                    problems.append(f"{figure}: not a regular file")
                    continue
                have = embedded(figure)
                if have is None:
                    problems.append(f"{figure}: no embedded data (redraw it: python -m bounds.experiments.figures)")
                    continue
                diff = differences(have, want)
                if diff:
                    problems.append(f"{figure}: differs from {source}: " + "; ".join(diff))
    for figure in figure_files(folder):
        if os.path.normpath(figure) not in expected:
            problems.append(f"{figure}: no results file draws it")
    if pages is not None:
        shown = shown_figures(pages)
        for figure in figure_files(folder):
            stem = os.path.splitext(os.path.abspath(figure))[0]
            if figure.endswith(".png") and not {stem + ext for ext in FIGURE_EXTENSIONS} & shown:
                problems.append(f"{figure}: shown in no page of {pages}")
    return problems


def _parser() -> Parser:
    ap = Parser(module="bounds.experiments.figures", description=__doc__.split("\n\n")[0].strip("`"))
    ap.add_argument("--dir", default=DEFAULT_DIR, help=f"the results folder (default {DEFAULT_DIR})")
    ap.add_argument("--check", action="store_true",
                    help="compare the committed figures with their results files instead of redrawing them, and "
                         "report every figure that no page of --pages shows")
    ap.add_argument("--pages", default=None,
                    help="the folder of Markdown pages that must show every figure (--check; default: the folder "
                         "holding --dir)")
    add_json_option(ap, "the paths written (or the problems found) as one JSON object")
    return ap


@command
def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    a = ap.parse_args(argv)
    with usage_errors(ap):
        if not os.path.isdir(a.dir):
            raise UsageError(f"--dir {a.dir!r} is not a folder")
        if a.pages is not None and not a.check:
            raise UsageError("--pages is read only with --check")
        try:
            import matplotlib

            matplotlib.use("Agg")
        except ImportError:
            raise UsageError("figures need matplotlib: pip install 'lengthgen[train]'") from None
        if a.check:
            pages = a.pages or os.path.dirname(os.path.abspath(a.dir))
            if not os.path.isdir(pages):
                raise UsageError(f"--pages {pages!r} is not a folder")
            problems = check(a.dir, pages)
            if a.json:
                print(json.dumps({"problems": problems}))
            else:
                print("\n".join(problems + [f"{len(problems)} problem(s) in {a.dir}"]))
            return 1 if problems else 0
        paths = regenerate(a.dir)
        print(json.dumps({"written": paths}) if a.json else "\n".join(paths + [f"{len(paths)} file(s) written"]))
        return 0


if __name__ == "__main__":
    sys.exit(main())
