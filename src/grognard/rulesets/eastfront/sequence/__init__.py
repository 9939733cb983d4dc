"""The sequence of play as explicit lists of steps (EF 3.0)."""
