"""Supply (OT 11) and isolation (OT 3G)."""
