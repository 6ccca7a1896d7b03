"""The methods' own questions, one folder per algorithm; ``method_runs`` and ``evaluate_policies`` are shared."""
