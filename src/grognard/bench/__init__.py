"""Benchmarks shipped with the engine (run with ``grognard bench``)."""
