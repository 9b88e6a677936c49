"""A client rotating through the addresses of its IPv6 /64, over HTTP to a real `lexicon serve`.

One host is given a /64 and may take any address of it, one for each request; a limit per address
alone bounds nothing for it. The phones are behind a front end on this computer
(LEXICON_TRUSTED_PROXIES), whose X-Forwarded-For says each request's address, as nginx says it
for a service listening for a federation, or as a socket on `::` sees each phone.

- wrong pairing codes: 10 a minute from one address, 30 from all the addresses of one /64;
- plays recorded for callers without a device: LEXICON_RATE_PLAYS from one address, ten times
  that from one /64;
- wrong director passwords: no limit per /64, none needed: six a minute from all addresses
  together already, whatever their number.
"""

from __future__ import annotations

import sqlite3
import uuid

import pytest

from service.event.limits import NETWORK_CODES, WRONG_CODES
from service.event.recording import NETWORK_PLAYS
from tests.support import LiveServer, stop_soon
from tournament import create_event, open_event

from .test_this_computer import PASSWORD, PROXY, ask, login

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`

ROTATED = "2001:db8:1:2::"  # the rotating client's /64
PLAYS = 3  # LEXICON_RATE_PLAYS here: a batch's worth


def address(n: int, network: str = ROTATED) -> str:
    return f"{network}{n:x}"


@pytest.fixture
def served(tmp_path, lexicon_files):
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es").close()
    server = LiveServer(
        tmp_path,
        [lexicon_files["es-mini"]],
        workers=1,  # wrong pairing codes are counted in each worker
        LEXICON_EVENT=str(path),
        LEXICON_TRUSTED_PROXIES=PROXY,
        LEXICON_RATE_PLAYS=str(PLAYS),
    )
    try:
        server.wait_ready()
        yield server, path
    finally:
        stop_soon(server)


def phone(server, method, path, payload, client):
    """A request of the phone at `client`, through the front end."""
    return ask(server, method, path, payload, f"judge.lan:{server.port}", PROXY, **{"X-Forwarded-For": client})


def kind(answer) -> str:
    return answer[2]["type"].rsplit("/", 1)[-1] if isinstance(answer[2], dict) and "type" in answer[2] else ""


def test_wrong_pairing_codes_from_a_rotating_64_are_held_together(served):
    """Before, each new address of the /64 had its own ten: 40 addresses, 40 codes checked, and the
    right code still paired. Now the /64's 30th wrong code holds the whole /64, the right code
    too; another /64, and an IPv4 phone, pair as before, and one address still has its own ten."""
    server, path = served
    store = open_event(path)
    try:
        codes = [store.add_device(f"Juez {n}", "judge")[1] for n in range(3)]
    finally:
        store.close()
    answers = [kind(phone(server, "POST", "/v1/devices/pair", {"code": "2222-2222"}, address(n))) for n in range(40)]
    assert answers == ["pairing-refused"] * NETWORK_CODES + ["pairing-limited"] * (40 - NETWORK_CODES)
    held = phone(server, "POST", "/v1/devices/pair", {"code": codes[0]}, address(99))
    assert kind(held) == "pairing-limited" and int(held[1]["Retry-After"]) > 0
    assert phone(server, "POST", "/v1/devices/pair", {"code": codes[1]}, address(1, "2001:db8:1:3::"))[0] == 201
    assert phone(server, "POST", "/v1/devices/pair", {"code": codes[2]}, "192.168.1.66")[0] == 201
    one = address(1, "2001:db8:1:4::")
    answers = [kind(phone(server, "POST", "/v1/devices/pair", {"code": "2222-2222"}, one)) for _ in range(11)]
    assert answers == ["pairing-refused"] * WRONG_CODES + ["pairing-limited"]


def test_plays_recorded_from_a_rotating_64_are_held_together(served):
    """Callers without a device, between rounds: before, each new address of the /64 had its own
    budget, and 12 addresses recorded 36 rows of nobody in a moment. Now the /64 records at most
    NETWORK_PLAYS addresses' worth a minute; another /64 records as before."""
    server, path = served

    def batch(client):
        plays = [{"words": [word], "idempotency_key": uuid.uuid4().hex} for word in ("CASA", "MESA", "SOL")]
        return phone(server, "POST", "/v1/challenges", {"lexicon": "es", "plays": plays}, client)

    answers = [batch(address(n)) for n in range(NETWORK_PLAYS + 2)]
    assert [answer[0] for answer in answers] == [200] * NETWORK_PLAYS + [429, 429]
    assert "network (/64)" in answers[-1][2]["detail"] and kind(answers[-1]) == "plays-limited"
    assert batch(address(1, "2001:db8:1:3::"))[0] == 200
    own = batch(address(2, "2001:db8:1:3::"))  # an address's own budget: LEXICON_RATE_PLAYS
    assert own[0] == 200 and batch(address(2, "2001:db8:1:3::"))[2]["detail"].startswith("this address")
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT COUNT(*) FROM records WHERE device_id IS NULL").fetchone()[0]
    assert rows == (NETWORK_PLAYS + 2) * PLAYS


def test_wrong_passwords_from_a_rotating_64_are_held_to_the_halls_six_a_minute(served):
    """No limit per /64 for the director's password: the hall's six wrong passwords a minute from
    all addresses together already hold a guesser, however many addresses it takes."""
    server, path = served
    answers = [
        login(server, "wrong-wrong-wrong", f"judge.lan:{server.port}", PROXY, **{"X-Forwarded-For": address(n)})
        for n in range(40)
    ]
    assert [answer[0] for answer in answers] == [401] * 6 + [429] * 34
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM login_attempts WHERE ok = 0").fetchone()[0] == 6
    held = login(server, PASSWORD, f"judge.lan:{server.port}", PROXY, **{"X-Forwarded-For": "2001:db8:7::1"})
    assert held[0] == 429  # the right password, from anywhere in the hall, waits the minute out
