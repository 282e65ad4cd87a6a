"""Figures that carry their data: what a matplotlib figure plots, as arrays, embedded in the files it is saved to.

A figure under ``docs/results/`` is drawn from a committed JSON summary (``python -m bounds.experiments.figures``).  So that
a figure can be checked against its JSON without comparing pixels, :func:`save` writes, next to the pixels, the
arrays the figure plots (:func:`plotted`: every line's x and y, every scatter's points, every band's and bar's
vertices, every text with its position, titles, axis labels and fixed tick labels) and the path of the JSON it
was drawn from: in the PNG as a text chunk ``lengthgen-figure``, in the SVG as its ``dc:description``.
:func:`embedded` reads them back, :func:`differences` compares two such records.  A stale figure (the JSON
changed, the figure was not redrawn) or an edited one then differs from the figure the plotting code draws
from the JSON today; ``python -m bounds.experiments.figures --check`` and ``tests/experiments/test_figures.py`` report it.

Only matplotlib and Pillow (a matplotlib dependency) are used; they are imported inside the functions.
"""

from __future__ import annotations

import json
import math

KEY = "lengthgen-figure"
RTOL = 1e-9  # plotted floats come from JSON floats; they agree exactly unless the data changed


def _num(v):
    v = float(v)
    return None if math.isnan(v) else v


def _arr(a) -> list:
    import numpy as np

    a = np.ma.filled(np.ma.asarray(a, dtype=float), np.nan)
    return [[_num(v) for v in row] for row in a] if a.ndim == 2 else [_num(v) for v in a.ravel()]


def _fixed_ticks(axis) -> list | None:
    from matplotlib.ticker import FixedFormatter

    fmt = axis.get_major_formatter()
    return list(fmt.seq) if isinstance(fmt, FixedFormatter) else None


def plotted(fig) -> dict:
    """The data a figure shows, per axes: lines (label, x, y), collections (scatter offsets, band and error-bar
    vertices), bars and other patches (x, y, width, height), texts (x, y, string), title, axis labels and scales,
    fixed tick labels; and the figure's title.  Plain JSON (NaN as null)."""
    from matplotlib.patches import Rectangle

    axes = []
    for ax in fig.get_axes():
        item = {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
                "lines": [{"label": ln.get_label(), "x": _arr(ln.get_xdata()), "y": _arr(ln.get_ydata())}
                          for ln in ax.get_lines()],
                "collections": [{"label": c.get_label(), "offsets": _arr(c.get_offsets()),
                                 "paths": [_arr(p.vertices) for p in c.get_paths()]}
                                for c in ax.collections],
                "patches": [[_num(p.get_x()), _num(p.get_y()), _num(p.get_width()), _num(p.get_height())]
                            for p in ax.patches if isinstance(p, Rectangle)],
                "texts": [[_num(t.get_position()[0]), _num(t.get_position()[1]), t.get_text()] for t in ax.texts]}
        for name, axis in (("xticks", ax.xaxis), ("yticks", ax.yaxis)):
            ticks = _fixed_ticks(axis)
            if ticks is not None:
                item[name] = ticks
        axes.append(item)
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    return {"suptitle": title, "axes": axes}


def record(fig, source: str) -> dict:
    """What :func:`save` embeds: the JSON the figure was drawn from (a path relative to the figure's results
    folder, '/'-separated) and :func:`plotted`."""
    return {"source": source, "data": plotted(fig)}


def save(fig, stem: str, source: str, dpi: int = 120, within: str | None = None) -> list[str]:
    """Write ``stem.png`` and ``stem.svg`` with :func:`record` embedded (through the one output writer,
    :func:`lengthgen_cli.output.write_file`: atomic, confined to the folder ``within``, never over a file that
    is not a regular file); close the figure; return the paths.  SVG ids and dates are fixed, so redrawing
    unchanged data gives the same SVG."""
    import matplotlib.pyplot as plt

    from lengthgen_cli.output import check_target, write_file

    text = json.dumps(record(fig, source), sort_keys=True, separators=(",", ":"))
    paths = [f"{stem}.png", f"{stem}.svg"]
    try:
        for path in paths:  # both refused before either is written
            check_target(path, what="figure", within=within, make_folder=True)
        fig.tight_layout()
        with plt.rc_context({"svg.hashsalt": "lengthgen"}):
            write_file(paths[0], lambda fh: fig.savefig(fh, format="png", dpi=dpi, metadata={KEY: text}),
                       binary=True, within=within, make_folder=True, what="figure")
            write_file(paths[1], lambda fh: fig.savefig(fh, format="svg",
                                                        metadata={"Date": None, "Description": text}),
                       binary=True, within=within, make_folder=True, what="figure")
    finally:
        plt.close(fig)
    return paths


def embedded(path: str) -> dict | None:
    """The record embedded in a PNG or SVG written by :func:`save` (None if it has none)."""
    if path.endswith(".png"):
        from PIL import Image

        with Image.open(path) as im:
            text = im.text.get(KEY) if hasattr(im, "text") else None
    elif path.endswith(".svg"):
        import xml.etree.ElementTree as ET

        node = ET.parse(path).getroot().find(".//{http://purl.org/dc/elements/1.1/}description")
        text = node.text if node is not None else None
    else:
        raise ValueError(f"not a PNG or SVG figure: {path}")
    if not text:
        return None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None


def differences(a, b, where: str = "", limit: int = 5) -> list[str]:
    """Where two plotted records differ (floats to :data:`RTOL`), at most ``limit`` places."""
    out: list[str] = []

    def walk(x, y, at):
        if len(out) >= limit:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if k not in x or k not in y:
                    out.append(f"{at}/{k}: only in {'the figure' if k in x else 'the data'}")
                else:
                    walk(x[k], y[k], f"{at}/{k}")
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                out.append(f"{at}: {len(x)} items in the figure, {len(y)} from the data")
                return
            for i, (u, v) in enumerate(zip(x, y, strict=True)):
                walk(u, v, f"{at}[{i}]")
        elif isinstance(x, float | int) and isinstance(y, float | int) and not isinstance(x, bool):
            if not math.isclose(x, y, rel_tol=RTOL, abs_tol=1e-300):
                out.append(f"{at}: {x!r} in the figure, {y!r} from the data")
        elif x != y:
            out.append(f"{at}: {x!r} in the figure, {y!r} from the data")

    walk(a, b, where)
    return out
