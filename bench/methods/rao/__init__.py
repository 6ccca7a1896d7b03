"""RAO: recursion at scale, long context and textcraft."""
