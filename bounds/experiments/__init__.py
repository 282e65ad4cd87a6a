"""The experiments: training runs of the papers' tasks and what is measured on them.

This sub-package uses the theorem (:mod:`bounds`) and the certificate (:mod:`bounds.certify`); neither of those
imports it (``tests/test_architecture.py``).  It holds

* :mod:`bounds.experiments.training`: the shared training engine (models, batched loop, sweeps and executors,
  presets, reports, conversion of run records into summaries);
* one module per paper's experiment, each defining ``main(argv) -> int`` and dispatched by
  ``python -m bounds.experiments.reproduce <paper>``: :mod:`~bounds.experiments.ahuja2024` (Ahuja & Mansouri
  Tables 1-3; its networks and run function in :mod:`~bounds.experiments.ahuja2024_networks`),
  :mod:`~bounds.experiments.huang2024` (Huang et al. Figure 1), :mod:`~bounds.experiments.golowich2025`
  (Golowich et al. sec. 5), with their shared options in :mod:`~bounds.experiments.options`;
* :mod:`bounds.experiments.measure`: Izzo et al.'s Figures 1-3 (measured thresholds, ``python -m
  bounds.experiments.measure``);
* :mod:`bounds.experiments.figures`: every committed figure redrawn from its results file;
* :mod:`bounds.experiments.identification`: identification measured on trained networks.
"""
