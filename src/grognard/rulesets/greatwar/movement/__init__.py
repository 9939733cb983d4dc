"""Movement (OT 6), its steps, reserve commitment (OT 6C), overruns (OT 6F), rail (OT 7A), rivers
(OT 7C), stacking (OT 8) and water-only units (OT 14B2).
"""
