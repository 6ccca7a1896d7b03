"""EVOHEIR: its commit rule and judge, audited on fresh items."""
