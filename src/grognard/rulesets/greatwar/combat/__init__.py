"""Combat (OT 9-10), artillery and support (OT 12), contested hexes and sieges (OT 9J, 15G)."""
