"""RSIPO: against its baselines, its skills, and household's transfer to ALFWorld."""
