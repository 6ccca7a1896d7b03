"""Pieces of ``bench/hot_path_ab.py``: the default training commands, before vs after a change."""
