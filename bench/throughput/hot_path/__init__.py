"""Pieces of ``bench/throughput/hot_path_ab.py``: the default training commands, before vs after a change."""
