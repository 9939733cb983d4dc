"""Air units and missions (EF 14.0-14.6, NM 31)."""
