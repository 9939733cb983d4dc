"""Supply and isolation (rules 9, 22)."""
