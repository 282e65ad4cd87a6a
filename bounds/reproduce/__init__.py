"""``python -m bounds.reproduce <paper> ...``: reproductions of the papers' experiments, one module per paper.

Each module ``bounds.reproduce.<paper>`` defines ``main(argv) -> int``; :mod:`bounds.reproduce.__main__`
finds the modules of this package and dispatches to them (imported lazily, so one paper's dependencies are
never loaded for another).
"""
