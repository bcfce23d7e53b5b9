"""How much of JAX's public API numlir has: the report behind docs/api-coverage.md.

``python -m api_coverage`` (from test/, or with test/ on PYTHONPATH) prints the
table; ``--write`` regenerates docs/api-coverage.md. test_api_coverage.py
fails when a name JAX has is missing from numlir and is listed neither as a
deliberate omission (omissions.py, each with its reason) nor as not done yet
(not_yet.txt), and when either list names something numlir now has.
"""
