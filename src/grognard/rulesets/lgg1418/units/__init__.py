"""Counters, doctrine, fog of war and the removal of units (rules 2, 4, 36 data, 5-H)."""
