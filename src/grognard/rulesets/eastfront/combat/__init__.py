"""Ground combat: Declared Attacks, artillery support, retreats (EF 12)."""
