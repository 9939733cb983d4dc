"""Shipped scenarios (data only), one folder per rule system."""
