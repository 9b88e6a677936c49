"""Whether the API still answers byte for byte as a given revision did: a check for changes
meant to make the service faster, which must change nothing a client sees.

    python -m bench.same_answers            the working tree against its last commit (HEAD)
    python -m bench.same_answers REV        against any revision git knows

Each side runs in its own Python process, with its own code first on `sys.path` (the revision's
taken with `git archive` into a scratch folder), and answers the same requests through its WSGI
app, in process, from the same compiled lexicons: every example of docs/api.md and of the OpenAPI
document, every kind of refusal (bad JSON, a member given twice, a word that is no tiles, sizes,
an unknown lexicon, 404, 405, 413, OPTIONS), with a venue token, with CORS and with a second
opinion. Status, headers and body are compared exactly; the first differences are printed, and
the exit code is 1 if there is any. Only the public `service.create_app` is used on either side,
so any revision since it existed can be compared.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.server import REPOSITORY, lexicon_files

WORDS = ["CARRO", "CHICO", "PERRO"]


def _post(path: str, body, content_type: str | None = "application/json", **headers: str) -> dict:
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    if content_type:
        headers["Content-Type"] = content_type
    return {"method": "POST", "path": path, "body": base64.b64encode(data).decode(), "headers": headers}


def _get(path: str, query: str = "", method: str = "GET", **headers: str) -> dict:
    return {"method": method, "path": path, "query": query, "headers": headers}


def _challenges() -> list[dict]:
    """The requests every configuration is asked: the docs' examples, then refusals."""
    return [
        _post("/v1/challenge", {"lexicon": "es", "words": ["CARRO", "CHICO"]}),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS}),
        _post("/v1/challenge", {"lexicon": "es", "words": ["CARRO", "CHICOS", "LLAVEX"]}),
        _post("/v1/challenge", {"lexicon": "ca", "words": ["COL·LEGI", "QADRE", "ANYS"]}),
        _post("/v1/challenge", {"lexicon": "ca", "words": ["COL·LEGI", "CAVALLSS"]}, content_type=None),
        _post("/v1/challenge", {"lexicon": "es", "words": ["CA[RR]O", "CA3O"], "notation": "tiles"}),
        _post("/v1/challenge", {"lexicon": "es", "words": ["CASA", "KIWI"]}),
        _post("/v1/challenge", {"lexicon": "es", "words": ["CASA", "  "]}),
        _post("/v1/challenge", {"lexicon": "es", "words": ["CASA", "A"]}),
        _post("/v1/challenge", {"lexicon": "es", "words": ["CASA"] * 9}),
        _post("/v1/challenge", {"lexicon": "es", "words": []}),
        _post("/v1/challenge", {"lexicon": "xx", "words": WORDS}),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS, "second": True}),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS, "second": False}),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS, "colour": "red"}),
        _post("/v1/challenge", {"lexicon": "es", "words": "CARRO"}),
        _post("/v1/challenge", {"lexicon": "es", "words": [1, 2]}),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS, "notation": "morse"}),
        _post("/v1/challenge", {"words": WORDS}),
        _post("/v1/challenge", b'{"lexicon":"es","words":["CASA"],"lexicon":"ca"}'),
        _post("/v1/challenge", b'{"lexicon":"es","words":["CA\\":SA"]}'),
        _post("/v1/challenge", b'{"lexicon" : "es", "words" : ["CASA", "MESA"]}'),
        _post("/v1/challenge", b'{"lexicon":"es","words":["\\ud800"]}'),
        _post("/v1/challenge", b'{"lexicon":"es","words":'),
        _post("/v1/challenge", b"   "),
        _post("/v1/challenge", b""),
        _post("/v1/challenge", b"[" * 5000),
        _post("/v1/challenge", b"\xff\xfe"),
        _post("/v1/challenge", b'{"lexicon":"es","words":["' + b"A" * 20000 + b'"]}'),
        _get("/v1/challenge", "lexicon=ca&word=COL%C2%B7LEGI&word=QUADRE"),
        _get("/v1/challenge", "lexicon=es&word=CARRO&word=CHICOS"),
        _get("/v1/challenge", "lexicon=es&word=CARRO&second=1"),
        _get("/v1/challenge", "lexicon=es&word=CARRO&second=maybe"),
        _get("/v1/challenge", "lexicon=es&word=%FF"),
        _get("/v1/challenge", "lexicon=es&lexicon=ca&word=CASA"),
        _get("/v1/challenge", "word=CASA"),
        _get("/v1/challenge", "lexicon=es&colour=red&word=CASA"),
        _get("/v1/challenge", "lexicon=es"),
        _post(
            "/v1/challenges",
            {
                "lexicon": "ca",
                "plays": [{"id": "t12-r3", "words": ["COL·LEGI", "QUADRE"]}, {"id": "t4-r3", "words": ["CAVALLSS"]}],
            },
        ),
        _post("/v1/challenges", {"lexicon": "es", "plays": [{"words": WORDS}, {"id": None, "words": ["CASA"]}]}),
        _post("/v1/challenges", {"lexicon": "es", "plays": [{"id": "a", "words": ["KIWI"]}, {"id": "b", "words": []}]}),
        _post("/v1/challenges", {"lexicon": "es", "plays": [{"words": WORDS}], "second": True}),
        _post("/v1/challenges", {"lexicon": "es", "plays": []}),
        _get("/healthz"),
        _get("/readyz"),
        _get("/v1/lexicons"),
        _get("/openapi.json"),
        _get("/v1/PERA/MANGO"),
        _get("/director"),
        _get("/v1/challenge", method="DELETE"),
        _get("/v1/challenge", method="OPTIONS"),
        _get("/v1/challenge", method="OPTIONS", Origin="http://mesa.lan", **{"Access-Control-Request-Method": "POST"}),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS}, Origin="http://mesa.lan"),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS}, Origin="http://elsewhere.lan"),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS}, Authorization="Bearer sesame-sesame"),
        _post("/v1/challenge", {"lexicon": "es", "words": WORDS}, Authorization="Bearer wrong"),
        _get("/v1/challenge", "lexicon=es&word=CASA&token=sesame-sesame"),
    ]


def configurations(scratch: Path) -> dict[str, dict]:
    """The apps asked, by name: LEXICON_* settings of each (the same files on both sides)."""
    files, _ = lexicon_files()
    lexicon = Path(sys.executable).parent / "lexicon"
    second = []
    for name, version in (("new", "2017"), ("old", "2016")):
        path = scratch / f"{name}.lex"
        subprocess.run(
            [str(lexicon), "build", str(REPOSITORY / f"tests/data/diff-{name}-es.txt"), "--lang", "es"]
            + ["--id", f"file{version}", "--name", f"FILE {version}", "--version", version, "-o", str(path)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        second.append(str(path))
    plain = {"LEXICON_FILES": [str(path) for path in files], "LEXICON_TOKEN": None, "LEXICON_CORS_ORIGINS": ""}
    return {
        "plain": plain,
        "token": {**plain, "LEXICON_TOKEN": "sesame-sesame"},
        "cors": {**plain, "LEXICON_CORS_ORIGINS": "http://mesa.lan"},
        "cors-any": {**plain, "LEXICON_CORS_ORIGINS": "*"},
        "second": {**plain, "LEXICON_FILES": [*second, str(files[1])], "LEXICON_SECOND": "es:file2016"},
        "second-always": {
            **plain,
            "LEXICON_FILES": [*second, str(files[1])],
            "LEXICON_SECOND": "es:file2016",
            "LEXICON_SECOND_ALWAYS": "yes",
        },
    }


# Run in each side's own process, with that side's code first on sys.path; reads the
# configurations and requests as JSON on standard input, writes the answers as JSON.
_ANSWER = r"""
import base64, io, json, logging, sys
sys.path.insert(0, sys.argv[1])
from service import create_app
asked = json.load(sys.stdin)
out = {}
for name, config in asked["configurations"].items():
    app = create_app({**config, "LEXICON_LOG_LEVEL": "error", "TESTING": True})
    logging.getLogger("service").setLevel(logging.CRITICAL)
    for number, request in enumerate(asked["requests"]):
        body = base64.b64decode(request.get("body", ""))
        environ = {
            "REQUEST_METHOD": request["method"], "PATH_INFO": request["path"],
            "QUERY_STRING": request.get("query", ""), "SERVER_NAME": "judge", "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
            "wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True, "REMOTE_ADDR": "10.0.0.7",
            "HTTP_HOST": "judge.lan",
        }
        if "body" in request:
            environ["CONTENT_LENGTH"] = str(len(body))
        for header, value in request["headers"].items():
            key = header.upper().replace("-", "_")
            environ[key if key == "CONTENT_TYPE" else "HTTP_" + key] = value
        said = []
        answer = app(environ, lambda status, headers, exc_info=None: said.append((status, headers)))
        data = b"".join(answer)
        getattr(answer, "close", lambda: None)()
        out[f"{name} {number}"] = [said[0][0], said[0][1], base64.b64encode(data).decode()]
json.dump(out, sys.stdout)
"""


def answers(root: Path, configurations: dict[str, dict], requests: list[dict]) -> dict[str, list]:
    """What the code at `root` answers to each request of each configuration, by 'NAME NUMBER'."""
    done = subprocess.run(
        [sys.executable, "-c", _ANSWER, str(root)],
        input=json.dumps({"configurations": configurations, "requests": requests}),
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # Flask's OPTIONS lists the methods of a set
    )
    if done.returncode != 0:
        raise RuntimeError(f"the code at {root} could not answer:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def differences(old: dict[str, list], new: dict[str, list], requests: list[dict]) -> list[str]:
    """Each request answered differently, said in a line (status, headers or body, both shown)."""
    found = []
    for key in sorted(set(old) | set(new), key=lambda k: (k.split()[0], int(k.split()[1]))):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        request = requests[int(key.split()[1])]
        what = f"{key}: {request['method']} {request['path']}"
        if before is None or after is None:
            found.append(f"{what}: answered on one side only")
            continue
        for part, index in (("status", 0), ("headers", 1), ("body", 2)):
            if before[index] != after[index]:
                shown = [base64.b64decode(side[2])[:300] if index == 2 else side[index] for side in (before, after)]
                found.append(f"{what}: {part} was {shown[0]!r}, now {shown[1]!r}")
    return found


def compare(revision: str, root: Path = REPOSITORY) -> tuple[int, list[str]]:
    """(requests compared, differences) between `revision` and the code at `root`."""
    requests = _challenges()
    with tempfile.TemporaryDirectory() as scratch:
        old_root = Path(scratch) / "old"
        old_root.mkdir()
        archive = subprocess.run(["git", "archive", revision], cwd=root, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old_root)], input=archive, check=True)
        chosen = configurations(Path(scratch))
        old = answers(old_root, chosen, requests)
        new = answers(root, chosen, requests)
    return len(new), differences(old, new, requests)


def main(argv: list[str]) -> int:
    revision = argv[0] if argv else "HEAD"
    count, found = compare(revision)
    for line in found[:20]:
        print(line)
    print(f"{count} answers compared with {revision}: " + (f"{len(found)} differ" if found else "all the same bytes"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
