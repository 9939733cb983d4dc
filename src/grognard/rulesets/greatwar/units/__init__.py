"""Units and their nations (OT 3A, 3B), the unit-type catalogue, Rule 14 special units, leaders and
Army HQs (OT 14M, 14P), transport units (OT 14O) and breakdowns (OT 15F).
"""
