"""Experiments of the papers, as run functions of the shared training engine (:mod:`bounds.training`).

One module per paper; each defines its data, its run function (``run_one(**kwargs) -> dict``, executed by
:func:`bounds.training.executor.run_specs`) and its presets.  The command lines are in :mod:`bounds.reproduce`.
"""
