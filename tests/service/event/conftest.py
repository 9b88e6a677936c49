"""The event's HTTP tests share the storage tests' fixtures (tests/tournament/conftest.py): an event
file in a temporary folder, a clock moved by hand, a well-formed entry."""

from tests.tournament.conftest import PASSWORD, Clock, clock, db, entry, event_path  # noqa: F401 - shared fixtures
