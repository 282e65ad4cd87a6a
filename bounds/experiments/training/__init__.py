"""Training runs for measured length-generalization thresholds (Izzo et al. sec. 5, App. B).

``data`` (numpy only) turns the seeded task samplers of :mod:`constructions.tasks` into model batches;
``model`` and ``train`` import torch lazily, inside their functions, so importing this package (and
``python -m bounds.estimate``) never needs torch.
"""
