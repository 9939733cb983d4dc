"""grognard: a rules-enforcing engine for hex-and-counter board wargames."""

__version__ = "0.1.0"
