"""numlir.random internals: threefry2x32 keys (prng.py), the key API (keys.py), samplers (distributions.py)."""
