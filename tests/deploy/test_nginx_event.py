"""deploy/nginx.conf in front of instances running an event (tournament mode), on a port that is not
443 and from an address that may not be 127.0.0.1 (LEXICON_TRUSTED_PROXIES):

- the director's console logs in (the Origin's port is the Host's: nginx passes the browser's
  Host on), its cookie is Secure (the instance believes nginx's X-Forwarded-Proto), and a
  pairing URL keeps the port, over HTTP/1.1 and HTTP/2;
- a challenge that reached an instance which died before answering is never sent to another
  (it may have been recorded there): the client asks again with its idempotency key, one row;
- no POST, by any route, is sent to a second instance once it reached one; a GET is, and a GET
  records nothing in an event (405: challenges there are POSTed); a DELETE is, and doing one
  twice (a device revoked, a session ended) is doing it once.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import shutil
import socket
import struct
import subprocess
import threading

import pytest

from tests.support import LiveServer, stop_soon, until
from tournament import create_event, open_event

from .test_nginx import HEADERS, Nginx

PASSWORD = "correct-horse-battery"


@pytest.fixture
def event_path(tmp_path):
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es").close()
    return path


@pytest.mark.parametrize("bind", ["127.0.0.1", "127.0.0.2"])
def test_the_console_works_through_nginx_on_any_port_with_a_secure_cookie(
    tmp_path, nginx_binary, spanish_file, event_path, bind
):
    instance = LiveServer(tmp_path, [spanish_file], LEXICON_EVENT=str(event_path), LEXICON_TRUSTED_PROXIES=bind)
    proxy = None
    try:
        instance.wait_ready()
        proxy = Nginx(nginx_binary, tmp_path, [instance], bind=bind)
        origin = f"https://127.0.0.1:{proxy.port}"  # what the browser sends: the port it used
        status, headers, body = proxy.request(
            "POST", "/v1/director/session", json.dumps({"password": PASSWORD}).encode(), {**HEADERS, "Origin": origin}
        )
        assert status == 201, body
        cookie = headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie
        session = {**HEADERS, "Origin": origin, "Cookie": cookie.split(";")[0]}
        status, _, body = proxy.request(
            "POST", "/v1/devices", json.dumps({"name": "Juez 1", "role": "judge"}).encode(), session
        )
        assert status == 201, body
        added = json.loads(body)
        assert added["pairing_url"] == f"{origin}/#pair={added['code']}"
        if shutil.which("curl"):  # HTTP/2 sends no Host header (:authority): nginx builds it with the port
            done = subprocess.run(
                [
                    "curl",
                    "-sk",
                    "--http2",
                    "-o",
                    "/dev/null",
                    "-w",
                    "%{http_version} %{http_code}",
                    "-H",
                    f"Origin: {origin}",
                    "-H",
                    "Content-Type: application/json",
                    "-d",
                    json.dumps({"password": PASSWORD}),
                    f"{origin}/v1/director/session",
                ],
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert done.stdout == "2 201", done
    finally:
        if proxy is not None:
            proxy.stop()
        instance.stop()


class DyingInstance:
    """An upstream that reads each request whole and dies before answering (a reset): as an
    instance killed after it recorded a challenge and before its answer left. Keeps the keys seen.
    `ready`: it answers GET /readyz (an instance that dies only at work)."""

    def __init__(self, ready: bool = False):
        self.ready = ready
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.keys: list[str] = []
        self.lines: list[str] = []  # the request lines it read
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                while len(body) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    body += chunk
                self.lines.append(head.split(b"\r\n", 1)[0].decode())
                if self.ready and self.lines[-1].startswith("GET /readyz "):
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                    continue
                if body:
                    self.keys.append(json.loads(body).get("idempotency_key"))
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def close(self) -> None:
        """Its thread ended (shutdown() wakes its accept()), then its socket closed. Closed under a
        thread still in accept(), a dying instance's thread woke in a later test (EBADF; ENOTSOCK:
        its descriptor's number reused), and that test's dying instance had its connections reset
        before it read them: no challenge reached it."""
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)
        self.thread.join(10)
        assert not self.thread.is_alive(), "the dying instance's thread did not end"
        self.server.close()


def test_a_challenge_that_reached_a_dying_instance_is_not_sent_to_another(
    tmp_path, nginx_binary, spanish_file, event_path
):
    # The dying instance answers /readyz: nginx's start is awaited with one, and a failed one would
    # take it out of the round robin for fail_timeout, so that no challenge might reach it. One
    # worker: one round robin, so every other request goes to it until the first one dies there.
    dying, instance, proxy = DyingInstance(ready=True), None, None
    try:
        instance = LiveServer(
            tmp_path, [spanish_file], LEXICON_EVENT=str(event_path), LEXICON_TRUSTED_PROXIES="127.0.0.1"
        )
        instance.wait_ready()
        proxy = Nginx(nginx_binary, tmp_path, [instance], ports=[dying.port, instance.port], workers=1)
        plays = [
            json.dumps({"lexicon": "es", "words": ["CARRO"], "idempotency_key": f"key-{n:04}"}).encode()
            for n in range(6)
        ]
        answers = [proxy.request("POST", "/v1/challenge", play, HEADERS) for play in plays]
        assert dying.keys, f"nginx sent no challenge to the dying instance: {dying.lines}"
        recorded = {row.entry.idempotency_key for row in open_event(event_path, readonly=True).records()}
        assert not recorded & set(dying.keys)  # what reached it was not sent on to be recorded again
        for play, (status, headers, body) in zip(plays, answers, strict=True):
            # The page asks again, with the same key, until answered. Once the dying instance's
            # fail_timeout (5 s) has passed it is in the round robin again and may take a retry too
            # (on a loaded machine the six challenges above can take that long): a refusal each time.
            for _ in range(5):
                if status == 200:
                    break
                assert status == 503 and headers["Content-Type"] == "application/problem+json", body
                status, headers, body = proxy.request("POST", "/v1/challenge", play, HEADERS)
            assert status == 200, body
        keys = [row.entry.idempotency_key for row in open_event(event_path, readonly=True).records()]
        assert sorted(keys) == [f"key-{n:04}" for n in range(6)]  # each challenge one row
    finally:
        if proxy is not None:
            proxy.stop()
        if instance is not None:
            instance.stop()
        dying.close()


def logged(proxy: Nginx) -> dict | None:
    """The access log's line of the one request sent through `proxy` beside its readiness checks, once written."""
    lines = [json.loads(line) for line in proxy.access_log.read_text().splitlines()]
    found = [line for line in lines if line["path"] != "/readyz"]  # (a refusal nginx makes may log another method)
    return found[-1] if found else None


def writing_routes(instance: LiveServer) -> list[tuple[str, str]]:
    """Every operation of the event's service that writes (any method but GET), from its own
    document, which lists every route (test_http.py), and the GET of a challenge: as requests."""
    status, body = instance.get("/openapi.json")
    assert status == 200
    document = json.loads(body)
    found = [
        (method.upper(), re.sub(r"\{\w+\}", "1", path))
        for path, item in document["paths"].items()
        for method in item
        if method not in ("get", "head", "parameters")
    ]
    assert {("POST", "/v1/challenge"), ("POST", "/v1/challenges"), ("DELETE", "/v1/devices/1")} <= set(found)
    return [*found, ("GET", "/v1/challenge?lexicon=es&word=CARRO")]


def test_nothing_that_records_is_sent_to_another_instance_once_it_reached_one(
    tmp_path, nginx_binary, spanish_file, event_path
):
    """An instance killed mid-request, for every route that writes: nginx answers 503 and leaves
    a POST alone (the client asks again; a challenge with the same key). A GET of a challenge goes
    on to the next instance, which in an event refuses it (405) and records nothing; so does a
    DELETE, which changes nothing the second time."""
    dying, instance = DyingInstance(ready=True), None
    try:
        instance = LiveServer(
            tmp_path, [spanish_file], LEXICON_EVENT=str(event_path), LEXICON_TRUSTED_PROXIES="127.0.0.1"
        )
        instance.wait_ready()
        for index, (method, path) in enumerate(writing_routes(instance)):
            folder = tmp_path / f"nginx-{index}"
            folder.mkdir()
            proxy = Nginx(nginx_binary, folder, [instance], ports=[dying.port, instance.port], workers=1)
            try:
                for _ in range(2):  # one round robin: until the live instance answered last, the dying one is next
                    seen = len(dying.lines)
                    assert proxy.request("GET", "/readyz")[0] == 200
                    if len(dying.lines) == seen:
                        break
                body = None if method == "GET" else b"{}"
                status, headers, answer = proxy.request(method, path, body, HEADERS)
                line = until(functools.partial(logged, proxy), f"nginx's log line of {method} {path}")
            finally:
                proxy.stop()
            assert dying.lines[-1].startswith(f"{method} {path.split('?')[0]}"), (method, path, dying.lines)
            tried = line["upstream"].split(", ")
            if method == "GET":  # retried, and refused: a GET never records in an event
                assert tried == [f"127.0.0.1:{dying.port}", f"127.0.0.1:{instance.port}"], line
                assert status == 405 and headers["Allow"] == "OPTIONS, POST", answer
            elif method == "DELETE":  # idempotent to HTTP, and here: a device revoked or a session ended twice is once
                assert tried == [f"127.0.0.1:{dying.port}", f"127.0.0.1:{instance.port}"], line
                assert status in (204, 401), answer  # (a device needs the director: nothing done)
            else:
                assert tried == [f"127.0.0.1:{dying.port}"], (method, path, line)
                assert status == 503 and headers["Content-Type"] == "application/problem+json", answer
        db = open_event(event_path, readonly=True)
        assert list(db.records()) == [] and db.devices() == [] and db.current_round() is None
        db.close()
    finally:
        if instance is not None:
            instance.stop()
        dying.close()


def test_the_installed_apps_steps_pair_a_phone_through_nginx_on_the_laptop(tmp_path, nginx_binary, spanish_file):
    """judge-page.md's "The installed app", step 2, as written: the event served on the laptop with
    the settings it gives, nginx in front. The console at the laptop's own address gives QR codes of
    the name the phones use, and a phone of the hall pairs through nginx under that name (without
    LEXICON_TRUSTED_PROXIES it was this computer naming another host: 403 foreign-host)."""
    from tests.support import REPO

    doc = (REPO / "docs" / "judge-page.md").read_text(encoding="utf-8")
    command = re.search(r"^ *LEXICON_EVENT=open-lleida\.db ((?:LEXICON_[A-Z_]+=\S+ )*)lexicon serve$", doc, re.M)
    assert command, "judge-page.md's step 2 says how to serve the event behind nginx"
    settings = dict(pair.split("=", 1) for pair in command.group(1).split())
    assert settings.get("LEXICON_TRUSTED_PROXIES") == "127.0.0.1"
    event = tmp_path / "open-lleida.db"
    create_event(event, "Open de Lleida 2026", PASSWORD, lexicon="es").close()
    instance = LiveServer(tmp_path, [spanish_file], LEXICON_EVENT=str(event), **settings)
    proxy = None
    try:
        instance.wait_ready()
        proxy = Nginx(nginx_binary, tmp_path, [instance])
        laptop = {**HEADERS, "Origin": instance.url}
        status, headers, body = instance.request(
            "POST", "/v1/director/session", json.dumps({"password": PASSWORD}).encode(), laptop
        )
        assert status == 201, body
        laptop["Cookie"] = dict(headers)["Set-Cookie"].split(";")[0]
        status, _, body = instance.request(
            "POST", "/v1/devices", json.dumps({"name": "Juez 1", "role": "judge"}).encode(), laptop
        )
        assert status == 201, body
        added = json.loads(body)
        assert added["pairing_url"] == f"{settings['LEXICON_PUBLIC_URL']}#pair={added['code']}", added
        name = f"{settings['LEXICON_PUBLIC_URL'].split('/')[2]}:{proxy.port}"  # the phone's browser, by the name
        # a phone of the hall's network (10.42.0.23): this test's client is the laptop itself, so it says
        # the address nginx would have seen, and nginx appends its own (127.0.0.1, the trusted hop)
        phone = {**HEADERS, "Host": name, "Origin": f"https://{name}", "X-Forwarded-For": "10.42.0.23"}
        status, _, body = proxy.request("POST", "/v1/devices/pair", json.dumps({"code": added["code"]}).encode(), phone)
        assert status == 201, body
    finally:
        if proxy is not None:
            proxy.stop()
        stop_soon(instance)
