"""Skills: the prompt the policy writes them from, parsing and validation, categories, the static library."""
