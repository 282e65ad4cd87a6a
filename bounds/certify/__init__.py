"""The certificate: is a one-layer model within delta + eps of another (or of its task) at EVERY length?

Izzo et al. Theorem 4.1 asks for agreement up to a training length; this sub-package decides, for one-layer
models, what agreement holds at every length (docs/certify.md).  It uses the theorem (:mod:`bounds`: margins,
class models, float enclosures) and never the experiments.

* :mod:`bounds.certify.cli`: ``python -m bounds.certify`` (pairs, models against their task, trained run folders);
* :mod:`bounds.certify.search`: exact maxima per length, then interval branch-and-bound over every longer length;
* :mod:`bounds.certify.class_softmax`: the one-layer model as a function of its class counts, enclosed;
* :mod:`bounds.certify.weight_ratios`: the attention weights' ratios bounded over every length;
* :mod:`bounds.certify.runs`: every trained seed of a sweep folder certified, one record per seed;
* :mod:`bounds.certify.trained`: a trained run record -> an exact Limit Transformer.
"""
