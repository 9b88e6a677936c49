"""A service of every event in a database (LEXICON_EVENT=postgresql://…/DATABASE, no `?event=`):
each event under /e/ID/, made at its first request, nothing of one event reached from another's
path, an unknown id answered as any unknown path, events made while it runs served without a
restart (service/federation.py; docs/operations.md, "A federation's service")."""

from __future__ import annotations

import json
import re
import secrets
import string
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from service import create_app
from tests.postgres import DATABASE, OWNER, SERVICE, recorded
from tests.service.conftest import app_config
from tests.support import log_lines, until
from tournament import MAX_FAILURES, create_event, open_event

from .conftest import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

SAME = {"Origin": "http://localhost"}


class Service:
    """The root app of a service of a database's events, and two events in it, A and B; in the
    session's shared database unless `database` names another (one of the test's own, where other
    events' rounds must not reach it: a round open in any event closes its language's lookups)."""

    def __init__(self, server, lexicon_files, database=DATABASE, **settings):
        self.server, self.database = server, database
        self.a, self.b = (f"f-{uuid.uuid4().hex[:12]}" for _ in range(2))
        for event_id, name in ((self.a, "Open A de Lleida"), (self.b, "Open B de Girona")):
            create_event(server.url(OWNER, database, event=event_id), name, PASSWORD, lexicon="es").close()
        self.app = create_app(app_config(lexicon_files, LEXICON_EVENT=server.url(SERVICE, database), **settings))

    def client(self):
        return self.app.test_client()

    def login(self, event_id, client=None):
        """A client holding the event's director session: (client, the session's token)."""
        client = client or self.client()
        response = client.post(f"/e/{event_id}/v1/director/session", json={"password": PASSWORD}, headers=SAME)
        assert response.status_code == 201, response.json
        cookie = response.headers["Set-Cookie"]
        assert f"Path=/e/{event_id}/" in cookie  # never sent to another event's pages
        return client, re.search(r"lexicon_director=([^;]+)", cookie).group(1)

    def pair(self, event_id, director, name="Juez 1", role="judge"):
        added = director.post(f"/e/{event_id}/v1/devices", json={"name": name, "role": role}, headers=SAME)
        assert added.status_code == 201, added.json
        paired = self.client().post(f"/e/{event_id}/v1/devices/pair", json={"code": added.json["code"]})
        assert paired.status_code == 201, paired.json
        return added.json, paired.json["token"]

    def look(self, event_id):
        """The event's devices and the length of its record, read from the database."""
        db = open_event(self.server.url(SERVICE, self.database, event=event_id), readonly=True)
        try:
            return [device.name for device in db.devices()], len(list(db.records()))
        finally:
            db.close()

    def event_app(self, event_id):
        return self.app.wsgi_app.apps[event_id]


@pytest.fixture
def service(postgres_server, lexicon_files):
    return Service(postgres_server, lexicon_files)


def test_each_event_is_served_under_its_own_path_and_the_root_lists_none(service):
    client = service.client()
    for event_id, name in ((service.a, "Open A de Lleida"), (service.b, "Open B de Girona")):
        page = client.get(f"/e/{event_id}/")
        assert page.status_code == 200 and f'data-ns="/e/{event_id}"'.encode() in page.data
        director, _ = service.login(event_id)
        assert director.get(f"/e/{event_id}/v1/event").json["name"] == name
        assert client.get(f"/e/{event_id}/director").status_code == 200
        ready = client.get(f"/e/{event_id}/readyz").json
        assert ready["status"] == "ready" and "event_file" in ready
        [server] = client.get(f"/e/{event_id}/openapi.json").json["servers"]
        assert server["url"] == f"/e/{event_id}"
        assert server["description"].startswith("this event's path on a service of every event of a database")
        redirected = client.get(f"/e/{event_id}")  # the page's relative links need the final slash
        assert redirected.status_code == 308 and redirected.headers["Location"].endswith(f"/e/{event_id}/")
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json["events"] == "database"
    for answer in (ready, client.get("/"), client.get("/e/"), client.get("/openapi.json")):
        assert service.a.encode() not in answer.data and service.b.encode() not in answer.data
    assert client.get("/").status_code == 404 and client.get("/v1/challenge").status_code == 404


def test_an_unknown_event_is_answered_as_any_unknown_path(service):
    """An id that is no event: the root's 404, the same bytes as an event's unknown path (but the path)."""
    client = service.client()
    service.login(service.a)  # its app made
    for rest in ("", "v1/event", "v1/challenge", "director", "v1/nope", "sw.js"):
        unknown = client.get(f"/e/no-such-event/{rest}")
        assert unknown.status_code == 404
        under_a = client.get(f"/e/{service.a}/x{rest}")
        assert under_a.status_code == 404
        same = under_a.data.replace(f"/e/{service.a}/x".encode(), b"/e/no-such-event/")
        assert unknown.data == same
        assert sorted(unknown.headers.items()) == sorted(
            (k, str(len(unknown.data)) if k == "Content-Length" else v) for k, v in under_a.headers.items()
        )


def test_a_browser_at_an_address_with_no_event_is_told_so_in_its_language(service):
    """A person who typed the address wrong: a line in Spanish or Catalan, the same bytes under an
    event's prefix and under an id that is no event, and at the root."""
    client = service.client()
    service.login(service.a)
    for language, text in (
        ("ca-ES,ca;q=0.9", "No hi ha cap torneig en aquesta adreça"),
        ("es", "No hay ningún torneo"),
    ):
        headers = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Language": language}
        pages = [client.get(path, headers=headers) for path in ("/", "/e/no-such-event/", f"/e/{service.a}/nope")]
        assert [page.status_code for page in pages] == [404] * 3
        assert pages[0].content_type == "text/html; charset=utf-8" and text in pages[0].get_data(as_text=True)
        assert pages[1].data == pages[0].data == pages[2].data
        assert pages[1].headers == pages[2].headers
    assert client.get("/e/no-such-event/", headers={"Accept": "application/json"}).json["status"] == 404


def test_an_event_made_while_the_service_runs_is_served_without_a_restart(service, postgres_server):
    client = service.client()
    late = f"f-{uuid.uuid4().hex[:12]}"
    assert client.get(f"/e/{late}/").status_code == 404
    create_event(postgres_server.url(OWNER, event=late), "Open tardà", PASSWORD, lexicon="es").close()
    until(lambda: client.get(f"/e/{late}/").status_code == 200, "the event made meanwhile served")
    director, _ = service.login(late)
    assert director.get(f"/e/{late}/v1/event").json["name"] == "Open tardà"


def test_the_pairing_url_and_the_installed_app_are_the_events(service):
    director, _ = service.login(service.a)
    added, _ = service.pair(service.a, director)
    assert added["pairing_url"].startswith(f"http://localhost/e/{service.a}/#pair=")
    manifest = service.client().get(f"/e/{service.a}/app.webmanifest").json
    assert manifest["start_url"] == "./" and manifest["scope"] == "./"  # relative: /e/ID/
    worker = service.client().get(f"/e/{service.a}/sw.js").data.decode()
    shell = json.loads(worker.split("\n", 1)[0].removeprefix("const SHELL = ").removesuffix(";"))
    assert shell["prefix"] == f"lexicon-judge/e/{service.a}/" and shell["cache"].startswith(shell["prefix"])


def test_the_pairing_url_behind_a_public_address_names_the_event(postgres_server, lexicon_files):
    service = Service(postgres_server, lexicon_files, LEXICON_PUBLIC_URL="https://juez.example.org/")
    director, _ = service.login(service.b)
    added, _ = service.pair(service.b, director)
    assert added["pairing_url"].startswith(f"https://juez.example.org/e/{service.b}/#pair=")


def test_the_login_lockout_is_each_events_own(service):
    client = service.client()
    for _ in range(MAX_FAILURES):
        wrong = client.post(f"/e/{service.a}/v1/director/session", json={"password": "not it"}, headers=SAME)
        assert wrong.status_code in (401, 429)
    locked = client.post(f"/e/{service.a}/v1/director/session", json={"password": PASSWORD}, headers=SAME)
    assert locked.status_code == 429 and locked.json["type"].endswith("/login-locked")
    service.login(service.b)  # the same address, another event: not locked


def test_wrong_pairing_codes_stay_counted_when_the_events_app_is_made_again(service, monkeypatch):
    """A process keeps MAX_APPS events' apps and closes the one asked least lately to make room: an
    outsider who asks other events' paths (their ids are no secret) has the guessed event's app made
    again. Its count of wrong pairing codes is the event's in this process, not the app's: the
    guessing goes on held, not with ten fresh guesses after every round of other events."""
    from service import federation
    from service.event.limits import WRONG_CODES

    monkeypatch.setattr(federation, "MAX_APPS", 1)  # each event asked closes the other's app
    guesser = service.client()
    guesser.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    for _ in range(WRONG_CODES):
        with guesser.post(f"/e/{service.a}/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}) as wrong:
            assert wrong.status_code == 400 and wrong.json["type"].endswith("/pairing-refused")
    made = service.event_app(service.a)
    with guesser.get(f"/e/{service.b}/readyz") as ready:  # answered (closed): its app may be closed in turn
        assert ready.status_code == 200
    assert service.a not in service.app.wsgi_app.apps  # closed to make room for B's
    held = guesser.post(f"/e/{service.a}/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"})
    assert service.event_app(service.a) is not made  # made again
    assert held.status_code == 429 and held.json["type"].endswith("/pairing-limited")


def _path(rule) -> str:
    """A rule's path with a value in each of its parts (a device, a round, a record, a lexicon)."""
    values = {"device_id": "1", "number": "1", "seq": "1", "lexicon_id": "es-mini", "filename": "x", "name": "x"}
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", lambda m: values.get(m.group(1), "1"), rule.rule)


def made_up(secret: str) -> str:
    """A secret of the same length and alphabet as `secret`, belonging to nothing."""
    return "".join(c if not c.isalnum() else secrets.choice(string.ascii_letters + string.digits) for c in secret)


def test_nothing_of_one_event_is_reached_with_its_credentials_from_another(service):
    """Every route of an event's app (its url_map: a route added later is covered too), every
    method: event A's director session and device token, sent to event B, get what made-up ones
    get there, nothing of A's in any answer, and A's event is left as it was."""
    director_a, session_a = service.login(service.a)
    _, token_a = service.pair(service.a, director_a, "Juez A")
    director_b, _ = service.login(service.b)
    service.pair(service.b, director_b, "Juez B")  # B has a device 1 too: A's token must not be it
    own = service.client().get(f"/e/{service.a}/v1/event", headers={"Authorization": f"Bearer {token_a}"})
    assert own.json["device"]["name"] == "Juez A"  # A's credentials are good in A
    devices, rows = service.look(service.a)
    bogus, bogus_session = made_up(token_a), made_up(session_a)  # credentials of no event at all
    stranger = service.client()
    b_app = service.event_app(service.b)
    checked = 0
    for rule in b_app.url_map.iter_rules():
        path = f"/e/{service.b}" + _path(rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            body = {"name": "x", "password": PASSWORD, "code": "ABCD2345", "number": 1, "words": ["CARRO"]}
            body |= {"lexicon": "es", "idempotency_key": uuid.uuid4().hex}
            with_a = stranger.open(
                path,
                method=method,
                json=body if method == "POST" else None,
                headers={**SAME, "Authorization": f"Bearer {token_a}", "Cookie": f"lexicon_director={session_a}"},
            )
            other = stranger.open(
                path,
                method=method,
                json=body if method == "POST" else None,
                headers={**SAME, "Authorization": f"Bearer {bogus}", "Cookie": f"lexicon_director={bogus_session}"},
            )
            assert with_a.status_code == other.status_code, (method, path, with_a.data[:200])
            assert with_a.content_type == other.content_type, (method, path)
            if with_a.content_type == "application/problem+json":
                assert with_a.json["type"] == other.json["type"], (method, path)
            for answer in (with_a, other):
                assert b"Juez A" not in answer.data and b"Open A de Lleida" not in answer.data, (method, path)
                assert service.a.encode() not in answer.data, (method, path)
            checked += 1
    assert checked >= 30  # every route of the event's API, page and console (no GET challenge in an event)
    assert service.look(service.a) == (devices, rows)
    still = director_a.get(f"/e/{service.a}/v1/director/session")  # A's session untouched by B's logout route
    assert still.status_code == 200


def test_a_session_cookie_of_one_event_is_not_sent_to_another(service):
    """The browser's side: the cookie's Path is its event's, so B's pages never receive A's session."""
    client, _ = service.login(service.a)
    assert client.get(f"/e/{service.a}/v1/director/session").status_code == 200
    assert client.get(f"/e/{service.b}/v1/director/session").status_code == 401


def test_no_event_is_a_lookup_while_a_round_in_its_language_is_played_in_another(postgres_server, lexicon_files):
    """A player at event A, its round open, has no device that may look a word up there: lookups
    are closed during rounds. Event B of the same service, in the same language, between its own
    rounds (or on another day), was one: its path answered any phone, as many plays a minute as
    its budget. Now every event judging in A's language closes its lookups while A's round is
    played (within LOOK_AGAIN); an event of another language keeps them, and all reopen after.
    A database of its own: a round another test left open in the shared one would close B's."""
    database = postgres_server.create_database(f"lookups_{uuid.uuid4().hex[:8]}")
    service = Service(postgres_server, lexicon_files, database, LEXICON_RATE_PLAYS="0")  # many asks, no budget
    catalan = f"f-{uuid.uuid4().hex[:12]}"
    create_event(
        postgres_server.url(OWNER, database, event=catalan), "Open C de Tarragona", PASSWORD, lexicon="ca"
    ).close()
    director_a, _ = service.login(service.a)
    director_b, _ = service.login(service.b)
    _, kiosk_b = service.pair(service.b, director_b, "Consulta B", role="lookup")

    def ask(event_id, token=None, route="challenge", lexicon="es", words=("CARRO", "CHICOX")):
        play = {"words": list(words), "idempotency_key": uuid.uuid4().hex}
        body = {"lexicon": lexicon, **play} if route == "challenge" else {"lexicon": lexicon, "plays": [play]}
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return service.client().post(f"/e/{event_id}/v1/{route}", json=body, headers=headers)

    assert ask(service.b).status_code == 200 and ask(service.b, kiosk_b).status_code == 200
    assert director_a.post(f"/e/{service.a}/v1/rounds", json={}, headers=SAME).status_code == 201
    until(lambda: ask(service.b).status_code == 403, "event B's lookups to close while A's round is played", poll=0.2)
    _, before = service.look(service.b)
    for token in (None, kiosk_b):
        for route in ("challenge", "challenges"):
            refused = ask(service.b, token, route)
            assert refused.status_code == 403, (token, route, refused.json)
            assert refused.json["type"].endswith("/lookups-closed") and "valid" not in refused.json
    assert service.look(service.b)[1] == before  # nothing judged into B's record meanwhile
    assert ask(catalan, lexicon="ca", words=("CASA", "QUADRE")).status_code == 200  # no help in Spanish
    assert director_a.post(f"/e/{service.a}/v1/rounds/close", headers=SAME).status_code == 200
    until(lambda: ask(service.b).status_code == 200, "event B's lookups to open again", poll=0.2)
    assert ask(service.b, kiosk_b).status_code == 200


def _beside_another(postgres_server, lexicon_files, pinned_with: dict | None = None):
    """A new database of two events of `es`: one pinned by an app of its own (made with
    `pinned_with`, the test lexicons by default) and one served by a service of its own (LEXICON_EVENT
    naming it). Their ids (database, played, own), and `ask(route)`, a lookup (no device) at `own`
    of one play, alone (`challenge`) or in a batch (`challenges`)."""
    database = postgres_server.create_database(f"lookups_{uuid.uuid4().hex[:8]}")
    played, own = (f"f-{uuid.uuid4().hex[:12]}" for _ in range(2))
    for event_id in (played, own):
        create_event(postgres_server.url(OWNER, database, event=event_id), event_id, PASSWORD, lexicon="es").close()
    pinning = pinned_with or app_config(lexicon_files)
    create_app({**pinning, "LEXICON_EVENT": postgres_server.url(SERVICE, database, event=played)})
    alone = create_app(
        app_config(
            lexicon_files, LEXICON_EVENT=postgres_server.url(SERVICE, database, event=own), LEXICON_RATE_PLAYS="0"
        )
    ).test_client()

    def ask(route="challenge"):
        play = {"words": ["CARRO", "CHICOX"], "idempotency_key": uuid.uuid4().hex}
        body = {"lexicon": "es", **play} if route == "challenge" else {"lexicon": "es", "plays": [play]}
        return alone.post(f"/v1/{route}", json=body)

    return database, played, own, ask


def test_an_event_served_on_its_own_is_no_lookup_while_a_round_in_its_language_is_played_in_another(
    postgres_server, lexicon_files
):
    """The same for an event of the database served by a service of its own (LEXICON_EVENT naming
    it, `?event=ID`, as a big event's instances are): its lookups are closed while another event of
    its database judging in its language has a round open, and open again after. It answered any
    phone before, the other event's round or not."""
    database, played, _own, ask = _beside_another(postgres_server, lexicon_files)
    other = open_event(postgres_server.url(SERVICE, database, event=played))
    try:
        assert ask().status_code == 200
        other.open_round()
        until(
            lambda: ask().status_code == 403, "the event's lookups to close while the other's round is played", poll=0.2
        )
        for route in ("challenge", "challenges"):
            refused = ask(route)
            assert refused.status_code == 403 and refused.json["type"].endswith("/lookups-closed"), refused.json
        other.close_round()
        until(lambda: ask().status_code == 200, "the event's lookups to open again", poll=0.2)
    finally:
        other.close()


def test_a_round_of_another_event_open_for_longer_than_a_day_s_play_closes_no_lookups(
    postgres_server, lexicon_files, capsys
):
    """Only an event's own director can close its round: one left open after its last round (or
    kept open on purpose) closed every other event's lookups in its language for the rest of the
    season. A round opened more than FORGOTTEN_HOURS ago no longer counts, and the log says so
    once; one opened within them still closes them."""
    from datetime import timedelta

    from service.federation import FORGOTTEN_HOURS, LOOK_AGAIN, OtherRounds
    from tournament import utc_now

    database, played, own, ask = _beside_another(postgres_server, lexicon_files)
    ago = [FORGOTTEN_HOURS + 1]
    other = open_event(
        postgres_server.url(SERVICE, database, event=played), clock=lambda: utc_now() - timedelta(hours=ago[0])
    )
    lines = []

    def said():
        lines.extend(log_lines(capsys.readouterr().err))
        return [line for line in lines if "no longer closes lookups" in line["message"]]

    try:
        other.open_round()  # opened FORGOTTEN_HOURS + 1 ago, by the clock that stamps it
        assert ask().status_code == 200
        assert [line["event"] for line in said()] == [played]
        # each look LOOK_AGAIN or more after the last: the database asked again
        moments = iter(range(0, 100, int(LOOK_AGAIN) + 1))
        rounds = OtherRounds(postgres_server.url(SERVICE, database), clock=lambda: next(moments))
        assert rounds.besides(own) == rounds.besides(own) == frozenset()
        assert len(said()) == 2, "said once by each process's OtherRounds, not at each look"
        other.close_round()
        ago[0] = FORGOTTEN_HOURS - 1
        other.open_round()
        until(lambda: ask().status_code == 403, "a round opened within the hours to close the lookups", poll=0.2)
    finally:
        other.close()


def test_an_event_moved_out_with_its_round_open_closes_no_lookups_here(postgres_server, lexicon_files, tmp_path):
    """An event moved out of the database (`lexicon event move`, to a hall's file) with a round open
    keeps that round open in the database, where nothing can close it any more (every write there
    is 410 `event-moved`, its director's too): the other events of its language had their lookups
    closed for good. A moved event plays elsewhere, as an event of a file does: it closes nothing."""
    from tournament import copy_event

    database, moved, _own, ask = _beside_another(postgres_server, lexicon_files)
    other = open_event(postgres_server.url(SERVICE, database, event=moved))
    try:
        other.open_round()
    finally:
        other.close()
    until(lambda: ask().status_code == 403, "the event's lookups to close while the other's round is played", poll=0.2)
    copy_event(postgres_server.url(OWNER, database, event=moved), tmp_path / "hall.db", "move")
    until(lambda: ask().status_code == 200, "the event's lookups to open once the other moved out", poll=0.2)


def test_an_event_of_another_version_of_a_served_list_closes_lookups_in_its_language(
    postgres_server, lexicon_files, tmp_path
):
    """An event pinned to a version of a list this service does not serve (its own instances serve
    that one: a list updated mid-season) is played in the list's language all the same: while its
    round is open, the lookups of this service's events of that language are closed."""
    from tests.service.conftest import ES_WORDS
    from tests.support import compile_list

    newer = compile_list(tmp_path / "es-mini-2.lex", [*ES_WORDS, "ÁRBOL"], "es", "es-mini", "Mini español", "test-2")
    pinning = {**app_config(lexicon_files), "LEXICON_FILES": [str(newer)]}  # its own instances: the newer list
    database, played, _own, ask = _beside_another(postgres_server, lexicon_files, pinning)
    assert ask().status_code == 200
    other = open_event(postgres_server.url(SERVICE, database, event=played))
    try:
        other.open_round()
        until(lambda: ask().status_code == 403, "the lookups to close while the newer list's round is played", poll=0.2)
        other.close_round()
    finally:
        other.close()
    until(lambda: ask().status_code == 200, "the lookups to open again", poll=0.2)


def _beside_a_list_unknown_here(postgres_server, lexicon_files, tmp_path):
    """`_beside_another`, its played event pinned to a list of `es` that this service neither
    serves nor knows by its id (`es-otra`: its own instances serve it), and a third event, of `ca`,
    served by a service of its own. (database, played, the played event's instances' settings,
    `ask` at the Spanish event, `ask_ca` at the Catalan one: a lookup of one play, no device)."""
    from tests.service.conftest import ES_WORDS
    from tests.support import compile_list

    unknown = compile_list(tmp_path / "es-otra.lex", ES_WORDS, "es", "es-otra", "Otro español")
    pinning = {**app_config(lexicon_files), "LEXICON_FILES": [str(unknown)]}
    database, played, _own, ask = _beside_another(postgres_server, lexicon_files, pinning)
    catalan = f"f-{uuid.uuid4().hex[:12]}"
    create_event(postgres_server.url(OWNER, database, event=catalan), catalan, PASSWORD, lexicon="ca").close()
    alone = create_app(
        app_config(
            lexicon_files, LEXICON_EVENT=postgres_server.url(SERVICE, database, event=catalan), LEXICON_RATE_PLAYS="0"
        )
    ).test_client()

    def ask_ca():
        return alone.post(
            "/v1/challenge", json={"lexicon": "ca", "words": ["CASA"], "idempotency_key": uuid.uuid4().hex}
        )

    return database, played, pinning, ask, ask_ca


def _refused(ask, why: str, closed: bool = False):
    """The answer to `ask()` when it is a 403 whose detail says `why`, else None (not yet).
    `closed`: the lookups were closed already, so every answer meanwhile is a 403 too (a verdict
    there, a lookup open for a moment during a round, fails at once rather than being waited out)."""
    answer = ask()
    assert not closed or answer.status_code == 403, f"a lookup answered during the round: {answer.json}"
    return answer if answer.status_code == 403 and why in answer.json["detail"] else None


def test_an_event_of_a_list_this_service_knows_nothing_of_closes_lookups_in_its_language(
    postgres_server, lexicon_files, tmp_path
):
    """An event pinned to a list this service neither serves nor knows by its id (its own
    instances serve it) closed nothing here: its players could look words up at this service's
    events of its language during their round. Its pin keeps the list's language: while its round
    is open those lookups are closed, and an event of another language keeps its own."""
    database, played, _pinning, ask, ask_ca = _beside_a_list_unknown_here(postgres_server, lexicon_files, tmp_path)
    assert ask().status_code == 200 and ask_ca().status_code == 200
    other = open_event(postgres_server.url(SERVICE, database, event=played))
    try:
        other.open_round()
        until(lambda: ask().status_code == 403, "the lookups of its language to close during its round", poll=0.2)
        refused = ask()
        assert refused.json["type"].endswith("/lookups-closed") and "same language" in refused.json["detail"]
        assert ask_ca().status_code == 200  # no help in Spanish
        other.close_round()
    finally:
        other.close()
    until(lambda: ask().status_code == 200, "the lookups to open again", poll=0.2)


def test_a_pin_kept_before_its_language_of_a_list_unknown_here_closes_every_language_until_its_event_starts(
    postgres_server, lexicon_files, tmp_path, capsys
):
    """A pin kept before its list's language was (PostgreSQL's schema 5, the event file's 14), of a
    list this service knows neither by its bytes nor its id: the language of its round cannot be
    known here, and the round closes the lookups of every language, each refusal saying so: they
    reopen when the round closes, where a player's lookup could not be undone. The log says so once
    for that round in each process (each app here: its own), naming the event and its list, no
    token and no word. Once an instance that serves its list starts the event, its pin has its
    language, and the round closes that one's alone."""
    database, played, pinning, ask, ask_ca = _beside_a_list_unknown_here(postgres_server, lexicon_files, tmp_path)
    with postgres_server.connect(OWNER, database) as conn:  # as the migration to schema 6 leaves it
        conn.execute("UPDATE events SET lexicon_language = NULL WHERE id = %s", (played,))
    other = open_event(postgres_server.url(SERVICE, database, event=played))
    capsys.readouterr()
    try:
        other.open_round()
        # ask and ask_ca are two apps, each looking at the other events on its own schedule: each is waited for
        for asking in (ask, ask_ca):
            refused = until(
                lambda asking=asking: _refused(asking, "language this service does not know"),
                "every language's lookups to close during its round",
                poll=0.2,
            )
            assert refused.json["type"].endswith("/lookups-closed") and "valid" not in refused.json, refused.json
        logged = capsys.readouterr().err
        said = [line for line in log_lines(logged) if "closes the lookups of every language" in line["message"]]
        once_each = [(played, "es-otra", "warning")] * 2  # the Spanish event's app and the Catalan one's
        assert [(line["event"], line["lexicon"], line["level"]) for line in said] == once_each
        assert "CARRO" not in logged and "Bearer" not in logged
        create_app({**pinning, "LEXICON_EVENT": postgres_server.url(SERVICE, database, event=played)})
        assert other.event().pin.language == "es"
        until(lambda: ask_ca().status_code == 200, "the other language's lookups to open again", poll=0.2)
        until(
            lambda: _refused(ask, "same language", closed=True),
            "its own language's lookups to stay closed, saying why",
            poll=0.2,
        )
        other.close_round()
    finally:
        other.close()
    until(lambda: ask().status_code == 200, "the lookups to open again", poll=0.2)


def test_the_roots_readiness_says_when_the_database_cannot_be_reached(lexicon_files, postgres_server):
    """No database at the URL: /readyz is a 503 saying so (without a password), and no event is served."""
    nowhere = f"postgresql://{SERVICE}:secret-pw@127.0.0.1:1/lexicon"
    client = create_app(app_config(lexicon_files, LEXICON_EVENT=nowhere)).test_client()
    ready = client.get("/readyz")  # on the service's own computer: which database, and its error
    assert ready.status_code == 503 and "cannot be reached" in ready.json["detail"]
    assert "127.0.0.1:1/lexicon" in ready.json["detail"] and "secret-pw" not in ready.get_data(as_text=True)
    hall = client.get("/readyz", environ_base={"REMOTE_ADDR": "203.0.113.9"})  # anyone on the Internet
    assert hall.status_code == 503 and "cannot be reached" in hall.json["detail"]
    assert "postgresql" not in hall.json["detail"] and ":1/lexicon" not in hall.json["detail"]
    assert client.get("/e/open/").status_code == 503  # no event served: whether it is one cannot be known
    up = create_app(app_config(lexicon_files, LEXICON_EVENT=postgres_server.url(SERVICE))).test_client()
    assert up.get("/readyz").status_code == 200


@pytest.mark.server
def test_lexicon_serve_of_a_database_serves_two_events_each_recording_its_own(tmp_path, postgres_server, lexicon_files):
    """`lexicon serve` (two gevent workers, each making the events' apps after the fork) of a
    database: many first requests to each event at once (one greenlet makes the app while the
    others wait for it, the worker answering meanwhile), a device paired to each event, challenges
    to both at once, each verdict recorded in its own event's chain, which verifies; the address
    printed names the /e/ID/ paths."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.service.event.conftest import keyed
    from tests.support import LiveServer

    events = [f"f-{uuid.uuid4().hex[:12]}" for _ in range(2)]
    for event_id in events:
        create_event(postgres_server.url(OWNER, event=event_id), f"Open {event_id}", PASSWORD, lexicon="es").close()
    database = postgres_server.url(SERVICE).replace(f"{SERVICE}@", f"{SERVICE}:not-shown@")
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], workers=2, LEXICON_EVENT=database)

    def call(method, path, payload=None, headers=None):
        sent = {"Content-Type": "application/json", "Origin": server.url, **(headers or {})}
        status, received, data = server.request(
            method, path, None if payload is None else json.dumps(payload).encode(), sent
        )
        return status, dict(received), json.loads(data) if data[:1] == b"{" else data

    try:
        server.wait_ready()
        with ThreadPoolExecutor(8) as pool:  # each worker's first requests, at once: one makes the
            firsts = list(pool.map(lambda n: call("GET", f"/e/{events[n % 2]}/readyz")[0], range(16)))
        assert firsts == [200] * 16  # app, the others wait for it without holding the worker
        tokens = {}
        for event_id in events:
            status, headers, _ = call("POST", f"/e/{event_id}/v1/director/session", {"password": PASSWORD})
            assert status == 201 and f"Path=/e/{event_id}/" in headers["Set-Cookie"]
            cookie = {"Cookie": headers["Set-Cookie"].split(";")[0]}
            status, _, added = call("POST", f"/e/{event_id}/v1/devices", {"name": "Juez 1", "role": "judge"}, cookie)
            assert status == 201 and f"/e/{event_id}/#pair=" in added["pairing_url"]
            status, _, paired = call("POST", f"/e/{event_id}/v1/devices/pair", {"code": added["code"]})
            tokens[event_id] = paired["token"]

        def ask(index):
            event_id = events[index % 2]
            body = keyed({"lexicon": "es", "words": ["CARRO", "CHICO" if index % 3 else "CARRA"]})
            headers = {"Authorization": f"Bearer {tokens[event_id]}"}
            return event_id, call("POST", f"/e/{event_id}/v1/challenge", body, headers)

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(ask, range(40)))
        assert all(status == 200 for _, (status, _, _) in answers)
        ready = call("GET", "/readyz")
        assert ready[0] == 200 and ready[2]["events"] == "database"
    finally:
        server.stop()
    for event_id in events:
        broken, rows = recorded(postgres_server, event_id)
        mine = {body["record"]: body["valid"] for answered, (_, _, body) in answers if answered == event_id}
        assert broken is None and len(rows) == 20 == len(mine)
        assert all(row.entry.valid == mine[row.seq] for row in rows)
    assert "not-shown" not in server.logs()
    assert (
        f"serving the events of postgresql://{SERVICE}@/lexicon" in server.logs() and "/e/ID/director" in server.logs()
    )


def test_an_event_moved_out_of_the_database_records_nothing_more_at_its_old_address(service, tmp_path):
    """`lexicon event move` of one event of the database to a hall's file, while a service of every
    event still serves its /e/ID/ (the instances' role cannot delete it): a phone that kept its
    pairing there is refused 410 `event-moved` (nothing recorded, not told where the event went), a
    pairing and a round are refused too, its /readyz says so; the other event is untouched.
    (Before the move marked its source, the phone's verdict was recorded at the old address.)"""
    from tests.service.event.conftest import keyed
    from tournament import copy_event

    director, _ = service.login(service.a)
    _, token = service.pair(service.a, director)
    judge = {"Authorization": f"Bearer {token}"}

    def challenge(event_id, headers):
        body = keyed({"lexicon": "es", "words": ["CARRO"]})
        return service.client().post(f"/e/{event_id}/v1/challenge", json=body, headers=headers)

    assert challenge(service.a, judge).status_code == 200
    moved = copy_event(service.server.url(OWNER, event=service.a), tmp_path / "hall.db", "move")
    refused = challenge(service.a, judge)
    assert refused.status_code == 410 and refused.json["type"].endswith("/event-moved"), refused.json
    assert moved.file.identity not in refused.get_data(as_text=True) and "tmp" not in refused.json["detail"]
    added = director.post(f"/e/{service.a}/v1/devices", json={"name": "Juez 2", "role": "judge"}, headers=SAME)
    assert added.status_code == 410 and added.json["type"].endswith("/event-moved")
    assert director.post(f"/e/{service.a}/v1/rounds", json={}, headers=SAME).status_code == 410
    ready = service.client().get(f"/e/{service.a}/readyz")
    assert ready.status_code == 503 and moved.file.identity in ready.json["detail"]
    assert service.look(service.a) == (["Juez 1"], 1)
    other, _ = service.login(service.b)
    _, other_token = service.pair(service.b, other)
    assert challenge(service.b, {"Authorization": f"Bearer {other_token}"}).status_code == 200


def test_threads_asking_at_once_for_an_event_not_served_yet_get_one_app_of_it(service):
    """gunicorn's gthread worker answers a process's requests in threads: the first requests of an
    event, arriving together, make one app of it (one store, one set of connections and one writer
    thread), and each request counted as answering while it answers, so that no app answering is
    ever taken for an idle one and closed. Threads switched every microsecond, so that any step
    not guarded shows."""
    events = service.app.wsgi_app
    real, built = events.build, []

    def build(event_id):  # the service's own build, counted
        built.append(event_id)
        return real(event_id)

    events.build = build
    count = 24
    start = threading.Barrier(count)

    def ask(event_id):
        start.wait()
        response = service.client().get(f"/e/{event_id}/readyz")
        response.close()  # its body sent: the request no longer answering
        return response.status_code

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(count) as pool:
            statuses = list(pool.map(ask, [service.a, service.b] * (count // 2)))
    finally:
        sys.setswitchinterval(switching)
    assert statuses == [200] * count
    assert sorted(built) == sorted([service.a, service.b]), built  # one app an event, whoever asked first
    assert sorted(events.apps) == sorted(built) and events.answering == {}


@pytest.mark.server
def test_events_whose_list_is_not_served_are_named_at_start_and_reload(
    postgres_server, lexicon_files, tmp_path, caplog
):
    """A federation's service started (or reloaded) without the file an event is pinned to serves
    that event no more (503 event-lexicon-missing): it says so at once, naming each such event, its
    list and whether a round is open there, in the log and in what `lexicon reload` prints, rather
    than let the director find out from the judges. Events whose list it serves are not named."""
    import os

    from lexicon.lexfile import Lexicon
    from tests.service.test_reload import reload
    from tests.support import LiveServer

    database = postgres_server.create_database(f"unserved_{os.urandom(4).hex()}")
    everything = postgres_server.url(SERVICE, database)
    for event_id in ("liga-j1", "liga-j2", "liga-j3"):
        create_event(postgres_server.url(OWNER, database, event=event_id), event_id, PASSWORD, lexicon="es-alt").close()
    files = [lexicon_files[name] for name in ("es-mini", "es-alt", "ca-mini")]
    with LiveServer(tmp_path, files, LEXICON_EVENT=everything) as server:
        server.wait_ready()
        for event_id in ("liga-j1", "liga-j2"):  # pinned at their first request, to es-alt, served here
            assert server.request("GET", f"/e/{event_id}/readyz")[0] == 200
        db = open_event(postgres_server.url(SERVICE, database, event="liga-j1"))
        db.open_round()
        db.close()
        said = (
            "events this service does not serve, as it has not their list: liga-j1 (a round open), liga-j2, "
            f"judging with es-alt test-1 (checksum {Lexicon.open(lexicon_files['es-alt']).checksum[:12]}…): "
            "each is answered 503 event-lexicon-missing until that file is in LEXICON_FILES again"
        )  # and not liga-j3, never served: it is pinned at its first start, to what is served then
        done = reload(server.port, LEXICON_FILES=f"{lexicon_files['es-mini']}:{lexicon_files['ca-mini']}")
        assert done.returncode == 0, done.stderr
        assert f"warning: {said}\n" in done.stderr
        status, headers, body = server.request("GET", "/e/liga-j1/readyz")
        assert status == 503 and json.loads(body)["type"].endswith("/event-lexicon-missing")
        person = {"Accept": "text/html,*/*;q=0.8", "Accept-Language": "es"}
        status, page_headers, _ = server.request("GET", "/e/liga-j1/", headers=person)
        assert status == 503 and dict(page_headers)["Content-Type"] == "text/html; charset=utf-8"
        # until its operator serves the list again: no time to promise, neither to a tool nor to a person
        assert "Retry-After" not in dict(headers) and "Retry-After" not in dict(page_headers)
        assert reload(server.port, LEXICON_FILES=":".join(map(str, files))).stderr.count("warning") == 0
    started = create_app(app_config(lexicon_files, LEXICON_EVENT=everything))  # es-mini and es-alt served
    assert started.extensions["lexicon_warnings"] == []
    alone = create_app(app_config(lexicon_files, LEXICON_EVENT=everything, LEXICON_FILES=[str(files[0])]))
    assert alone.extensions["lexicon_warnings"] == [said]
    assert said in [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]


def test_an_event_whose_database_is_away_is_a_503_that_says_when_to_ask_again(lexicon_files):
    """The database stopped under a service of every event: an event whose part was made and one
    whose part cannot be made now are each 503 `record-unavailable` with the same Retry-After (as
    problem+json, and on the line a person's browser gets), the time a database away takes to pass
    by itself; both are served again once it answers, without a restart. (A list not served, which
    no retry helps, promises no time: test_events_whose_list_is_not_served_are_named_at_start_and_reload.)"""
    import shutil
    import tempfile
    from pathlib import Path

    from tests.postgres import PostgresServer
    from tests.service.event.conftest import keyed

    folder = Path(tempfile.mkdtemp(prefix="lexicon-postgres-"))
    server = PostgresServer(folder)
    try:
        made, not_made = "liga-j1", "liga-j2"
        for event_id in (made, not_made):
            create_event(server.url(OWNER, event=event_id), event_id, PASSWORD, lexicon="es").close()
        client = create_app(app_config(lexicon_files, LEXICON_EVENT=server.url(SERVICE))).test_client()
        assert client.get(f"/e/{made}/readyz").status_code == 200  # its part made; both ids known
        document = client.get(f"/e/{made}/openapi.json").json  # says so to a tool's author
        said = document["servers"][0]["description"]
        assert "`record-unavailable` with `Retry-After`" in said and "`event-lexicon-missing` without" in said
        assert "`Retry-After`" in document["paths"]["/v1/challenge"]["post"]["responses"]["503"]["description"]
        server.stop()
        play = {"lexicon": "es", "words": ["CARRO", "CHICO"]}
        person = {"Accept": "text/html,*/*;q=0.8", "Accept-Language": "ca"}
        for event_id in (made, not_made):
            refused = client.post(f"/e/{event_id}/v1/challenge", json=keyed(play))
            assert refused.status_code == 503 and refused.json["type"].endswith("/record-unavailable"), refused.json
            assert refused.headers["Retry-After"] == "5" == str(refused.json["retry_after"]), event_id
            assert "ask again in 5 s" in refused.json["detail"]
        page = client.get(f"/e/{not_made}/", headers=person)
        assert page.status_code == 503 and page.content_type == "text/html; charset=utf-8"
        assert page.headers["Retry-After"] == "5"
        server.start()
        until(lambda: client.get(f"/e/{not_made}/readyz").status_code == 200, "the event served again")
        assert client.post(f"/e/{made}/v1/challenge", json=keyed(play)).status_code == 200
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_a_service_started_while_its_database_is_away_answers_its_events_503_not_404(lexicon_files):
    """Started (or a worker made anew) while the database is away, the service cannot know which ids
    are events: an event's request is 503 `record-unavailable` with its Retry-After, which a judge's
    phone takes as the service away and judges offline, not a 404 (no such path), which it shows as
    a refusal; once the database answers, the event is served, without a restart."""
    import shutil
    import tempfile
    from pathlib import Path

    from tests.postgres import PostgresServer
    from tests.service.event.conftest import keyed

    folder = Path(tempfile.mkdtemp(prefix="lexicon-postgres-"))
    server = PostgresServer(folder)
    try:
        create_event(server.url(OWNER, event="liga-j1"), "Liga", PASSWORD, lexicon="es").close()
        server.stop()
        client = create_app(app_config(lexicon_files, LEXICON_EVENT=server.url(SERVICE))).test_client()
        play = {"lexicon": "es", "words": ["CARRO", "CHICO"]}
        refused = client.post("/e/liga-j1/v1/challenge", json=keyed(play))
        assert refused.status_code == 503 and refused.json["type"].endswith("/record-unavailable"), refused.json
        assert refused.headers["Retry-After"] == "5"
        page = client.get("/e/liga-j1/", headers={"Accept": "text/html,*/*;q=0.8", "Accept-Language": "es"})
        assert page.status_code == 503 and page.headers["Retry-After"] == "5"
        server.start()
        until(lambda: client.get("/e/liga-j1/readyz").status_code == 200, "the event served once it answers")
        assert client.post("/e/liga-j1/v1/challenge", json=keyed(play)).status_code == 200
        assert client.get("/e/no-such-event/readyz").status_code == 404  # a made-up id, once it can be asked
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("whole", [False, True], ids=["one event", "every event"])
def test_an_app_connected_as_the_databases_owner_is_refused(postgres_server, lexicon_files, whole):
    """The app itself (gunicorn's, a reload's: not only `lexicon serve`'s check) refuses a URL whose
    role owns the database, which could disable the record's append-only trigger: a StartError
    naming it and the role to serve as instead, nothing served."""
    from service import StartError

    event_id = f"g-{uuid.uuid4().hex[:12]}"
    create_event(postgres_server.url(OWNER, event=event_id), "Open", PASSWORD, lexicon="es").close()
    url = postgres_server.url(OWNER, event=None if whole else event_id)
    with pytest.raises(StartError, match=f"connects as {OWNER}, which owns the database.*the instances' role"):
        create_app(app_config(lexicon_files, LEXICON_EVENT=url))


def test_rows_the_owner_deleted_stay_a_break_once_the_event_s_app_is_made_again(service, monkeypatch):
    """The owner (the trigger disabled) deletes the record's last rows: a process that had verified
    them says so at every look, whatever the chain left verifies. Its app closed to make room for
    other events' (asked by anyone: ids are no secret) and made again, the process still says so:
    what it verified is the event's in this process, not the app's, or a few requests to other
    events' paths would wipe the console's red line."""
    from service import federation

    monkeypatch.setattr(federation, "MAX_APPS", 1)  # each event asked closes the other's app
    a, director = f"/e/{service.a}", service.client()
    with director.post(f"{a}/v1/director/session", json={"password": PASSWORD}, headers=SAME) as login:
        assert login.status_code == 201  # each answer closed once read: an app answering is never closed
    with director.post(f"{a}/v1/devices", json={"name": "Juez 1", "role": "judge"}, headers=SAME) as added:
        code = added.json["code"]
    with service.client().post(f"{a}/v1/devices/pair", json={"code": code}) as paired:
        judge = paired.json["token"]
    for _ in range(3):
        body = {"lexicon": "es", "words": ["CARRO"], "idempotency_key": uuid.uuid4().hex}
        bearer = {"Authorization": f"Bearer {judge}"}
        with service.client().post(f"{a}/v1/challenge", json=body, headers=bearer) as sent:
            assert sent.status_code == 200, sent.json

    def broken() -> tuple:
        with director.get(f"{a}/v1/records") as listed:
            chain = listed.json["chain"]
        return chain["intact"], chain["last"], chain["broken"] and chain["broken"]["seq"]

    assert broken() == (True, 3, None)
    with service.server.connect(OWNER) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER records_append_only")
        conn.execute("DELETE FROM records WHERE event_id = %s AND seq = 3", (service.a,))
        conn.execute("ALTER TABLE records ENABLE TRIGGER records_append_only")
    assert broken() == (False, 2, 3)
    made = service.event_app(service.a)
    with service.client().get(f"/e/{service.b}/readyz") as ready:  # anyone: A's app closed for B's
        assert ready.status_code == 200
    assert service.a not in service.app.wsgi_app.apps
    assert broken() == (False, 2, 3)
    assert service.event_app(service.a) is not made  # made again, and still says it
