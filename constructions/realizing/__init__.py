"""The networks that realize Ahuja & Mansouri's hypothesis classes (sec. 4), with exact rational parameters.

One module per architecture: :mod:`.deepset`, :mod:`.transformer`, :mod:`.ssm`, :mod:`.rnn`; their parts:
:mod:`.mlp` (ReLU MLPs and their surgery), :mod:`.sequence` (the causal interface), :mod:`.exact`
(rational vectors and matrices), :mod:`.errors`; :mod:`.attention_heads` (dot-product heads: several heads,
relative lags).  :mod:`.torch_nets` holds the torch twin of each class, built from the same parameters, and
the App. B instances the experiments train (it is the only module here that imports torch; it is not
imported by this package).  Used by ``counterexamples/capacity.py`` and ``bounds/experiments/ahuja2024.py``.
"""

from constructions.realizing.deepset import DeepSet
from constructions.realizing.errors import RealizingError
from constructions.realizing.mlp import MLP
from constructions.realizing.rnn import RNN
from constructions.realizing.sequence import SequenceModel
from constructions.realizing.ssm import LinearSSM
from constructions.realizing.transformer import AttentionTransformer

__all__ = ["MLP", "RNN", "AttentionTransformer", "DeepSet", "LinearSSM", "RealizingError", "SequenceModel"]
