"""Logistics (OT 11C, 11H), engineering (OT 13), replacements and reinforcements (OT 16)."""
