"""The game server: persistence, sides and secret tokens, REST + WebSocket API, the browser client.

* :mod:`grognard.server.db` - SQLite storage with versioned migrations
* :mod:`grognard.server.service` - games rebuilt by replay, tokens, views per side, standing orders
* :mod:`grognard.server.app` - the FastAPI application (``create_app``)
* :mod:`grognard.server.export` - the board as JSON for the client
* :mod:`grognard.server.hooks` - optional rule-system hooks (``reachable``, ``preview``)
* :mod:`grognard.server.cli` - the ``serve`` verb
"""
