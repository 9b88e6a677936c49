"""The event's stores: each implements storage.Storage (tournament/storage.py) and nothing more.

A store imports only the domain's types and interface (model, errors, chain, rows, storage,
and writer's `cooperative`), never the rules (a contract in pyproject.toml, tested by
tests/test_layers.py); stores never import one another.
"""
