"""Tournament mode behind proxies, through Flask's test client: the director's login limited per
client address (the socket's, or a trusted front end's X-Forwarded-For), never locked for everyone
by one client; the laptop's own ways in (a new password, a one-time login link); the browser's
scheme, host and port for the cookie, the same-origin check and the pairing URL.
"""

from __future__ import annotations

import sqlite3

import pytest

from service import create_app
from service.config import load_settings
from service.gunicorn_conf import options
from tests.service.conftest import app_config
from tournament import create_event

from .conftest import PASSWORD, Clock
from .test_http import SAME, Event, problem

ATTACKER, DIRECTOR, OTHER = "192.168.1.66", "192.168.1.10", "192.168.1.67"
PROXY = "127.0.0.2"


def event_app(tmp_path, lexicon_files, **settings) -> Event:
    path, clock = tmp_path / "open.db", Clock()
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=clock).close()
    return Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), **settings)), path, clock)


@pytest.fixture
def event(tmp_path, lexicon_files):
    return event_app(tmp_path, lexicon_files)


@pytest.fixture
def proxied(tmp_path, lexicon_files):
    return event_app(tmp_path, lexicon_files, LEXICON_TRUSTED_PROXIES=PROXY)


def client(event: Event, address: str):
    tester = event.app.test_client()
    tester.environ_base["REMOTE_ADDR"] = address  # the socket's peer
    return tester


def login(tester, password=PASSWORD, **headers):
    return tester.post("/v1/director/session", json={"password": password}, headers={**SAME, **headers})


# -- A: the login's limits, per client --------------------------------------------------------------


def test_one_client_spoofing_forwarded_for_cannot_lock_the_director_out(event):
    attacker = client(event, ATTACKER)
    for n in range(5):
        answer = login(attacker, "wrong-wrong-wrong", **{"X-Forwarded-For": f"10.9.8.{n}"})
        assert answer.status_code in (401, 429)
    # the attacker is one client (its socket), whatever header it writes: locked, and cannot dodge it
    problem(login(attacker, PASSWORD, **{"X-Forwarded-For": "10.9.9.9"}), 429, "login-locked")
    assert login(client(event, DIRECTOR)).status_code == 201  # the director is not kept out


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(proxied):
    through = client(proxied, PROXY)
    for _ in range(5):
        login(through, "wrong-wrong-wrong", **{"X-Forwarded-For": f"6.6.6.6, {ATTACKER}"})
    problem(login(through, **{"X-Forwarded-For": ATTACKER}), 429, "login-locked")
    # the left part of the header is the client's to write: only the hop nginx appended counts
    problem(login(through, **{"X-Forwarded-For": f"{DIRECTOR}, {ATTACKER}"}), 429, "login-locked")
    assert login(through, **{"X-Forwarded-For": DIRECTOR}).status_code == 201


def test_forwarded_for_from_an_untrusted_peer_is_ignored(proxied):
    attacker = client(proxied, ATTACKER)
    for n in range(5):
        login(attacker, "wrong-wrong-wrong", **{"X-Forwarded-For": f"10.9.8.{n}"})
    problem(login(attacker, **{"X-Forwarded-For": "10.9.9.9"}), 429, "login-locked")


def test_many_addresses_together_are_held_to_six_wrong_passwords_a_minute(event):
    """Brute force stays as slow as with one lock for all: six wrong passwords a minute at most,
    which no single address can reach (it is locked at five)."""
    event.clock.advance(seconds=1)  # after the password was set
    for _ in range(5):
        login(client(event, ATTACKER), "wrong-wrong-wrong")
    assert login(client(event, DIRECTOR)).status_code == 201  # five from one address: nobody else locked
    problem(login(client(event, OTHER), "wrong-wrong-wrong"), 401, "wrong-password")  # the sixth
    held = problem(login(client(event, DIRECTOR)), 429, "login-locked")
    assert 0 < held["retry_after"] <= 60
    with sqlite3.connect(event.path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM login_attempts WHERE ok = 0").fetchone()[0] == 6
    event.clock.advance(seconds=61)
    assert login(client(event, DIRECTOR)).status_code == 201


def test_the_laptops_own_browser_is_never_held_by_the_halls_limit(event):
    """Many addresses in the hall reach the limit for everyone; the laptop (loopback) still logs in,
    and a wrong password typed there is still limited per address like any other."""
    event.clock.advance(seconds=1)
    for address in (ATTACKER, OTHER):
        for _ in range(5):
            login(client(event, address), "wrong-wrong-wrong")
    problem(login(client(event, DIRECTOR)), 429, "login-locked")  # the hall is held
    assert login(client(event, "127.0.0.1")).status_code == 201  # the laptop is not
    assert login(client(event, "::1")).status_code == 201
    # `lexicon serve --host ::`: the laptop's browser arrives on the IPv6 socket as ::ffff:127.0.0.1
    assert login(client(event, "::ffff:127.0.0.1")).status_code == 201
    laptop = client(event, "127.0.0.1")
    for _ in range(5):
        login(laptop, "wrong-wrong-wrong")
    problem(login(laptop), 429, "login-locked")  # per address, as everywhere


def test_a_hall_client_is_one_address_on_an_ipv4_or_an_ipv6_socket(event):
    """Served on `::`, an IPv4 phone is ::ffff:192.168.1.66: the same client as 192.168.1.66, so
    its limit is one (and the mapped form of a hall address is no loopback)."""
    for _ in range(5):
        login(client(event, f"::ffff:{ATTACKER}"), "wrong-wrong-wrong")
    problem(login(client(event, ATTACKER)), 429, "login-locked")
    assert login(client(event, DIRECTOR)).status_code == 201  # one address locked, not the hall


# -- A: whoever holds the laptop is the director ------------------------------------------------------


def test_a_login_link_signs_in_once_whatever_the_limits(event):
    for address in (ATTACKER, OTHER):
        for _ in range(5):
            login(client(event, address), "wrong-wrong-wrong")
    director = client(event, ATTACKER)
    problem(login(director), 429, "login-locked")  # locked for this address and for everyone
    token = event.db.new_login_link()
    signed = director.post("/v1/director/link", json={"token": token}, headers=SAME)
    assert signed.status_code == 201 and "HttpOnly" in signed.headers["Set-Cookie"]
    assert director.get("/v1/devices").status_code == 200
    problem(
        client(event, DIRECTOR).post("/v1/director/link", json={"token": token}, headers=SAME), 401, "link-refused"
    )  # once only
    late = event.db.new_login_link()
    event.clock.advance(minutes=5, seconds=1)
    problem(client(event, DIRECTOR).post("/v1/director/link", json={"token": late}, headers=SAME), 401, "link-refused")
    problem(
        client(event, DIRECTOR).post("/v1/director/link", json={"token": "x" * 43}, headers=SAME), 401, "link-refused"
    )
    refused = client(event, DIRECTOR).post("/v1/director/link", json={"token": 12}, headers=SAME)
    assert refused.status_code == 422 and "12" not in refused.json["detail"]  # a token is never echoed
    with sqlite3.connect(event.path) as conn:
        stored = "".join(str(row) for row in conn.execute("SELECT * FROM login_links"))
    assert token not in stored and late not in stored


def test_a_new_password_ends_every_session_every_unused_login_link_and_the_limits(event):
    director = client(event, DIRECTOR)
    assert login(director).status_code == 201
    for _ in range(5):
        login(client(event, ATTACKER), "wrong-wrong-wrong")
    link = event.db.new_login_link()  # made before the change: it must not outlive it
    event.db.set_password("a-brand-new-password")
    event.clock.advance(seconds=1)
    problem(director.get("/v1/devices"), 401, "director-required")
    problem(client(event, DIRECTOR).post("/v1/director/link", json={"token": link}, headers=SAME), 401, "link-refused")
    fresh = event.db.new_login_link()  # one made after it works
    assert client(event, DIRECTOR).post("/v1/director/link", json={"token": fresh}, headers=SAME).status_code == 201
    problem(login(director), 401, "wrong-password")
    assert login(client(event, ATTACKER), "a-brand-new-password").status_code == 201


# -- B: the browser's scheme, host and port behind a front end ---------------------------------------


def test_the_cookie_is_secure_when_a_trusted_front_end_says_https(proxied):
    through = client(proxied, PROXY)
    cookie = login(through, **{"X-Forwarded-Proto": "https"}).headers["Set-Cookie"]
    assert "Secure" in cookie
    spoofed = login(client(proxied, ATTACKER), **{"X-Forwarded-Proto": "https"}).headers["Set-Cookie"]
    assert "Secure" not in spoofed  # a client's own header says nothing


def test_of_a_chained_forwarded_proto_only_the_nearest_front_end_s_counts(proxied):
    """A front end that appends to X-Forwarded-Proto (as X-Forwarded-For is appended to) passes on
    what the client wrote before its own value: the last one is the trusted front end's."""
    through = client(proxied, PROXY)
    assert "Secure" not in login(through, **{"X-Forwarded-Proto": "https, http"}).headers["Set-Cookie"]
    assert "Secure" in login(through, **{"X-Forwarded-Proto": "http, https"}).headers["Set-Cookie"]


def test_the_console_and_its_pairing_url_work_on_any_port(proxied):
    through = client(proxied, PROXY)
    hall = {"X-Forwarded-For": DIRECTOR}  # nginx says whose request it passes on (a loopback one would be the laptop's)
    browser = {"Host": "judge.lan:8243", "Origin": "https://judge.lan:8243", "X-Forwarded-Proto": "https", **hall}
    assert through.post("/v1/director/session", json={"password": PASSWORD}, headers=browser).status_code == 201
    added = through.post("/v1/devices", json={"name": "Juez 1", "role": "judge"}, headers=browser)
    assert added.status_code == 201, added.json
    assert added.json["pairing_url"] == f"https://judge.lan:8243/#pair={added.json['code']}"
    # a default port written in Host (nginx's $host:$server_port) and left out of Origin is the same origin
    default = {"Host": "judge.lan:443", "Origin": "https://judge.lan", "X-Forwarded-Proto": "https", **hall}
    assert through.post("/v1/rounds", json={}, headers=default).status_code == 201
    other = {"Host": "judge.lan:8243", "Origin": "https://judge.lan:8244", **hall}
    problem(through.post("/v1/rounds/close", headers=other), 403, "cross-origin")


def test_trusted_proxies_are_one_setting_given_to_gunicorn_too():
    assert options(load_settings({}, {}))["forwarded_allow_ips"] == ""  # none by default, not gunicorn's 127.0.0.1
    settings = load_settings({"LEXICON_TRUSTED_PROXIES": "127.0.0.2, 10.0.0.0/8"}, {})
    assert settings.trusted_proxies == ("127.0.0.2/32", "10.0.0.0/8")
    assert options(settings)["forwarded_allow_ips"] == "127.0.0.2/32,10.0.0.0/8"


@pytest.mark.parametrize("value", ["nginx.lan", "10.0.0.0/33", ","])
def test_a_trusted_proxy_that_is_no_address_is_refused(value):
    from service.config import SettingsError

    with pytest.raises(SettingsError, match="LEXICON_TRUSTED_PROXIES"):
        load_settings({"LEXICON_TRUSTED_PROXIES": value}, {})
