"""coevo-evoheir: HEIRCOMMIT (commit an update only on fresh paired evidence) and EVOHEIR rounds."""

__version__ = "0.1.0"
