"""Izzo et al. sec. 5 tasks (ModPTask, SimpleTask): exact targets, App. B samplers, App. A.2 constructions."""

from constructions.tasks.errors import TaskError  # noqa: F401
from constructions.tasks.modp import ModPTask  # noqa: F401
from constructions.tasks.simple import SimpleTask  # noqa: F401
from constructions.tasks.sine_mlp import SineMLP  # noqa: F401
