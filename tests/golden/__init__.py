"""Golden games (see :mod:`tests.golden.golden`)."""
