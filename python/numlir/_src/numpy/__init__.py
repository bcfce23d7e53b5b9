"""Implementation of numlir.numpy (NumPy's API with JAX's semantics)."""
