"""The dispatcher of a service of every event keeps at most MAX_APPS events' apps per process,
closing the one asked least lately that answers nothing (service/federation.py); with every app
kept answering, a new event's request is 503 and nothing is closed; threads asking at once (a
gthread worker's) never see an error, never get two apps of one event, and each request is counted
answering until it is closed. WSGI apps of the test's own stand in for the events' (no database:
the ids are given as known; tests/service/event/test_federation.py has the database's)."""

from __future__ import annotations

import json
import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from werkzeug.test import EnvironBuilder

from service import federation
from service.federation import MAX_APPS, Events


class Apps:
    """Events' apps that answer a body in two parts (the request counts as answering until the
    server closes it), the apps closed, and any app made while another of its event was kept, or
    closed when it was not the one kept (`twice`)."""

    def __init__(self):
        self.closed: list[str] = []
        self.live: dict[str, object] = {}
        self.twice: list[str] = []
        self._lock = threading.Lock()

    def build(self, event_id: str):
        def app(environ, start_response):
            start_response("200 OK", [("Content-Type", "text/plain")])
            return iter([b"event ", event_id.encode()])

        app.event_id = event_id
        with self._lock:
            if event_id in self.live:
                self.twice.append(event_id)
            self.live[event_id] = app
        return app

    def close(self, app) -> None:
        with self._lock:
            self.closed.append(app.event_id)
            if self.live.pop(app.event_id, None) is not app:
                self.twice.append(app.event_id)


def dispatcher(ids):
    apps = Apps()
    events = Events(lambda environ, start: [b"root"], "postgresql:///x", apps.build, apps.close, clock=lambda: 0.0)
    events.known, events.looked = frozenset(ids), 0.0  # no look at a database within LOOK_AGAIN
    return events, apps


def ask(events, event_id, heads=None):
    """(status, the response not read yet): the request answering until it is closed; its headers
    put in `heads` when given."""
    said = []
    environ = EnvironBuilder(path=f"/e/{event_id}/readyz").get_environ()
    response = events(environ, lambda status, headers, exc_info=None: said.append((status, headers)))
    if heads is not None:
        heads.update(said[0][1])
    return said[0][0], response


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
    heads = {}
    status, response = ask(events, ids[MAX_APPS], heads)
    body = json.loads(b"".join(response))
    assert status.startswith("503") and body["type"].endswith("record-unavailable") and apps.closed == []
    assert heads["Retry-After"] == "5" and body["retry_after"] == 5  # it passes as an answer is sent
    answering[5].close()  # e5's answer sent: its app may go
    assert ask(events, ids[MAX_APPS])[0] == "200 OK" and apps.closed == ["e5"]
    assert len(events.apps) == federation.MAX_APPS


@pytest.mark.slow  # a second or two of requests in threads
def test_threads_asking_at_once_get_no_error_one_app_an_event_and_are_each_counted_until_closed():
    """A gthread worker's threads: half ask the events kept (each made the one asked most lately),
    half ask events not kept, each of which closes the one idle app among MAX_APPS - 1 kept
    answering (or is 503 while another new event's request holds it). Threads switched every
    microsecond, so that any step not guarded shows (a walk through the apps kept while another
    thread reorders them was a RuntimeError, a 500)."""
    kept = [f"k{n}" for n in range(MAX_APPS - 1)]
    new = [f"n{n}" for n in range(40)]
    events, apps = dispatcher(kept + new)
    answering = [ask(events, event_id)[1] for event_id in kept]  # answering all along

    def asker(seed: int) -> list[str]:
        rng, said = random.Random(seed), []
        for _ in range(3000):
            event_id = rng.choice(kept if seed % 2 else new)
            try:
                status, response = ask(events, event_id)
                body = b"".join(response)
                response.close()
            except Exception as error:  # what a server would answer 500
                said.append(f"{event_id}: {error!r}")
                continue
            full = status.startswith("503") and json.loads(body)["type"].endswith("/record-unavailable")
            if body != f"event {event_id}".encode() and not (event_id in new and full):
                said.append(f"{event_id}: {status} {body!r}")
        return said

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(8) as pool:
            wrong = [answer for answers in pool.map(asker, range(8)) for answer in answers]
    finally:
        sys.setswitchinterval(switching)
    assert wrong == [], wrong[:5]
    assert apps.twice == [] and len(events.apps) == MAX_APPS and set(kept) <= set(events.apps)
    assert events.answering == dict.fromkeys(kept, 1)
    for response in answering:
        response.close()
    assert events.answering == {}


def test_the_root_sends_any_id_on_with_its_final_slash_a_line_break_quoted(lexicon_files):
    """/e/ID is sent on to /e/ID/ whatever the id; one holding a line break (`/e/%0A`, no event's
    id) was a 500, the Location header refusing it: it is sent on quoted, to the same 404 as any
    unknown path. The database is never asked (none answers at this URL)."""
    from service import create_app
    from tests.service.conftest import app_config

    app = create_app(app_config(lexicon_files, LEXICON_EVENT="postgresql://judge@127.0.0.1:1/lexicon"))
    client = app.test_client()
    for typed, location in (
        ("open-lleida", "/e/open-lleida/"),
        ("%0D%0ASet-Cookie:%20x", "/e/%0D%0ASet-Cookie%3A%20x/"),
        ("%0A", "/e/%0A/"),
        ("%E2%80%A8", "/e/%E2%80%A8/"),
    ):
        answer = client.get(f"/e/{typed}")
        assert (answer.status_code, answer.headers["Location"]) == (308, location), typed
        assert "Set-Cookie" not in answer.headers


def test_an_event_whose_lexicon_is_not_served_is_refused_naming_its_lexicon_not_the_database():
    """An event pinned to a list the service no longer serves (its file replaced by a new release,
    then a reload): each request to it says which list it judges with, to its director and judges,
    and not that the database does not answer nor to try again in a few seconds, which would not
    help; the file's path on the server, the operator's to know (in the log), is not said."""
    from service.registry import LexiconNotServed

    def build(event_id):
        raise LexiconNotServed(
            "LEXICON_EVENT: … add /srv/lexicons/fise-2026.lex to LEXICON_FILES",
            "this event judges with fise-2026 2026.1 (checksum 898d74732d69…), which this service does not serve",
        )

    events = Events(lambda environ, start: [b"root"], "postgresql:///x", build, lambda app: None, clock=lambda: 0.0)
    events.known, events.looked = frozenset(["liga-j1"]), 0.0
    for _ in range(2):  # the first request, and one within RETRY, which does not build again
        status, response = ask(events, "liga-j1")
        body = json.loads(b"".join(response))
        assert status.startswith("503") and body["type"].endswith("/event-lexicon-missing")
        assert body["detail"].startswith(
            "this event judges with fise-2026 2026.1 (checksum 898d74732d69…), which this service does not serve"
        )
        assert "nothing was recorded" in body["detail"]
        assert "database" not in body["detail"] and "few seconds" not in body["detail"] and "/srv" not in body["detail"]


@pytest.mark.parametrize("kind", ["event-lexicon-missing", "record-unavailable"])
def test_a_browser_at_an_event_that_cannot_be_served_is_told_so_in_its_language(kind):
    """The director opening the console, or a judge the page, of an event whose app cannot be made
    (its list not served, its database away) gets a line in Spanish or Catalan, 503, as at an
    address with no event, not the API's English problem+json; a client asking for JSON still
    gets that. Both say when to ask again (Retry-After) for a database away, and no time for a
    list not served, which no retry helps."""
    from service.page_texts import app_texts, problem_texts
    from service.registry import LexiconNotServed

    def build(event_id):
        if kind == "record-unavailable":
            raise RuntimeError("the database does not answer")
        raise LexiconNotServed("…", "this event judges with fise-2026 2026.1 (checksum 898d74732d69…), which …")

    # the database away passes by itself: when to ask again; a list not served needs its operator: no time
    again = "5" if kind == "record-unavailable" else None
    events = Events(lambda environ, start: [b"root"], "postgresql:///x", build, lambda app: None, clock=lambda: 0.0)
    events.known, events.looked = frozenset(["liga-j1"]), 0.0
    for language, asked in (("ca", "ca-ES,ca;q=0.9,es;q=0.5"), ("es", "es-ES"), ("es", "fr")):
        said = []
        environ = EnvironBuilder(
            path="/e/liga-j1/director", headers={"Accept": "text/html,*/*;q=0.8", "Accept-Language": asked}
        ).get_environ()
        page = b"".join(
            events(environ, lambda status, headers, exc_info=None, said=said: said.append((status, dict(headers))))
        )
        status, headers = said[0]
        assert status.startswith("503") and headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers.get("Retry-After") == again  # as the problem+json says it, below
        text = page.decode()
        assert f'<html lang="{language}">' in text and app_texts()[language]["unavailableTitle"] in text
        assert problem_texts()[language][f"problem.{kind}"].replace("'", "&#x27;") in text
    heads = {}
    status, response = ask(events, "liga-j1", heads)  # /readyz, as a tool asks: the problem+json
    assert status.startswith("503") and json.loads(b"".join(response))["type"].endswith(f"/{kind}")
    assert heads.get("Retry-After") == again
