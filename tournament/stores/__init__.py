"""The event's stores: each implements storage.Storage (tournament/storage.py) and nothing more.

A store imports only the domain's types and interface (model, entry, integrity, stamps, errors,
chain, rows, storage, cooperative, and offpath: the one task at a time off the request path with
which both verify the record), never the rules (a contract in pyproject.toml, tested by
tests/test_layers.py); stores never import one another.
"""
