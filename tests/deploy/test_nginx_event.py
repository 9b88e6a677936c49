"""deploy/nginx.conf in front of instances running an event (tournament mode), on a port that is not
443 and from an address that may not be 127.0.0.1 (LEXICON_TRUSTED_PROXIES):

- the director's console logs in (the Origin's port is the Host's: nginx passes the browser's
  Host on), its cookie is Secure (the instance believes nginx's X-Forwarded-Proto), and a
  pairing URL keeps the port, over HTTP/1.1 and HTTP/2;
- a challenge that reached an instance which died before answering is never sent to another
  (it may have been recorded there): the client asks again with its idempotency key, one row.
"""

from __future__ import annotations

import json
import shutil
import socket
import struct
import subprocess
import threading

import pytest

from tests.support import LiveServer
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
    instance killed after it recorded a challenge and before its answer left. Keeps the keys seen."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.keys: list[str] = []
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
                if body:
                    self.keys.append(json.loads(body).get("idempotency_key"))
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def close(self) -> None:
        self.server.close()


def test_a_challenge_that_reached_a_dying_instance_is_not_sent_to_another(
    tmp_path, nginx_binary, spanish_file, event_path
):
    dying, instance, proxy = DyingInstance(), None, None
    try:
        instance = LiveServer(
            tmp_path, [spanish_file], LEXICON_EVENT=str(event_path), LEXICON_TRUSTED_PROXIES="127.0.0.1"
        )
        instance.wait_ready()
        proxy = Nginx(nginx_binary, tmp_path, [instance], ports=[dying.port, instance.port])
        plays = [
            json.dumps({"lexicon": "es", "words": ["CARRO"], "idempotency_key": f"key-{n:04}"}).encode()
            for n in range(6)
        ]
        answers = [proxy.request("POST", "/v1/challenge", play, HEADERS) for play in plays]
        assert dying.keys, "nginx sent no challenge to the dying instance"
        recorded = {row.entry.idempotency_key for row in open_event(event_path, readonly=True).records()}
        assert not recorded & set(dying.keys)  # what reached it was not sent on to be recorded again
        for play, (status, headers, body) in zip(plays, answers, strict=True):
            if status != 200:  # the page asks again, with the same key
                assert status == 503 and headers["Content-Type"] == "application/problem+json"
                status, _, body = proxy.request("POST", "/v1/challenge", play, HEADERS)
            assert status == 200, body
        keys = [row.entry.idempotency_key for row in open_event(event_path, readonly=True).records()]
        assert sorted(keys) == [f"key-{n:04}" for n in range(6)]  # each challenge one row
    finally:
        if proxy is not None:
            proxy.stop()
        if instance is not None:
            instance.stop()
        dying.close()
