"""The event's HTTP tests share the storage tests' fixtures (tests/tournament/conftest.py): an event
file in a temporary folder, a clock moved by hand, a well-formed entry."""

from tests.tournament.conftest import PASSWORD, Clock, clock, db, entry, event_path  # noqa: F401 - shared fixtures


def keyed(body: dict) -> dict:
    """A challenge's or a batch's body with a new idempotency key for it, or for each play: in an
    event every recorded verdict needs one (a key already given is kept)."""
    import uuid

    if "plays" in body:
        return {**body, "plays": [{"idempotency_key": uuid.uuid4().hex, **play} for play in body["plays"]]}
    return {"idempotency_key": uuid.uuid4().hex, **body}
