"""Ground movement, reaction movement and reinforcements (EF 7.0, EF 7.5, EF 17.0)."""
