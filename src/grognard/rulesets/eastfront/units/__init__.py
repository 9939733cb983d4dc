"""Units: kinds, values, step losses and stacking (EF 4.0, EF 4.4, EF 5.0)."""
