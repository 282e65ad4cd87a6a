"""The one error type of the realizing networks."""


class RealizingError(ValueError):
    """A network is malformed: ragged or mismatched shapes, an unknown activation or pooling, a non-number."""
