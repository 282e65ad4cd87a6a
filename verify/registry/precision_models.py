"""Claims about the finite-precision softmax models implemented in constructions.limit_transformer.precision."""

from verify.claims import register

register("huang2024:app-d2", "Appendix D.2",
         "Finite precision: logits rounded to p fractional bits, then exp(log n * a) = n^a rounded to p fractional "
         "bits, then normalized.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_limit_transformer_definitions.py::test_exact_weights_and_rounding_primitives (exact ties at "
                  "chosen instances, ties to even; the paper does not name a tie rule: ties to even is our "
                  "convention, docs/limit_transformer.md)",
         leaves_out="chosen tie instances of the exact rounding primitives; ties to even is our convention")
