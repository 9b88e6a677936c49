"""The seams between routes and roles in an event, through Flask's test client: a role with a rate
limit gets one verdict per gap whatever the routes it combines, a table device never judges
offline, an offline verdict's time is one the service can believe, and a challenge in an event is
the plain challenge plus one hook (service.challenge_hook)."""

from __future__ import annotations

import ast
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

import service
from lexicon.tokenizer import Tokenizer
from service import create_app
from tests.service.conftest import app_config
from tournament import RateLimited, create_event
from tournament.entry import engine_tiles
from tournament.stamps import stamp

from .conftest import PASSWORD, Clock, entry, keyed
from .test_http import Event, checksum_of, problem

# The request an attacker at a table sent: one play, then each of its words alone. Answered, it
# would say which word failed (LLAVEX).
NAMING_BATCH = {
    "lexicon": "es",
    "plays": [
        {"words": ["CARRO", "CHICO", "LLAVEX", "CASA"]},
        {"words": ["CARRO"]},
        {"words": ["CHICO"]},
        {"words": ["LLAVEX"]},
        {"words": ["CASA"]},
    ],
}


@pytest.fixture
def make_event(tmp_path, lexicon_files):
    def make(**settings):
        path = tmp_path / f"open{len(list(tmp_path.iterdir()))}.db"
        create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock()).close()
        made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), **settings)), path, Clock())
        made.login()
        return made

    return make


@pytest.fixture
def event(make_event):
    return make_event()


def ask(event, route, token, words=("CARRO", "CHICO")):
    """One play by `route`: post, batch (of one play); a GET is refused in an event (test_http.py)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = event.app.test_client()
    if route == "post":
        return client.post("/v1/challenge", json=keyed({"lexicon": "es", "words": list(words)}), headers=headers)
    if route == "get":
        return client.get("/v1/challenge?lexicon=es" + "".join(f"&word={w}" for w in words), headers=headers)
    return client.post(
        "/v1/challenges", json=keyed({"lexicon": "es", "plays": [{"words": list(words)}]}), headers=headers
    )


# -- a rate limit counts plays -------------------------------------------------------------------------


def test_a_table_device_s_batch_naming_the_failed_word_gets_no_verdict(event):
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    client = event.app.test_client()
    refused = client.post("/v1/challenges", json=keyed(NAMING_BATCH), headers={"Authorization": f"Bearer {table}"})
    body = problem(refused, 403, "one-play-per-gap")
    assert "results" not in body and "valid" not in refused.get_data(as_text=True)
    assert event.rows() == []
    # one play at a time is what it gets: the first, then nothing more inside its gap
    assert ask(event, "batch", table, NAMING_BATCH["plays"][0]["words"]).status_code == 200
    for play in NAMING_BATCH["plays"][1:]:
        for route in ("post", "batch"):
            problem(ask(event, route, table, play["words"]), 429, "rate-limited")
    assert len(event.rows()) == 1


def test_a_table_device_s_batch_of_two_plays_is_refused_too(event):
    """The smallest batch that names a word, the play and one of its words, is refused whole (403)
    like a longer one: one play per request means two are already too many."""
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    two = {"lexicon": "es", "plays": [{"words": ["CARRO", "LLAVEX"]}, {"words": ["LLAVEX"]}]}
    refused = event.app.test_client().post(
        "/v1/challenges", json=keyed(two), headers={"Authorization": f"Bearer {table}"}
    )
    problem(refused, 403, "one-play-per-gap")
    assert "valid" not in refused.get_data(as_text=True) and event.rows() == []
    assert ask(event, "batch", table, ["CARRO", "LLAVEX"]).status_code == 200  # its one play, then


@pytest.mark.parametrize("first", ["post", "batch"])
@pytest.mark.parametrize("then", ["post", "batch"])
def test_every_pair_of_routes_gives_a_table_device_one_verdict_per_gap(event, first, then):
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    assert ask(event, first, table).status_code == 200
    event.clock.advance(seconds=9)
    problem(ask(event, then, table, ["CARRO"]), 429, "rate-limited")
    event.clock.advance(seconds=1)
    assert ask(event, then, table, ["CARRO"]).status_code == 200
    assert len(event.rows()) == 2


def test_a_lookup_device_with_a_limit_gets_one_play_per_request_too(make_event):
    made = make_event(LEXICON_RATE_LOOKUP="5")
    _, kiosk = made.device("Consulta", "lookup")
    problem(
        made.app.test_client().post(
            "/v1/challenges", json=keyed(NAMING_BATCH), headers={"Authorization": f"Bearer {kiosk}"}
        ),
        403,
        "one-play-per-gap",
    )
    assert made.rows() == []


def test_roles_without_a_limit_keep_their_batches(event):
    """Judges are trusted (no limit by default, LEXICON_RATE_JUDGE sets one), and so are requests
    without a device between rounds (a lookup is the tool for that): their batches stand."""
    _, judge = event.device()
    for token in (judge, None):
        answer = event.app.test_client().post(
            "/v1/challenges", json=keyed(NAMING_BATCH), headers={"Authorization": f"Bearer {token}"} if token else {}
        )
        assert [r["valid"] for r in answer.json["results"]] == [False, True, True, False, True]
    assert len(event.rows()) == 10


def test_a_judge_with_a_limit_set_gets_one_play_per_gap(make_event):
    made = make_event(LEXICON_RATE_JUDGE="30")
    _, judge = made.device()
    headers = {"Authorization": f"Bearer {judge}"}
    problem(
        made.app.test_client().post("/v1/challenges", json=keyed(NAMING_BATCH), headers=headers),
        403,
        "one-play-per-gap",
    )
    assert ask(made, "post", judge).status_code == 200
    problem(ask(made, "batch", judge), 429, "rate-limited")


def test_the_record_refuses_two_new_plays_of_a_limited_device_in_one_request(db):
    """The store holds the rule too, whatever calls it: plays of one request have no gap between them."""
    with pytest.raises(RateLimited):
        db.append_many([entry(device_id=3), entry(device_id=3, words=("CASA",), tiles=("CASA",))], min_gap=10)
    assert list(db.records()) == []
    assert len(db.append_many([entry(device_id=3, idempotency_key="a"), entry(device_id=3, idempotency_key="b")])) == 2
    # the same plays sent again (an offline queue): no new verdict, so no gap is needed
    assert (
        len(
            db.append_many(
                [entry(device_id=3, idempotency_key="a"), entry(device_id=3, idempotency_key="b")], min_gap=10
            )
        )
        == 2
    )


# -- offline: a judge's phone only, at a time the service believes -------------------------------------


def offline(event, key, when):
    return dict(idempotency_key=key, offline=True, device_time=stamp(when), checksum=checksum_of(event))


def test_an_offline_verdict_s_time_must_be_one_the_service_can_believe(event):
    paired = event.clock.now
    _, judge = event.device()
    event.clock.advance(hours=3)
    now = event.clock.now
    for when in (
        datetime(2099, 1, 1, tzinfo=UTC),
        datetime(2020, 1, 1, tzinfo=UTC),
        now + timedelta(minutes=6),
        paired - timedelta(minutes=6),
    ):
        refused = problem(event.challenge(judge, **offline(event, "k" + stamp(when), when)), 422, "offline-time")
        assert refused["pointer"] == "/device_time" and "valid" not in refused
    assert event.rows() == []
    for when in (now + timedelta(minutes=4), paired - timedelta(minutes=4), now - timedelta(hours=2)):
        assert event.challenge(judge, **offline(event, "k" + stamp(when), when)).status_code == 200
    assert [row.entry.device_time for row in event.rows()] == [
        stamp(now + timedelta(minutes=4)),
        stamp(paired - timedelta(minutes=4)),
        stamp(now - timedelta(hours=2)),
    ]


def test_an_offline_verdict_older_than_twelve_hours_is_refused(event):
    _, judge = event.device()
    event.clock.advance(hours=14)
    problem(event.challenge(judge, **offline(event, "old", event.clock.now - timedelta(hours=13))), 422, "offline-time")
    assert event.challenge(judge, **offline(event, "new", event.clock.now - timedelta(hours=11))).status_code == 200


@pytest.mark.parametrize(
    "impossible",
    [
        "2026-02-30T00:00:00.000000Z",
        "2026-11-22T25:00:00.000000Z",
        "2026-13-01T10:00:00.000000Z",
        "2026-11-22T10:61:00.000000Z",
    ],
)
def test_a_device_time_no_calendar_has_is_offline_time_not_a_500(event, impossible):
    _, judge = event.device()
    sent = dict(idempotency_key="k", offline=True, device_time=impossible, checksum=checksum_of(event))
    refused = problem(event.challenge(judge, **sent), 422, "offline-time")
    assert refused["pointer"] == "/device_time" and "valid" not in refused and event.rows() == []


@pytest.mark.parametrize(
    "digits",
    [
        "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
        "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19",
    ],
)
def test_a_device_time_in_other_digits_is_refused_and_nothing_recorded(event, digits):
    """The record keeps times as `stamp` writes them (ASCII digits, sorted as they read, shown by the
    console): a believable moment with its year in other decimal digits (Arabic-Indic, full-width),
    which Python's \\d and strptime's %Y both read, is no such time."""
    _, judge = event.device()
    written = stamp(event.clock.now)
    other = written[:4].translate({ord("0") + n: digits[n] for n in range(10)}) + written[4:]
    sent = dict(idempotency_key="k", offline=True, device_time=other, checksum=checksum_of(event))
    refused = problem(event.challenge(judge, **sent), 422, "invalid-request")
    assert refused["pointer"] == "/device_time" and "valid" not in refused and event.rows() == []
    assert event.challenge(judge, **{**sent, "device_time": written}).status_code == 200


def test_a_device_time_as_any_rfc_3339_client_writes_it_is_recorded_as_the_record_writes_times(event):
    """A tool author's `new Date().toISOString()` (3 digits, Z), a time without a fraction, with
    nanoseconds, with an offset or in lower case: each is admitted and recorded in the record's
    one form (UTC, 6 digits, Z), so rows sort as they read and the chain hashes one text for one
    moment. The form the API always took is recorded as sent, byte for byte."""
    _, judge = event.device()
    event.clock.advance(hours=1)
    now = event.clock.now.replace(microsecond=123456)
    local = now.astimezone(timezone(timedelta(hours=1)))
    sent = {
        now.strftime("%Y-%m-%dT%H:%M:%S.") + "123Z": now.replace(microsecond=123000),  # toISOString
        now.strftime("%Y-%m-%dT%H:%M:%SZ"): now.replace(microsecond=0),
        now.strftime("%Y-%m-%dT%H:%M:%S.%f") + "789Z": now,  # nanoseconds: the last 3 dropped
        local.strftime("%Y-%m-%dT%H:%M:%S.%f+01:00"): now,
        now.strftime("%Y-%m-%dt%H:%M:%S.%f-00:00"): now,
        now.strftime("%Y-%m-%dt%H:%M:%S.%fz"): now,
        stamp(now): now,
    }
    for number, written in enumerate(sent, 1):
        answer = event.challenge(judge, **offline(event, f"k{number}", now) | {"device_time": written})
        assert answer.status_code == 200 and answer.json["record"] == number, (written, answer.json)
    assert [row.entry.device_time for row in event.rows()] == [stamp(moment) for moment in sent.values()]
    assert event.rows()[-1].entry.device_time == stamp(now)  # the 6 digits and Z as sent


@pytest.mark.parametrize(
    ("written", "status", "kind"),
    [
        ("2026-11-22T10:31:07.Z", 422, "invalid-request"),  # a point without digits
        ("2026-11-22T10:31:07.1234567890Z", 422, "invalid-request"),  # 10 digits
        ("2026-11-22T10:31:07.123", 422, "invalid-request"),  # no zone: whose clock?
        ("2026-11-22 10:31:07.123Z", 422, "invalid-request"),
        ("2026-11-22T10:31:07+0100", 422, "invalid-request"),
        ("2026-11-22T10:31:07+24:00", 422, "offline-time"),
        ("2026-11-22T10:31:07+01:60", 422, "offline-time"),
        ("2026-11-22T10:31:60Z", 422, "offline-time"),
    ],
)
def test_a_device_time_of_another_form_is_refused_quoting_it_and_nothing_recorded(event, written, status, kind):
    _, judge = event.device()
    sent = dict(idempotency_key="k", offline=True, device_time=written, checksum=checksum_of(event))
    refused = problem(event.challenge(judge, **sent), status, kind)
    assert refused["pointer"] == "/device_time" and written in refused["detail"] and "valid" not in refused
    assert event.rows() == []


@pytest.mark.parametrize("member", ["device_time", "checksum"])
def test_an_online_challenge_carries_no_device_time_nor_checksum(event, member):
    """The record's time is the service's: any phone, or nobody, would otherwise stamp its own."""
    _, judge = event.device()
    event.clock.advance(hours=1)
    values = {"device_time": stamp(event.clock.now), "checksum": checksum_of(event)}
    for token in (judge, None):
        for flag in ({}, {"offline": False}):
            refused = problem(event.challenge(token, **flag, **{member: values[member]}), 422, "invalid-request")
            assert refused["pointer"] == f"/{member}" and "valid" not in refused
    assert event.rows() == []
    assert event.challenge(judge).status_code == 200 and event.rows()[0].entry.device_time is None


# -- the round a verdict is recorded in is the one its caller's rules were checked against ---------


def _round_changes_after_admit(event, monkeypatch, change):
    """Between the hook's admit (round read) and the record's append (which may wait for the write
    lock), the director opens or closes a round, through another connection to the event file."""
    from service.event.http import Tournament
    from tournament import open_event

    append = Tournament._append

    def late(self, entries, caller, *said):
        other = open_event(event.path, clock=event.clock)
        try:
            change(other)
        finally:
            other.close()
        return append(self, entries, caller, *said)

    monkeypatch.setattr(Tournament, "_append", late)


@pytest.mark.parametrize("role", ["lookup", None])
def test_a_round_opened_while_a_lookup_waits_for_the_lock_refuses_it(event, monkeypatch, role):
    token = event.device("Consulta", "lookup")[1] if role else None
    _round_changes_after_admit(event, monkeypatch, lambda db: db.open_round())
    refused = problem(event.challenge(token), 403, "lookups-closed")
    assert "valid" not in refused and "round 1" in refused["detail"] and event.rows() == []


def test_a_round_closed_while_a_table_waits_for_the_lock_refuses_it(event, monkeypatch):
    _, token = event.device("Mesa 3", "table", "3")
    event.open_round()
    _round_changes_after_admit(event, monkeypatch, lambda db: db.close_round())
    refused = problem(event.challenge(token, ["CARRO"]), 403, "no-round")
    assert "valid" not in refused and event.rows() == []


# -- one path, one hook ------------------------------------------------------------------------------


def test_the_api_knows_no_event_and_the_hook_no_web_framework():
    folder = Path(service.__file__).parent

    def imports(name):
        tree = ast.parse((folder / name).read_text())
        return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        }

    assert not any(part in ("tournament", "event") for module in imports("api.py") for part in module.split("."))
    assert not any(module.split(".")[0] in ("flask", "werkzeug") for module in imports("challenge_hook.py"))


@pytest.mark.parametrize(
    "notation, words",
    [("spelling", ["carro", " Chico ", "LLAVE"]), ("tiles", ["CA[RR]O", "1ICO"]), ("spelling", ["PINGÜINO", "ÑANDÚ"])],
)
def test_a_recorded_play_s_words_are_tokenized_once_and_recorded_as_before(event, monkeypatch, notation, words):
    calls = []
    play = Tokenizer.play
    monkeypatch.setattr(Tokenizer, "play", lambda self, typed: calls.append(list(typed)) or play(self, typed))
    _, judge = event.device()
    client = event.app.test_client()
    headers = {"Authorization": f"Bearer {judge}"}
    assert (
        client.post(
            "/v1/challenge", json=keyed({"lexicon": "es", "words": words, "notation": notation}), headers=headers
        ).status_code
        == 200
    )
    assert (
        client.post(
            "/v1/challenges",
            json=keyed({"lexicon": "es", "notation": notation, "plays": [{"words": words}] * 2}),
            headers=headers,
        ).status_code
        == 200
    )
    assert len(calls) == 3  # one per play judged: the record's tiles come from the verdict's keys
    monkeypatch.setattr(Tokenizer, "play", play)
    for row in event.rows():  # the rows the record wrote before: the words trimmed, the tiles as engine_tiles made
        assert row.entry.words == tuple(word.strip() for word in words)
        assert row.entry.tiles == engine_tiles("es", words, notation)


# -- a second opinion: never to a table device ---------------------------------------------------------


@pytest.mark.parametrize("route", ["post", "batch"])
def test_a_table_device_asking_for_a_second_opinion_is_refused_and_nothing_recorded(make_event, route):
    """A verdict from another lexicon beside the event's (and `lexicon diff` of the two lists)
    would point a table at the failing word: a table device gets the event's verdict only."""
    made = make_event(LEXICON_SECOND="es:es-alt")
    _, table = made.device("Mesa 7", "table", "7")
    made.open_round()
    headers = {"Authorization": f"Bearer {table}"}
    client = made.app.test_client()
    words = ["CARRO", "XILÓFONO"]  # es-alt holds XILÓFONO, the event's es-mini does not
    if route == "post":
        refused = client.post(
            "/v1/challenge", json=keyed({"lexicon": "es", "words": words, "second": True}), headers=headers
        )
    else:
        refused = client.post(
            "/v1/challenges",
            json=keyed({"lexicon": "es", "plays": [{"words": words}], "second": True}),
            headers=headers,
        )
    problem(refused, 403, "second-not-allowed")
    assert "valid" not in refused.get_data(as_text=True) and made.rows() == []


def test_a_table_device_gets_no_second_opinion_even_when_every_verdict_carries_one(make_event):
    made = make_event(LEXICON_SECOND="es:es-alt", LEXICON_SECOND_ALWAYS="yes")
    _, table = made.device("Mesa 7", "table", "7")
    _, judge = made.device()
    made.open_round()
    answer = ask(made, "post", table, ["CARRO", "XILÓFONO"])
    assert answer.status_code == 200 and "second" not in answer.json and answer.json["valid"] is False
    assert made.rows()[-1].entry.second_lexicon_id is None
    # a judge (and anyone else allowed) still gets it
    assert ask(made, "post", judge, ["CARRO", "XILÓFONO"]).json["second"]["valid"] is True


# -- callers the record cannot name: a few plays a request, a budget per address -------------------------


def batch(event, plays: int, token=None, address="127.0.0.1"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = {"lexicon": "es", "plays": [{"words": ["CARRO", "CHICO"]}] * plays}
    return event.app.test_client().post(
        "/v1/challenges", json=keyed(body), headers=headers, environ_base={"REMOTE_ADDR": address}
    )


def test_without_a_device_a_batch_holds_a_few_plays(event):
    _, kiosk = event.device("Consulta", "lookup")
    for token in (None, kiosk):
        problem(batch(event, 11, token), 403, "batch-too-large")
    assert event.rows() == []
    assert batch(event, 10).status_code == 200


def test_an_address_without_a_device_gets_a_budget_of_recorded_plays_a_minute(make_event):
    made = make_event(LEXICON_RATE_PLAYS="12")
    _, kiosk = made.device("Consulta", "lookup")
    _, judge = made.device()
    assert batch(made, 10).status_code == 200
    refused = batch(made, 3)
    problem(refused, 429, "plays-limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60 and len(made.rows()) == 10
    assert batch(made, 2, kiosk).status_code == 200  # 12: the budget is the address's, device or not
    problem(ask(made, "post", None, ["CARRO"]), 429, "plays-limited")
    # a lookup kiosk past it is told whose budget it is, not that it has no device
    limited = problem(ask(made, "post", kiosk, ["CARRO"]), 429, "plays-limited")
    assert "without a device and lookup devices" in limited["detail"], limited["detail"]
    assert len(made.rows()) == 12
    assert batch(made, 10, judge).status_code == 200  # a judge is named by its rows: no budget
    assert batch(made, 10, address="192.0.2.7").status_code == 200  # another address has its own
    made.clock.advance(seconds=60)
    assert batch(made, 10).status_code == 200
    assert len(made.rows()) == 42


def test_the_addresses_of_one_64_share_ten_times_an_address_s_budget(make_event):
    """docs/operations.md: LEXICON_RATE_PLAYS from one address, "ten times that from all the
    addresses of one IPv6 /64" (one host may take a new address of its /64 for each request):
    at one play a minute, ten addresses of a /64 are recorded, the eleventh is held and told it
    is its network's budget; an address of another /64 is not held."""
    made = make_event(LEXICON_RATE_PLAYS="1")
    for n in range(1, 11):
        assert batch(made, 1, address=f"2001:db8:1:2::{n:x}").status_code == 200, n
    held = problem(batch(made, 1, address="2001:db8:1:2::ff"), 429, "plays-limited")
    assert "network (/64)" in held["detail"], held["detail"]
    assert batch(made, 1, address="2001:db8:1:3::1").status_code == 200
    assert len(made.rows()) == 11


def test_the_default_budget_leaves_a_kiosk_at_a_person_s_pace_alone(make_event):
    """One play every three seconds, faster than anyone types one, for two minutes: never refused."""
    made = make_event()
    _, kiosk = made.device("Consulta", "lookup")
    for _ in range(40):
        assert ask(made, "post", kiosk).status_code == 200
        made.clock.advance(seconds=3)
    assert len(made.rows()) == 40
