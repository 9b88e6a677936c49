"""deploy/nginx.conf, as shipped, with Debian's nginx in front of two real `lexicon serve` instances.

The file is rendered the way docs/operations.md says (its ${NAME} settings replaced, nothing else), for
loopback ports and a temporary directory, with a self-signed certificate; nginx runs in the
foreground with its own prefix, pid and logs. Then, through TLS:

- verdicts through nginx are the same bytes as from an instance directly;
- killing one instance with SIGKILL under load loses no request (nginx tries the next one with
  what never reached the killed one; the client asks again for what did);
- reloading an instance (SIGHUP to its master: new workers, old ones finish) under load loses none;
- nginx's own refusals (size, rate: limit_req on /v1/ and /e/ID/v1/ only) are problem+json, over HTTP/2 too
  (curl), logged as the request that came; its access log holds no word;
- the plain-HTTP server, which redirects to https, refuses what it cannot read with the same problems.
"""

from __future__ import annotations

import email.parser
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

from bench import tether
from service import gunicorn_conf
from service.reloading import pid_file
from tests.support import REPO, LiveServer, free_port, stop_soon, until

SETTINGS = (
    "NGINX_USER",
    "NGINX_STATE",
    "UPSTREAMS",
    "HTTP_PORT",
    "HTTPS_PORT",
    "SERVER_NAME",
    "TLS_CERT",
    "TLS_KEY",
    "API_RATE",
    "API_BURST",
)
PLAY = json.dumps({"lexicon": "es", "words": ["CARRO", "CHICO"]}).encode()
NOT_VALID = json.dumps({"lexicon": "es", "words": ["CARRO", "ZURDO"]}).encode()
HEADERS = {"Content-Type": "application/json"}


def render(values: dict[str, str]) -> str:
    """deploy/nginx.conf rendered by docs/operations.md's own envsubst command, with these settings."""
    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    command = re.search(r"^envsubst '([^']*)' < deploy/nginx.conf > /etc/nginx/nginx.conf$", doc, re.M | re.S)
    assert command, "docs/operations.md shows how to render deploy/nginx.conf"
    names = command.group(1).split()
    assert sorted(name.strip("${}") for name in names) == sorted(SETTINGS)
    text = (REPO / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    assert set(re.findall(r"\$\{([A-Z_]+)\}", text)) == set(SETTINGS)  # every setting, and only those
    done = subprocess.run(
        ["envsubst", command.group(1)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **values},
    )
    assert "${" not in done.stdout
    return done.stdout


def copy_included(folder: Path) -> None:
    """The files deploy/nginx.conf includes, copied into `folder` (where the rendered file goes) by
    docs/operations.md's own commands."""
    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    copied = re.findall(r"^cp deploy/(\S+) /etc/nginx/$", doc, re.M)
    text = (REPO / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    included = re.findall(r"^\s*include ([^$\s]+);", text, re.M)
    assert copied and sorted(set(included)) == sorted(copied), (copied, included)
    for name in copied:
        shutil.copyfile(REPO / "deploy" / name, folder / name)


def made_by_the_docs(state: Path) -> None:
    """NGINX_STATE made by docs/operations.md's own command: nginx makes no folder of its own, and
    without it does not start (`open() "…/nginx.pid" failed`), which the docs did not say."""
    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    (command,) = re.findall(r'^mkdir -p "\$NGINX_STATE"$', doc, re.M)
    assert f"#   {command}\n" in (REPO / "deploy" / "nginx.conf").read_text(encoding="utf-8")  # and the file's head
    subprocess.run(["sh", "-c", command], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NGINX_STATE": str(state)},
                   check=True)  # fmt: skip
    assert state.is_dir()


class Nginx:
    def __init__(
        self,
        binary: str,
        folder: Path,
        instances: list[LiveServer],
        rate: str = "10000r/s",
        burst: str = "10000",
        ports: list[int] | None = None,
        bind: str | None = None,
        workers: int | None = None,
        bare_ports: bool = False,
    ):
        """`ports`: the upstreams' ports (default: the instances'); `bind`: the address nginx connects
        to them from (`proxy_bind`, added to the rendered file), as a front end on another machine;
        `workers`: nginx's worker processes instead of one per core (one: a single round robin);
        `bare_ports`: HTTP_PORT and HTTPS_PORT as ports alone, as docs/operations.md's example
        (nginx then listens on every address), rather than loopback addresses with their ports."""
        self.folder = folder
        state = folder / "state"
        made_by_the_docs(state)
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=localhost",
                "-keyout",
                str(folder / "key.pem"),
                "-out",
                str(folder / "cert.pem"),
            ],
            check=True,
            capture_output=True,
        )
        upstreams = folder / "upstreams.conf"
        ports = [i.port for i in instances] if ports is None else ports
        upstreams.write_text("".join(f"server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n" for port in ports))
        host = "0.0.0.0" if bare_ports else "127.0.0.1"  # where it listens: ports free there
        self.port = free_port(host)
        self.http_port = free_port(host)  # the plain-HTTP server's: a redirect to https
        values = {  # root: the test's temporary folders are its own; a server uses www-data
            "NGINX_USER": "root",
            "NGINX_STATE": str(state),
            "UPSTREAMS": str(upstreams),
            "HTTP_PORT": f"{'' if bare_ports else '127.0.0.1:'}{self.http_port}",
            "HTTPS_PORT": f"{'' if bare_ports else '127.0.0.1:'}{self.port}",
            "SERVER_NAME": "localhost",
            "TLS_CERT": str(folder / "cert.pem"),
            "TLS_KEY": str(folder / "key.pem"),
            "API_RATE": rate,
            "API_BURST": burst,
        }
        self.conf = folder / "nginx.conf"
        rendered = render(values)
        if bind is not None:
            rendered = rendered.replace(
                "        proxy_http_version 1.1;\n", f"        proxy_http_version 1.1;\n        proxy_bind {bind};\n", 1
            )
            assert f"proxy_bind {bind};" in rendered
        if workers is not None:
            rendered = rendered.replace("worker_processes auto;", f"worker_processes {workers};", 1)
            assert f"worker_processes {workers};" in rendered
        self.conf.write_text(rendered)
        copy_included(folder)
        self.access_log = state / "access.log"
        self.error_log = state / "error.log"
        with open(folder / "nginx.stderr", "wb") as stderr:  # nginx has its own copy
            self.process = tether.start(  # SIGTERM, a fast stop of its workers too, if this process ends
                [binary, "-p", str(state), "-c", str(self.conf), "-g", "daemon off;"],
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"nginx exited: {(folder / 'nginx.stderr').read_text()}")
            try:
                if self.request("GET", "/readyz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        pytest.fail("nginx not answering")

    def connection(self) -> http.client.HTTPSConnection:
        context = ssl.create_default_context(cafile=str(self.folder / "cert.pem"))
        context.check_hostname = False
        return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=20, context=context)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        connection = self.connection()
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.headers, response.read()  # get_all: a header sent twice
        finally:
            connection.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful shutdown
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # its workers too
                self.process.wait(5)


@pytest.fixture
def deployment(tmp_path, nginx_binary, spanish_file):
    instances = [LiveServer(tmp_path, [spanish_file], workers=1) for _ in range(2)]
    proxy = None
    try:
        for instance in instances:
            instance.wait_ready()
        proxy = Nginx(nginx_binary, tmp_path, instances)
        yield proxy, instances
    finally:
        if proxy is not None:
            proxy.stop()
        for instance in instances:
            stop_soon(instance)


class Load:
    """`clients` threads asking verdicts through nginx on kept-alive connections, checking every answer."""

    def __init__(self, proxy: Nginx, expected: dict[bytes, bytes], clients: int = 8):
        self.proxy, self.expected = proxy, expected
        self.done, self.failures, self.cut = 0, [], 0
        self.clients = clients
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]

    def answered(self, count: int, what: str) -> int:
        """Waits until `count` verdicts have been answered as expected (or one was not): how many."""
        return until(lambda: self.failures or self.done >= count, what) and self.done

    def _ask(self, connection, body: bytes):
        connection.request("POST", "/v1/challenge", body=body, headers=HEADERS)
        response = connection.getresponse()
        return response.status, response.read()

    def _again(self, connection, body: bytes):
        """The client asks once more, as the judge's page does (counted, and bounded by the test)."""
        with self._lock:
            self.cut += 1
        try:
            return self._ask(connection, body)
        except (OSError, http.client.HTTPException) as error:
            return ("error", repr(error))

    def _run(self) -> None:
        connection = self.proxy.connection()
        while not self._stop.is_set():
            for body, answer in self.expected.items():
                try:
                    got = self._ask(connection, body)
                except http.client.IncompleteRead:
                    # An instance killed between writing its answer's head and its body: nginx has
                    # already passed the head on, so it cannot try the next instance itself. The
                    # answer arrived cut, never wrong; a verdict changes nothing, so the client asks
                    # again. Counted, and bounded by the test.
                    connection.close()
                    connection = self.proxy.connection()
                    got = self._again(connection, body)
                except (OSError, http.client.HTTPException) as error:
                    got = ("error", repr(error))
                    connection.close()
                    connection = self.proxy.connection()
                if got[0] == 503 and b"no instance of the service answered" in got[1]:
                    # A POST that reached the instance killed: nginx does not send it to another
                    # (in an event it may have been recorded there), and says so. The client asks
                    # again, as the judge's page does with its idempotency key. Counted, bounded.
                    got = self._again(connection, body)
                with self._lock:
                    if got == (200, answer):
                        self.done += 1
                    else:
                        self.failures.append(got)
        connection.close()

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)


def expected_answers(instance: LiveServer) -> dict[bytes, bytes]:
    answers = {}
    for body in (PLAY, NOT_VALID):
        status, _, answer = instance.request("POST", "/v1/challenge", body, HEADERS)
        assert status == 200
        answers[body] = answer
    return answers


def own_problem(headers) -> None:
    """An answer nginx gave itself carries the headers each of the service's own answers does, once."""
    assert headers.get_all("Content-Type") == ["application/problem+json"]
    assert headers.get_all("Cache-Control") == ["no-store"]
    assert headers.get_all("X-Content-Type-Options") == ["nosniff"]


def test_nginx_lets_go_of_an_idle_connection_to_an_instance_before_the_instance_does():
    """A POST is never sent to a second instance (test_nginx_event.py): one written to a kept-alive
    connection just as its instance closes it for idleness would be a 503 for a challenge no instance
    read. nginx's idle time for those connections (its default is 60 s) is below gunicorn's."""
    text = (REPO / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    (block,) = re.findall(r"^    upstream lexicon \{\n(.*?)^    \}", text, re.M | re.S)
    idle = re.findall(r"^ *keepalive_timeout (\d+)s;", block, re.M)
    assert idle and int(idle[0]) < gunicorn_conf.keepalive, (idle, gunicorn_conf.keepalive)


def test_verdicts_through_nginx_are_the_same_bytes(deployment):
    proxy, instances = deployment
    direct = expected_answers(instances[0])
    assert direct == expected_answers(instances[1])
    for body, answer in direct.items():
        for _ in range(4):  # both instances, in turn
            status, headers, got = proxy.request("POST", "/v1/challenge", body, HEADERS)
            assert status == 200 and got == answer and headers["Content-Type"] == "application/json"
    status, _, got = proxy.request("GET", "/v1/challenge?lexicon=es&word=CARRO&word=CHICO")
    assert status == 200 and got == direct[PLAY]
    # the service's own headers pass as they were sent: none added, none twice
    for path in ("/v1/challenge?lexicon=es&word=CARRO", "/v1/lexicons", "/v1/nothing-here"):
        _, sent, _ = instances[0].request("GET", path)
        _, passed, _ = proxy.request("GET", path)
        for name in ("Cache-Control", "X-Content-Type-Options"):
            assert passed.get_all(name) == [value for key, value in sent if key == name], (path, name)


def test_killing_one_instance_under_load_loses_no_request(deployment):
    proxy, instances = deployment
    expected = expected_answers(instances[0])
    with Load(proxy, expected) as load:
        before = load.answered(4 * load.clients, "answers through nginx before the kill")
        os.killpg(instances[0].process.pid, signal.SIGKILL)  # master and worker: the group this test started
        instances[0].process.wait(10)
        pid_file(instances[0].port).unlink(missing_ok=True)  # what a killed master leaves behind
        # every client has asked again since: nginx has met the instance gone on each connection
        load.answered(before + 8 * load.clients, "answers through nginx after the kill")
    assert load.failures == []
    # at most the requests in flight on the killed instance, or sent on a connection nginx had kept
    # to it, each asked again
    assert load.cut <= 2 * load.clients
    assert before > 0 and load.done > before  # answered before and after the kill
    assert instances[1].process.poll() is None


def test_reloading_one_instance_under_load_loses_no_request(deployment):
    proxy, instances = deployment
    expected = expected_answers(instances[0])
    with Load(proxy, expected) as load:
        load.answered(4 * load.clients, "answers through nginx before the reloads")
        for instance in instances:  # gunicorn: new workers, the old ones finish what they accepted
            booted = instance.logs().count("Booting worker")
            instance.process.send_signal(signal.SIGHUP)
            instance.logged(
                lambda logs, booted=booted: "Hang up" in logs and logs.count("Booting worker") > booted,
                "a new worker booted after SIGHUP",
            )
            load.answered(load.done + 8 * load.clients, "answers through nginx after the reload")
    assert load.failures == []


def test_nginx_refusals_are_problems_and_its_log_holds_no_word(deployment):
    proxy, _ = deployment
    status, headers, body = proxy.request("POST", "/v1/challenge", b"x" * 20000, HEADERS)
    assert status == 413 and json.loads(body)["limit"] == 16384
    own_problem(headers)
    status, headers, body = proxy.request("GET", "/v1/challenge?lexicon=es&word=" + "ZAPATERO" * 1200)
    assert status == 414 and b"ZAPATERO" not in body
    own_problem(headers)
    status, headers, _ = proxy.request("GET", "/readyz", headers={"X-Long": "x" * 9000})  # a header over 8 KiB
    assert status == 400
    own_problem(headers)
    proxy.request("GET", "/v1/challenge%3Flexicon=es%26word=PERRUNO")
    proxy.request("GET", "/v1/challenge?lexicon=es&word=MESILLA")
    proxy.request("POST", "/v1/challenge?word=TORTUGA", b"x" * 20000, HEADERS)  # nginx's 413 names the request
    proxy.request("GET", "/v1/BALLENA/x")  # a path the service does not serve
    proxy.request("CASTOR", "/v1/challenge")  # a method that is no method
    proxy.request("GET", "/e/open-lleida/v1/records/12")  # an event's route in a service of every event
    proxy.request("GET", "/e/open-lleida/LECHUZA")
    proxy.stop()
    log = proxy.access_log.read_text()
    lines = [json.loads(line) for line in log.splitlines()]
    assert lines and all("?" not in line["path"] for line in lines)
    assert {"[no route]", "/v1/challenge"} <= {line["path"] for line in lines} and "[other]" in log
    # (the two last requests' lines in either order: each nginx worker writes its own after answering)
    assert sorted(line["path"] for line in lines[-2:]) == ["/v1/records/<int:seq>", "[no route]"]
    both = log + proxy.error_log.read_text()
    for word in ("ZAPATERO", "PERRUNO", "MESILLA", "word=", "TORTUGA", "BALLENA", "CASTOR", "LECHUZA"):
        assert word not in both


def raw_exchange(proxy: Nginx, sent: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
    """A request as bytes over TLS, which http.client would not send (an unknown Transfer-Encoding,
    HTTP/9.9): nginx's answer, read until it closes the connection."""
    context = ssl.create_default_context(cafile=str(proxy.folder / "cert.pem"))
    context.check_hostname = False
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=20) as plain, context.wrap_socket(plain) as tls:
        return _answer(tls, sent)


def _answer(connection: socket.socket, sent: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
    """`sent` over the connection, and nginx's answer read until it closes it: status, head, body."""
    connection.sendall(sent)
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, _, fields = head.decode("latin-1").partition("\r\n")
    return int(status_line.split()[1]), email.parser.Parser(_class=http.client.HTTPMessage).parsestr(fields), body


def test_a_transfer_encoding_or_a_version_nginx_does_not_speak_is_a_problem(deployment):
    """nginx answers these itself, before any instance: a body in a Transfer-Encoding it does not
    read (501) and HTTP/9.9 (505) were its HTML pages; they are problems as its others are, the
    501 logged as the request that came."""
    proxy, _ = deployment
    for sent, status in (
        (b"POST /v1/challenge HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: xchunked\r\n\r\n", 501),
        (b"GET /readyz HTTP/9.9\r\nHost: localhost\r\n\r\n", 505),
    ):
        got, headers, body = raw_exchange(proxy, sent)
        assert got == status and json.loads(body)["status"] == status, body
        own_problem(headers)
    proxy.stop()
    logged = [json.loads(line) for line in proxy.access_log.read_text().splitlines()]
    assert ("POST", "/v1/challenge", 501) in {(line["method"], line["path"], line["status"]) for line in logged}


def plain_exchange(proxy: Nginx, sent: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
    """A request as bytes to the plain-HTTP server: nginx's answer, read until it closes."""
    with socket.create_connection(("127.0.0.1", proxy.http_port), timeout=20) as plain:
        return _answer(plain, sent)


def test_the_plain_http_server_redirects_and_answers_what_it_cannot_read_as_problems(deployment):
    """The port that only redirects to https answered a request it could not read with nginx's HTML
    page; it answers as the TLS server does: the same problems, with the same headers."""
    proxy, _ = deployment
    close = b"Host: localhost\r\nConnection: close\r\n"
    status, headers, _ = plain_exchange(proxy, b"GET /v1/lexicons?x=1 HTTP/1.1\r\n" + close + b"\r\n")
    assert status == 308  # to where: the test of the redirect's port, below
    for sent, status in (
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET /readyz HTTP/1.1\r\n" + close + b"X-Long: " + b"x" * 9000 + b"\r\n\r\n", 400),
        (b"GET /" + b"x" * 9000 + b" HTTP/1.1\r\n" + close + b"\r\n", 414),
        (b"GET /readyz HTTP/9.9\r\n" + close + b"\r\n", 505),
        (b"POST /v1/challenge HTTP/1.1\r\n" + close + b"Transfer-Encoding: xchunked\r\n\r\n", 501),
        (b"POST /v1/challenge HTTP/1.1\r\n" + close + b"Content-Length: 20000\r\n\r\n" + b"x" * 20000, 413),
    ):
        got, headers, body = plain_exchange(proxy, sent)
        assert got == status and json.loads(body)["status"] == status, (sent[:40], got, body)
        own_problem(headers)
        _, tls_headers, tls_body = raw_exchange(proxy, sent)  # the TLS server's own answer: the same
        assert tls_body == body and tls_headers.get_all("Content-Type") == headers.get_all("Content-Type"), sent[:40]


def test_the_redirect_to_https_names_its_port_whether_the_setting_is_a_port_or_an_address(
    tmp_path, deployment, nginx_binary
):
    """HTTPS_PORT is what `listen` takes: a port, or an address and its port. The redirect put it
    after the host as it was, `https://localhost:127.0.0.1:8443/`, no address a browser can
    open; it names the port alone in either form, after the host the browser asked for."""
    proxy, instances = deployment
    folder = tmp_path / "bare"
    folder.mkdir()
    bare = Nginx(nginx_binary, folder, instances, bare_ports=True)
    try:
        sent = b"GET /v1/lexicons?x=1 HTTP/1.1\r\nHost: judge.example:80\r\nConnection: close\r\n\r\n"
        for server in (proxy, bare):
            status, headers, _ = plain_exchange(server, sent)
            assert status == 308 and headers["Location"] == f"https://judge.example:{server.port}/v1/lexicons?x=1"
    finally:
        bare.stop()


def test_no_instance_answering_is_a_503_problem(deployment):
    proxy, instances = deployment
    for instance in instances:
        os.killpg(instance.process.pid, signal.SIGKILL)  # the groups this test started
        instance.process.wait(10)
        pid_file(instance.port).unlink(missing_ok=True)
    status, headers, body = proxy.request("POST", "/v1/challenge", PLAY, HEADERS)
    assert status == 503 and json.loads(body)["status"] == 503
    own_problem(headers)
    assert headers.get_all("Retry-After") == ["5"] and json.loads(body)["retry_after"] == 5
    proxy.stop()
    refused = [json.loads(line) for line in proxy.access_log.read_text().splitlines()][-1]
    assert (refused["method"], refused["path"], refused["status"]) == ("POST", "/v1/challenge", 503)


def curl(proxy: Nginx, *arguments: str, body: bytes = b"") -> tuple[int, dict, bytes]:
    """Debian's curl (libcurl with nghttp2) asking nginx: the status, headers and body it got."""
    binary = shutil.which("curl")
    assert binary, "curl is needed (apt-get install curl): Python's http.client speaks no HTTP/2"
    done = subprocess.run(
        [binary, "-sS", "-i", "--cacert", str(proxy.folder / "cert.pem"), "--max-time", "20", *arguments],
        input=body,
        capture_output=True,
        check=True,
    )
    head, _, answer = done.stdout.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, answer


def test_an_oversize_body_over_http2_is_a_413_problem_logged_as_the_request_it_was(deployment):
    """Over HTTP/2 (as every browser speaks to nginx), with a length or chunked, and over HTTP/1.1:
    problem+json, not nginx's HTML page; and the access log names the request as it came (POST to
    /v1/challenge), not the page nginx answered from."""
    proxy, _ = deployment
    url = f"https://localhost:{proxy.port}/v1/challenge"
    post = ("-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", "--resolve")
    resolve = f"localhost:{proxy.port}:127.0.0.1"
    for version in ("--http2", "--http1.1"):
        for chunked in ((), ("-H", "Transfer-Encoding: chunked")):
            status, headers, body = curl(proxy, version, *post, resolve, *chunked, url, body=b"x" * 20000)
            assert status == 413 and headers["content-type"] == "application/problem+json", (version, chunked, body)
            assert (headers["cache-control"], headers["x-content-type-options"]) == ("no-store", "nosniff")
            assert json.loads(body)["limit"] == 16384
    proxy.stop()
    refused = [json.loads(line) for line in proxy.access_log.read_text().splitlines() if '"status":413' in line]
    assert len(refused) == 4 and all((line["method"], line["path"]) == ("POST", "/v1/challenge") for line in refused)


@pytest.mark.parametrize("prefix", ["", "/e/open-lleida-2026"])
def test_the_public_api_is_rate_limited_with_a_problem(tmp_path, nginx_binary, spanish_file, prefix):
    """The API of the service, and of each event of a federation's service (its /e/ID/v1/, which
    nginx limits before any instance is asked: here a plain instance answers it 404)."""
    instance = LiveServer(tmp_path, [spanish_file], workers=1)
    proxy = None
    try:
        instance.wait_ready()
        proxy = Nginx(nginx_binary, tmp_path, [instance], rate="2r/s", burst="2")
        answers = [proxy.request("POST", f"{prefix}/v1/challenge", PLAY, HEADERS) for _ in range(10)]
        limited = [(headers, body) for status, headers, body in answers if status == 429]
        assert limited and any(status == (404 if prefix else 200) for status, _, _ in answers), answers
        headers, body = limited[0]
        own_problem(headers)
        assert headers.get_all("Retry-After") == ["1"] and json.loads(body)["retry_after"] == 1
        assert json.loads(body)["status"] == 429
        assert all(proxy.request("GET", f"{prefix}/readyz")[0] == (404 if prefix else 200) for _ in range(5))
    finally:
        if proxy is not None:
            proxy.stop()
        instance.stop()
