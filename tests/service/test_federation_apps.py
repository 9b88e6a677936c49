"""The dispatcher of a service of every event keeps at most MAX_APPS events' apps per process,
closing the one asked least lately that answers nothing (service/federation.py); with every app
kept answering, a new event's request is 503 and nothing is closed. WSGI apps of the test's own
stand in for the events' (no database: the ids are given as known)."""

from __future__ import annotations

import json

from werkzeug.test import EnvironBuilder

from service import federation
from service.federation import MAX_APPS, Events


class Apps:
    """Events' apps that answer a body in two parts (the request counts as answering until the
    server closes it), and the apps closed."""

    def __init__(self):
        self.closed: list[str] = []

    def build(self, event_id: str):
        def app(environ, start_response):
            start_response("200 OK", [("Content-Type", "text/plain")])
            return iter([b"event ", event_id.encode()])

        app.event_id = event_id
        return app

    def close(self, app) -> None:
        self.closed.append(app.event_id)


def dispatcher(ids):
    apps = Apps()
    events = Events(lambda environ, start: [b"root"], "postgresql:///x", apps.build, apps.close, clock=lambda: 0.0)
    events.known, events.looked = frozenset(ids), 0.0  # no look at a database within LOOK_AGAIN
    return events, apps


def ask(events, event_id):
    """(status, the response not read yet): the request answering until it is closed."""
    said = []
    environ = EnvironBuilder(path=f"/e/{event_id}/readyz").get_environ()
    response = events(environ, lambda status, headers, exc_info=None: said.append(status))
    return said[0], response


def test_the_event_asked_least_lately_and_answering_nothing_is_closed_for_a_new_one():
    ids = [f"e{n}" for n in range(MAX_APPS + 1)]
    events, apps = dispatcher(ids)
    for event_id in ids[:MAX_APPS]:
        status, response = ask(events, event_id)
        assert status == "200 OK" and b"".join(response) == f"event {event_id}".encode()
        response.close()
    ask(events, "e0")[1].close()  # e0 asked again: e1 is now the one asked least lately
    status, response = ask(events, ids[MAX_APPS])
    response.close()
    assert status == "200 OK" and apps.closed == ["e1"]
    assert len(events.apps) == MAX_APPS and "e1" not in events.apps and "e0" in events.apps
    assert ask(events, "e1")[0] == "200 OK" and apps.closed == ["e1", "e2"]  # made again at its next request


def test_with_every_app_kept_answering_a_new_event_is_refused_and_none_is_closed():
    ids = [f"e{n}" for n in range(MAX_APPS + 1)]
    events, apps = dispatcher(ids)
    answering = [ask(events, event_id)[1] for event_id in ids[:MAX_APPS]]  # none closed: all answering
    status, response = ask(events, ids[MAX_APPS])
    body = json.loads(b"".join(response))
    assert status.startswith("503") and body["type"].endswith("record-unavailable") and apps.closed == []
    answering[5].close()  # e5's answer sent: its app may go
    assert ask(events, ids[MAX_APPS])[0] == "200 OK" and apps.closed == ["e5"]
    assert len(events.apps) == federation.MAX_APPS
