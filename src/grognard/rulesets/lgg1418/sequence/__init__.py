"""The turn: the sequence of play and the naval phase hook (rule 3-C)."""
