"""coevo's benchmarks, one folder per question (bench/README.md is the index).

Run each script as a module from the repository root, in the venv its docstring names::

    .venv/bin/python -m bench.throughput.rollout_throughput --help

Shared pieces are modules of this package (``bench.records``, ``bench.methods.method_runs``, ``bench.peer``):
no script changes ``sys.path``.
"""
