"""Exact objects: Limit Transformers, C-RASP programs, realizing networks, tasks and samplers."""
