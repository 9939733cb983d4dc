"""General Supply, Attack Supply and Soviet Surrender (EF 11.0, EF 11.5, EF 20.0)."""
