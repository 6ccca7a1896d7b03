"""Generic Lightning callbacks of coevo-core (each registered in ``registry.callbacks``)."""
