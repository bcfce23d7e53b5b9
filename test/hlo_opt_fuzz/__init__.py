"""A mutation fuzzer for hlo-opt: lit inputs are mutated and run through
hlo-opt's pipelines; any signal, abort, LLVM fatal error or timeout is a
finding. `make fuzz-hlo-opt` runs campaigns; test/python/test_hlo_opt_fuzz.py
runs a fixed-seed budget in `make test`."""
