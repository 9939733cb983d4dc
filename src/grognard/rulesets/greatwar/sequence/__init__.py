"""The sequence of play (OT 4) and victory."""
