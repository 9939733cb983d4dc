"""The map: geography (OT 3E), terrain and the TEC (OT 3E1, 7B, 15A), weather (OT 3E6) and zones of
control and ownership (OT 5).
"""
