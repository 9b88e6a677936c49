"""The API through Flask's test client: every endpoint, every error path."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import unicodedata

import pytest

from lexicon.lexfile import Lexicon
from lexicon.verdict import Identity
from service.line_page import LINE_PAGE_CSP
from tests.support import REPO

PROBLEM = "application/problem+json"
TAG = "tag:lexicon-judge,2026:problem/"


def identity(path) -> dict:
    return Identity.of(Lexicon.open(path)).__dict__


def problem(response, status: int, kind: str | None) -> dict:
    """The problem of a response, checked to be RFC 9457 and of the given status and type."""
    assert response.status_code == status, response.data
    assert response.mimetype == PROBLEM
    assert response.headers["Cache-Control"] == "no-store"
    body = response.get_json(force=True)
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert body["status"] == status
    assert body["type"] == (TAG + kind if kind else "about:blank")
    assert "Traceback" not in response.get_data(as_text=True)
    return body


# -- verdicts ---------------------------------------------------------------------------------------


def test_valid_play_answers_exactly_the_verdict_and_the_lexicon(client, lexicon_files):
    response = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO", "CHICO"]})
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert "ETag" not in response.headers
    assert response.get_json() == {"valid": True, "lexicon": identity(lexicon_files["es-mini"])}
    assert list(response.get_json()) == ["valid", "lexicon"]
    assert list(response.get_json()["lexicon"]) == ["id", "name", "version", "checksum"]


def test_checksum_is_what_sha256sum_prints(client, lexicon_files):
    body = client.post("/v1/challenge", json={"lexicon": "ca", "words": ["CASA"]}).get_json()
    assert body["lexicon"]["checksum"] == hashlib.sha256(lexicon_files["ca-mini"].read_bytes()).hexdigest()


def test_one_missing_word_makes_the_play_not_valid(client):
    response = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO", "CARRA"]})
    assert response.status_code == 200
    assert response.get_json()["valid"] is False


@pytest.mark.parametrize(
    "words, notation, valid",
    [
        (["carro", "Chico"], None, True),  # case does not matter
        (["  CARRO ", "CAMIÓN"], None, True),  # white space around, accents dropped
        (["camion", "ñandu", "pingüino"], "spelling", True),
        (["CA[RR]O", "[CH]ICO"], "tiles", True),
        (["CA3O", "1ICO"], "tiles", True),  # FISE file aliases
        (["CARRO"], "tiles", False),  # C A R R O: two R tiles, not the RR tile
    ],
)
def test_notations(client, words, notation, valid):
    body = {"lexicon": "es", "words": words}
    if notation:
        body["notation"] = notation
    response = client.post("/v1/challenge", json=body)
    assert response.status_code == 200, response.data
    assert response.get_json()["valid"] is valid


def test_lexicon_by_id_or_language(client, lexicon_files):
    by_language = client.post("/v1/challenge", json={"lexicon": "es", "words": ["XILÓFONO"]}).get_json()
    by_id = client.post("/v1/challenge", json={"lexicon": "es-alt", "words": ["XILÓFONO"]}).get_json()
    assert by_language == {"valid": False, "lexicon": identity(lexicon_files["es-mini"])}
    assert by_id == {"valid": True, "lexicon": identity(lexicon_files["es-alt"])}
    assert client.post("/v1/challenge", json={"lexicon": "ES-Mini", "words": ["SOL"]}).get_json()["valid"]


def test_catalan_tiles(client):
    for words in (["COL·LEGI", "QUADRE"], ["col.legi", "qadre"], ["COĿLEGI", "coŀlegi"], ["anys", "plaça"]):
        response = client.post("/v1/challenge", json={"lexicon": "ca", "words": words})
        assert response.get_json()["valid"] is True, words


def test_get_answers_the_same_bytes_as_post(client):
    for words in (["CARRO", "CHICO"], ["CARRO", "CARRA"]):
        posted = client.post("/v1/challenge", json={"lexicon": "es", "words": words})
        query = "&".join(f"word={w}" for w in words)
        got = client.get(f"/v1/challenge?lexicon=es&{query}")
        assert got.status_code == 200
        assert got.data == posted.data
        assert got.headers["Cache-Control"] == "no-store"


def test_get_with_notation_and_percent_encoding(client):
    response = client.get("/v1/challenge?lexicon=ca&word=COL%C2%B7LEGI&notation=spelling")
    assert response.get_json()["valid"] is True
    response = client.get("/v1/challenge?lexicon=es&word=CA%5BRR%5DO&notation=tiles")
    assert response.get_json()["valid"] is True


def test_body_is_json_whatever_its_content_type(client):
    # `curl -d` says application/x-www-form-urlencoded; the body is read as JSON all the same.
    response = client.post(
        "/v1/challenge", data='{"lexicon":"es","words":["SOL"]}', content_type="application/x-www-form-urlencoded"
    )
    assert response.get_json()["valid"] is True


# -- batches ------------------------------------------------------------------------------------------


def test_batch_answers_one_verdict_per_play_in_order(client, lexicon_files):
    plays = [
        {"id": "t12-r3", "words": ["COL·LEGI", "QUADRE"]},
        {"id": "t4-r3", "words": ["CAVALL", "CAVALLS"]},
        {"words": ["LLUNA"]},
        {"id": None, "words": ["CASA"]},
    ]
    response = client.post("/v1/challenges", json={"lexicon": "ca", "plays": plays})
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    assert response.get_json() == {
        "results": [
            {"id": "t12-r3", "valid": True},
            {"id": "t4-r3", "valid": False},
            {"id": None, "valid": True},
            {"id": None, "valid": True},
        ],
        "lexicon": identity(lexicon_files["ca-mini"]),
    }


def test_batch_cap(client):
    play = {"words": ["SOL"]}
    full = client.post("/v1/challenges", json={"lexicon": "es", "plays": [play] * 100})
    assert full.status_code == 200 and len(full.get_json()["results"]) == 100
    over = problem(client.post("/v1/challenges", json={"lexicon": "es", "plays": [play] * 101}), 422, "invalid-request")
    assert over["pointer"] == "/plays" and "101" in over["detail"]
    empty = problem(client.post("/v1/challenges", json={"lexicon": "es", "plays": []}), 422, "invalid-request")
    assert empty["pointer"] == "/plays"


def test_batch_of_100_typical_plays_fits_the_body_limit(client):
    plays = [{"id": f"t{n}-r12", "words": ["PINGÜINO", "CAMIÓN", "LLAVE"]} for n in range(100)]
    body = json.dumps({"lexicon": "es", "plays": plays}, ensure_ascii=False).encode()
    assert len(body) < 16 * 1024
    assert client.post("/v1/challenges", data=body).status_code == 200


def test_batch_input_error_names_the_play_and_the_word_and_judges_nothing(client):
    plays = [
        {"id": "t1", "words": ["CARRO"]},
        {"id": "t2", "words": ["CASA", "KIWI"]},
        {"id": "t3", "words": ["SOL"]},
        {"words": ["MAR", ""]},
    ]
    body = problem(client.post("/v1/challenges", json={"lexicon": "es", "plays": plays}), 422, "not-a-tile")
    assert body["play"] == 2 and body["id"] == "t2" and body["word"] == 2
    assert body["input"] == "KIWI" and body["character"] == "K" and body["position"] == 1
    assert body["detail"].startswith("play 2 ('t2'): word 2: 'K' at 1 in 'KIWI'")
    assert "1 more play" in body["detail"]
    assert [(e["play"], e["id"], e["word"], e["type"]) for e in body["errors"]] == [
        (2, "t2", 2, TAG + "not-a-tile"),
        (4, None, 2, TAG + "empty-word"),
    ]
    assert "valid" not in body and "results" not in body


def test_batch_structure_errors_point_into_the_body(client):
    body = problem(
        client.post(
            "/v1/challenges",
            json={
                "lexicon": "es",
                "plays": [
                    {"words": ["SOL"]},
                    {"id": 7, "words": ["SOL"]},
                    "SOL",
                    {"words": "SOL"},
                    {"id": "x" * 65, "words": ["SOL"]},
                ],
            },
        ),
        422,
        "invalid-request",
    )
    assert [(e["play"], e["pointer"]) for e in body["errors"]] == [
        (2, "/plays/1/id"),
        (3, "/plays/2"),
        (4, "/plays/3/words"),
        (5, "/plays/4/id"),
    ]
    body = problem(client.post("/v1/challenges", json={"lexicon": "es", "plays": [{"words": []}]}), 422, "play-size")
    assert body["play"] == 1 and body["count"] == 0
    body = problem(
        client.post("/v1/challenges", json={"lexicon": "es", "plays": {"words": ["SOL"]}}), 422, "invalid-request"
    )
    assert body["pointer"] == "/plays"
    problem(
        client.post("/v1/challenges", json={"lexicon": "xx", "plays": [{"words": ["SOL"]}]}), 404, "unknown-lexicon"
    )


# -- the lexicons, health, the document ----------------------------------------------------------------


def test_lexicons_lists_every_loaded_lexicon(client, lexicon_files):
    response = client.get("/v1/lexicons")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "private, max-age=60"
    listed = response.get_json()["lexicons"]
    assert [(item["id"], item["language"], item["default"]) for item in listed] == [
        ("es-mini", "es", True),
        ("es-alt", "es", False),
        ("ca-mini", "ca", True),
    ]
    for item in listed:
        lexicon = Lexicon.open(lexicon_files[item["id"]])
        assert item["checksum"] == lexicon.checksum
        assert item["words"] == lexicon.header.words
        assert item["version"] == "test-1"
        assert item["words_sha256"] == lexicon.header.words_sha256


def test_health_and_readiness(client, make_app):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/healthz").headers["Cache-Control"] == "no-store"
    assert client.get("/readyz").get_json() == {"status": "ready", "lexicons": ["es-mini", "es-alt", "ca-mini"]}
    unready = make_app()
    unready.extensions["lexicon_registry"].ready = False  # no setting leads here: none starts empty
    assert unready.test_client().get("/healthz").status_code == 200
    problem(unready.test_client().get("/readyz"), 503, "not-ready")


def test_docs_api_names_every_route_of_the_api(app):
    section = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(("page.", "installable.")) or rule.endpoint == "static":
            continue  # the judge's page and its installed app's files (docs/judge-page.md)
        path = re.sub(r"<(?:\w+:)?\w+>", "{id}", rule.rule)  # the docs write any name as {id}
        assert f"{path}`" in section or f"{path} " in section, path


def test_docs_api_names_every_member_of_readyz():
    """A probe's author reads /readyz in docs/api.md: each member the service may answer is named
    there (`stale` says a 200 that is not `ready`; `event_file` tells two files of one event apart)."""
    from service.status_types import Ready

    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    health = text[text.index("Health: `/healthz`") :].split("\n\n")[0]
    for member in Ready.__struct_fields__:
        assert f"`{member}`" in health or f'`"{member}":' in health, member


def test_docs_api_from_a_program_states_the_service_s_limits():
    """docs/api.md's "From a program" gathers for a tool author limits that the code keeps in
    constants: each number it states is the constant's, so that one changed fails here rather
    than leaving the page saying another."""
    from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS
    from service.config import BODY_SECONDS, MAX_BODY, MAX_PLAYS
    from service.event.admission import UNNAMED_BATCH
    from tournament.devices import CODE_LIFETIME

    text = " ".join((REPO / "docs" / "api.md").read_text(encoding="utf-8").split("## From a program")[1].split())
    for said in (
        f"{MAX_BODY // 1024} KiB a body, sent whole within {BODY_SECONDS} s of its head",
        f"{MIN_WORDS} to {MAX_WORDS} words a play, {MIN_TILES} to {MAX_TILES} tiles a word",
        f"{MAX_PLAYS} plays a batch ({UNNAMED_BATCH} in an event from a caller with no device",
        f"valid once for {CODE_LIFETIME.seconds // 60} minutes",
    ):
        assert said in text, said


def test_openapi_document_describes_every_route(client, app):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert document["openapi"] == "3.1.0"
    routed = {}
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(("page.", "installable.")):  # the judge's page (service.page) and
            continue  # its installed app's manifest and worker (service.installable) are no API operation
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)  # Flask's <name> is OpenAPI's {name}
        routed.setdefault(path, set()).update(m.lower() for m in rule.methods - {"HEAD", "OPTIONS"})
    described = {path: set(item) for path, item in document["paths"].items()}
    assert routed == described
    request = document["components"]["schemas"]["ChallengeRequest"]["properties"]
    assert request["lexicon"]["enum"] == ["ca", "ca-mini", "es", "es-alt", "es-mini"]
    assert request["words"]["maxItems"] == 8 and request["words"]["minItems"] == 1
    batch = document["components"]["schemas"]["BatchRequest"]["properties"]
    assert batch["plays"]["maxItems"] == 100


def test_openapi_schemas_are_the_types_the_service_reads(client):
    """The components come from the body types (service.openapi.COMPONENTS); the tile rules, which no
    schema states, are listed."""
    import msgspec

    from service.openapi import COMPONENTS
    from service.types import MAX_WORD_CHARS

    document = client.get("/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    _, derived = msgspec.json.schema_components(COMPONENTS, ref_template="#/components/schemas/{name}")
    assert schemas["Play"] == derived["Play"] and schemas["LexiconInfo"] == derived["LexiconInfo"]
    assert schemas["Play"]["properties"]["id"]["anyOf"][0]["maxLength"] == 64
    words = schemas["ChallengeRequest"]["properties"]["words"]
    assert (words["minItems"], words["maxItems"], words["items"]["maxLength"]) == (1, 8, MAX_WORD_CHARS)
    assert schemas["BatchRequest"]["properties"]["plays"]["minItems"] == 1
    assert set(schemas["LexiconInfo"]["required"]) >= set(schemas["Identity"]["required"])
    for path, method in (("/v1/challenge", "post"), ("/v1/challenge", "get"), ("/v1/challenges", "post")):
        refused = document["paths"][path][method]["responses"]["422"]["description"]
        assert all(f"`{kind}`" in refused for kind in ("not-a-tile", "word-length", "empty-word"))


# -- input errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, start",
    [
        (b"{", "the body is not JSON"),
        (b"", "the body is empty"),
        (b"   ", "the body is empty"),
        (b"\xff\xfe{}", "the body is not JSON"),
        (b"[" * 5000 + b"]" * 5000, "the body is not JSON"),
        (b'{"lexicon": "es", "words": ["SOL"]} x', "the body is not JSON"),
    ],
)
def test_broken_json_is_400(client, data, start):
    body = problem(client.post("/v1/challenge", data=data), 400, "invalid-json")
    assert body["detail"].startswith(start)


@pytest.mark.parametrize(
    "data, detail",
    [
        (b"not json", "the body is not JSON: Expecting value: line 1 column 1 (char 0), at 'not json'"),
        (
            b'{"lexicon": "es", "words": ["SOL",]}',
            "the body is not JSON: Expecting value: line 1 column 35 (char 34), at ']}'",
        ),
        (
            b'{"lexicon": "es", "words": ["SOL"',
            "the body is not JSON: Expecting ',' delimiter: line 1 column 34 (char 33), at the end of the body",
        ),
        (
            b'{"lexicon": "es", "words": ["SOL"]} x',
            "the body is not JSON: Extra data: line 1 column 37 (char 36), at 'x'",
        ),
        (
            b"{'lexicon': 'es', 'words': ['CARRO', 'CHICO', 'LLAVE']}",
            "the body is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1), "
            "at \"'lexicon': 'es', 'w…\"",
        ),
    ],
)
def test_broken_json_is_quoted_where_it_breaks(client, data, detail):
    """A tool author's body that is no JSON: the detail quotes it where it stops being JSON (a
    few characters, or the end of the body), not only its line and column."""
    for route, body in (("/v1/challenge", data), ("/v1/challenges", data)):
        assert problem(client.post(route, data=body), 400, "invalid-json")["detail"] == detail


@pytest.mark.parametrize(
    "payload, pointer, fragment",
    [
        (["SOL"], "", "must be a JSON object, not an array"),
        ({"words": ["SOL"]}, "/lexicon", "lacks 'lexicon'"),
        ({"lexicon": "es"}, "/words", "lacks 'words'"),
        ({"lexicon": "es", "words": "SOL"}, "/words", "not a string"),
        ({"lexicon": "es", "words": ["SOL", 7]}, "/words/1", "word 2 must be a string, not a number"),
        ({"lexicon": "es", "words": ["SOL", None]}, "/words/1", "not null"),
        ({"lexicon": "es", "words": [["SOL"]]}, "/words/0", "not an array"),
        ({"lexicon": 1, "words": ["SOL"]}, "/lexicon", "lexicon must be a string"),
        ({"lexicon": "es", "words": ["SOL"], "word": "SOL"}, "/word", "unknown member 'word'"),
        ({"lexicon": "es", "words": ["SOL"], "notation": "engine"}, "/notation", "not 'engine'"),
        ({"lexicon": "es", "words": ["SOL"], "notation": None}, "/notation", "not null"),
        ({"lexicon": "es", "words": [123456789012345678901234567890]}, "/words/0", "not a number"),
    ],
)
def test_wrong_types_are_422_with_a_pointer(client, payload, pointer, fragment):
    body = problem(client.post("/v1/challenge", json=payload), 422, "invalid-request")
    assert body["pointer"] == pointer
    assert fragment in body["detail"]


@pytest.mark.parametrize("count", [0, 9, 20])
def test_play_size_is_422(client, count):
    body = problem(client.post("/v1/challenge", json={"lexicon": "es", "words": ["SOL"] * count}), 422, "play-size")
    assert body["count"] == count
    assert f"not {count}" in body["detail"]


def test_empty_word_names_its_place(client):
    for empty in ("", "   "):
        body = problem(
            client.post("/v1/challenge", json={"lexicon": "es", "words": ["SOL", empty, "MAR"]}), 422, "empty-word"
        )
        assert body["word"] == 2 and body["input"] == empty  # as typed
        assert body["detail"].startswith("word 2: empty word")


@pytest.mark.parametrize(
    "lexicon, word, char, position",
    [
        ("es", "KIWI", "K", 1),
        ("es", "CAR RO", " ", 4),
        ("es", "PAN\u0000", "\u0000", 4),
        ("ca", "YOGA", "Y", 1),  # Y only after N (the NY tile)
        ("ca", "WEB", "W", 1),
        ("es", "CA3O", "3", 3),  # an alias of the tiles notation only
        ("es", "😀", "😀", 1),
    ],
)
def test_character_that_is_no_tile_is_quoted(client, lexicon, word, char, position):
    body = problem(client.post("/v1/challenge", json={"lexicon": lexicon, "words": ["CASA", word]}), 422, "not-a-tile")
    assert (body["word"], body["input"], body["character"], body["position"]) == (2, word, char, position)
    assert body["detail"].startswith("word 2: ")
    assert body["reason"]


def test_the_first_wrong_word_is_reported(client):
    body = problem(
        client.post("/v1/challenge", json={"lexicon": "es", "words": ["SOL", "KIWI", "WEB"]}), 422, "not-a-tile"
    )
    assert body["word"] == 2


@pytest.mark.parametrize("word, tiles", [("A", 1), ("CH", 1), ("PARALELEPIPEDOSS", 16)])
def test_word_length_is_422(client, word, tiles):
    body = problem(client.post("/v1/challenge", json={"lexicon": "es", "words": [word]}), 422, "word-length")
    assert body["tiles"] == tiles and body["input"] == word and body["word"] == 1


def test_input_errors_say_nothing_of_the_lexicon(client):
    # The same typing error, a real word or not beside it: the same answer.
    first = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO", "KIWI"]})
    second = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRA", "KIWI"]})
    assert first.status_code == second.status_code == 422
    assert first.get_json()["word"] == second.get_json()["word"] == 2
    assert first.get_json()["character"] == second.get_json()["character"]


def test_unknown_lexicon_is_404(client):
    body = problem(client.post("/v1/challenge", json={"lexicon": "fr", "words": ["SOL"]}), 404, "unknown-lexicon")
    assert body["lexicon"] == "fr"
    assert body["known"] == ["ca", "ca-mini", "es", "es-alt", "es-mini"]
    problem(client.get("/v1/challenge?lexicon=fr&word=SOL"), 404, "unknown-lexicon")


@pytest.mark.parametrize(
    "query, parameter, kind",
    [
        ("word=SOL", "lexicon", "invalid-request"),
        ("lexicon=es", "word", "play-size"),
        ("lexicon=es&" + "&".join(["word=SOL"] * 9), "word", "play-size"),
        ("lexicon=es&lexicon=ca&word=SOL", "lexicon", "invalid-request"),
        ("lexicon=es&word=SOL&words=MAR", "words", "invalid-request"),
        ("lexicon=es&word=SOL&notation=engine", "notation", "invalid-request"),
    ],
)
def test_get_errors_name_the_parameter(client, query, parameter, kind):
    body = problem(client.get(f"/v1/challenge?{query}"), 422, kind)
    assert body["parameter"] == parameter


def test_get_errors_quote_the_word(client):
    body = problem(client.get("/v1/challenge?lexicon=es&word=SOL&word=KIWI"), 422, "not-a-tile")
    assert body["word"] == 2 and body["character"] == "K"
    body = problem(client.get("/v1/challenge", query_string="lexicon=es&word=SOL&word=%FF%FE"), 400, None)
    # Escapes of bytes that are no UTF-8 (Werkzeug reads them as U+FFFD) are a 400 saying so, as a body's.
    assert body["parameter"] == "word" and "the parameter word is not UTF-8" in body["detail"]
    assert "'%'" not in body["detail"]
    body = problem(client.get("/v1/challenge", query_string="lexicon=%E9s&word=SOL"), 400, None)
    assert body["parameter"] == "lexicon"
    body = problem(client.get("/v1/challenge?lexicon=es&word=SOL&word="), 422, "empty-word")
    assert body["word"] == 2


def test_unknown_path_is_404(client):
    for path in ("/index.html", "/v1", "/v1/challenge/CARRO", "/v2/challenge", "/v1/challenges/"):
        body = problem(client.get(path), 404, None)
        assert body["title"] == "Not Found"


def test_the_console_of_a_service_without_an_event_tells_the_director_how_to_start_one(client):
    """A director who started `lexicon serve` without LEXICON_EVENT and opens /director in a
    browser: a line in Spanish or Catalan saying how to serve the event; a tool gets the problem."""
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    for language, text in (
        ("ca-ES,ca;q=0.9,es;q=0.8", "LEXICON_EVENT=TORNEIG.db"),
        ("es-ES,es;q=0.9", "LEXICON_EVENT=TORNEO.db"),
    ):
        page = client.get("/director", headers={"Accept": browser, "Accept-Language": language})
        assert page.status_code == 404 and page.content_type == "text/html; charset=utf-8"
        assert text in page.get_data(as_text=True) and "Ctrl-C" in page.get_data(as_text=True)
        assert page.headers["Content-Security-Policy"] == LINE_PAGE_CSP and "frame-ancestors 'none'" in LINE_PAGE_CSP
        assert page.headers["X-Frame-Options"] == "DENY" and page.headers["Referrer-Policy"] == "no-referrer"
    body = problem(client.get("/director", headers={"Accept": "application/json"}), 404, None)
    assert "tournament mode, LEXICON_EVENT=EVENT.db lexicon serve" in body["detail"]
    problem(client.get("/director"), 404, None)  # curl's */*: the problem, as before


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("DELETE", "/v1/challenge", "GET, HEAD, OPTIONS, POST"),
        ("PUT", "/v1/challenge", "GET, HEAD, OPTIONS, POST"),
        ("GET", "/v1/challenges", "OPTIONS, POST"),
        ("POST", "/v1/lexicons", "GET, HEAD, OPTIONS"),
        ("POST", "/healthz", "GET, HEAD, OPTIONS"),
    ],
)
def test_wrong_method_is_405_with_allow(client, method, path, allowed):
    response = client.open(path, method=method, json={})
    body = problem(response, 405, None)
    assert response.headers["Allow"] == allowed
    assert method in body["detail"]


@pytest.mark.parametrize("in_event", [False, True])
def test_options_allows_exactly_the_methods_a_405_lists(make_app, tmp_path, in_event):
    """OPTIONS and a 405 say the same Allow, from the routes; in an event a GET challenge is
    always 405 (each GET sent again would be a row), so neither offers it."""
    from tournament import create_event

    if in_event:
        create_event(tmp_path / "event.db", "Open", "a long enough password").close()
    client = make_app(**({"LEXICON_EVENT": str(tmp_path / "event.db")} if in_event else {})).test_client()
    for path in ("/v1/challenge", "/v1/challenges", "/v1/lexicons", "/healthz"):
        options = client.options(path)
        assert options.status_code == 204
        assert options.headers["Allow"] == client.open(path, method="PATCH").headers["Allow"], path
    challenge = client.options("/v1/challenge").headers["Allow"]
    assert challenge == ("OPTIONS, POST" if in_event else "GET, HEAD, OPTIONS, POST")
    if in_event:
        for method in ("GET", "HEAD"):
            refused = client.open("/v1/challenge?lexicon=es&word=CARRO", method=method)
            assert refused.status_code == 405 and refused.headers["Allow"] == challenge


@pytest.mark.parametrize("in_event", [False, True])
def test_a_cors_preflight_offers_exactly_the_methods_options_allows(make_app, tmp_path, in_event):
    """A browser's preflight is told the route's methods, as OPTIONS' Allow and a 405 say them:
    in an event no GET /v1/challenge, which would only be refused with a 405 once sent."""
    from tournament import create_event

    settings = {"LEXICON_CORS_ORIGINS": "http://pairings.lan"}
    if in_event:
        create_event(tmp_path / "event.db", "Open", "a long enough password").close()
        settings["LEXICON_EVENT"] = str(tmp_path / "event.db")
    client = make_app(**settings).test_client()
    asking = {"Origin": "http://pairings.lan", "Access-Control-Request-Method": "POST"}
    for path in ("/v1/challenge", "/v1/challenges", "/v1/lexicons", "/healthz"):
        preflight = client.options(path, headers=asking)
        assert preflight.status_code == 204, path
        assert preflight.headers["Access-Control-Allow-Methods"] == preflight.headers["Allow"], path
    offered = client.options("/v1/challenge", headers=asking).headers["Access-Control-Allow-Methods"]
    assert offered == ("OPTIONS, POST" if in_event else "GET, HEAD, OPTIONS, POST")
    unknown = client.options("/v1/no-such-path", headers=asking)
    assert unknown.status_code == 404 and "Access-Control-Allow-Methods" not in unknown.headers


# -- the body limit ---------------------------------------------------------------------------------------


def big_play(size: int) -> bytes:
    body = json.dumps({"lexicon": "es", "words": ["SOL"], "padding": "x" * size}).encode()
    return body


def test_body_over_16_kib_is_413(client):
    body = problem(client.post("/v1/challenge", data=big_play(20000)), 413, None)
    assert body["limit"] == 16384
    problem(client.post("/v1/challenges", data=big_play(20000)), 413, None)


def test_body_of_16_kib_is_read(client):
    words = ["SOL"] * 8
    prefix = json.dumps({"lexicon": "es", "words": words}).encode()
    body = prefix[:-1] + b" " * (16384 - len(prefix)) + b"}"
    assert len(body) == 16384
    assert client.post("/v1/challenge", data=body).get_json()["valid"] is True
    problem(client.post("/v1/challenge", data=body[:-1] + b" }"), 413, None)


def test_chunked_body_without_length_is_limited_too(client):
    """A chunked request has no Content-Length: the server ends the stream (wsgi.input_terminated)."""

    def chunked(data: bytes):
        return client.post(
            "/v1/challenge",
            environ_overrides={
                "wsgi.input": io.BytesIO(data),
                "wsgi.input_terminated": True,
                "CONTENT_LENGTH": "",
                "HTTP_TRANSFER_ENCODING": "chunked",
            },
        )

    problem(chunked(big_play(20000)), 413, None)
    problem(chunked(big_play(16384 - 40)), 413, None)  # just over: not cut silently at the limit
    small = json.dumps({"lexicon": "es", "words": ["SOL"]}).encode()
    assert chunked(small).get_json()["valid"] is True


def test_content_length_that_lies_is_413_before_reading(client):
    """A Content-Length over the limit is refused at once, whatever comes after it."""
    small = json.dumps({"lexicon": "es", "words": ["SOL"]}).encode()
    response = client.post(
        "/v1/challenge", environ_overrides={"wsgi.input": io.BytesIO(small), "CONTENT_LENGTH": "1000000"}
    )
    problem(response, 413, None)


def test_content_length_shorter_than_the_body_reads_only_what_it_says(client):
    body = json.dumps({"lexicon": "es", "words": ["SOL"]}).encode()
    response = client.post(
        "/v1/challenge",
        environ_overrides={"wsgi.input": io.BytesIO(body + b"x" * 30000), "CONTENT_LENGTH": str(len(body))},
    )
    assert response.get_json()["valid"] is True


class Unreadable:
    def __init__(self, error: Exception):
        self.error = error

    def read(self, *args):
        raise self.error


def test_body_that_stalls_is_408_and_one_that_breaks_is_400(client):
    stalled = client.post(
        "/v1/challenge", environ_overrides={"wsgi.input": Unreadable(TimeoutError("timed out")), "CONTENT_LENGTH": "50"}
    )
    assert problem(stalled, 408, None)["detail"] == "the body did not arrive in time (within 5 s)"
    broken = client.post(
        "/v1/challenge",
        environ_overrides={
            "wsgi.input": Unreadable(ConnectionResetError()),
            "wsgi.input_terminated": True,
            "CONTENT_LENGTH": "",
        },
    )
    assert problem(broken, 400, None)["detail"] == "the body could not be read"


@pytest.mark.parametrize("coding", ["gzip", "GZIP", "br", "identity, gzip", "x-\u00e9"])
@pytest.mark.parametrize("path", ["/v1/challenge", "/v1/challenges"])
def test_a_body_in_a_content_coding_is_415_before_it_is_read(client, path, coding):
    """A coding the service does not decode (RFC 9110 §15.5.16) is refused, quoted, with the one
    it reads (RFC 7694), before the body is read (one that cannot be read would be a 400)."""
    unread = client.post(
        path,
        headers={"Content-Encoding": coding},
        environ_overrides={"wsgi.input": Unreadable(ConnectionResetError()), "CONTENT_LENGTH": "50"},
    )
    body = problem(unread, 415, None)
    assert unread.headers["Accept-Encoding"] == "identity"
    assert body["detail"] == (
        f"the body's Content-Encoding is '{coding}': this service reads a body only as it is (identity): "
        "send it uncompressed"
    )
    compressed = gzip.compress(json.dumps({"lexicon": "es", "words": ["SOL"], "plays": [{"words": ["SOL"]}]}).encode())
    assert problem(client.post(path, data=compressed, headers={"Content-Encoding": coding}), 415, None) == body


@pytest.mark.parametrize("coding", ["identity", "IDENTITY", "", " identity , identity"])
def test_a_body_as_it_is_is_read_whatever_says_so(client, coding):
    sent = client.post("/v1/challenge", json={"lexicon": "es", "words": ["SOL"]}, headers={"Content-Encoding": coding})
    assert sent.status_code == 200 and sent.get_json()["valid"] is True
    batch = client.post(
        "/v1/challenges", json={"lexicon": "es", "plays": [{"words": ["SOL"]}]}, headers={"Content-Encoding": coding}
    )
    assert batch.status_code == 200 and batch.get_json()["results"][0]["valid"] is True


# -- never a 500 with details -------------------------------------------------------------------------------


def test_unexpected_error_is_a_bare_500_and_logged_without_words(make_app, monkeypatch, capfd):
    from lexicon.lexfile import Lexicon

    def broken(lexicon, keys):
        raise RuntimeError(f"lookup failed on {keys!r} for CARRO")

    monkeypatch.setattr(Lexicon, "count_in", broken)
    client = make_app().test_client()
    capfd.readouterr()
    response = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO", "PERRO"]})
    body = problem(response, 500, None)
    assert body["detail"] == "an unexpected error; it has been logged"
    assert "CARRO" not in response.get_data(as_text=True)
    logged = capfd.readouterr().err
    lines = [json.loads(line) for line in logged.splitlines()]
    assert [line["error"] for line in lines if line["level"] == "error"] == ["RuntimeError"]
    assert "CARRO" not in logged and "PERRO" not in logged and "lookup failed" not in logged


# -- the venue token and CORS -------------------------------------------------------------------------------


def test_token_guards_v1_only(make_app):
    client = make_app(LEXICON_TOKEN="ronda-7-secreto").test_client()
    play = {"lexicon": "es", "words": ["SOL"]}
    response = client.post("/v1/challenge", json=play)
    body = problem(response, 401, "token-required")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert "SOL" not in body["detail"]
    assert body["detail"].startswith("a token is required")
    wrong = problem(
        client.post("/v1/challenge", json=play, headers={"Authorization": "Bearer wrong"}), 401, "token-required"
    )
    assert wrong["detail"].startswith("this token is not accepted") and "ronda" not in wrong["detail"]
    assert problem(client.get("/v1/lexicons"), 401, "token-required")["detail"].startswith("a token is required")
    wrong = problem(client.get("/v1/challenge?lexicon=es&word=SOL&token=wrong"), 401, "token-required")
    assert wrong["detail"].startswith("this token is not accepted")
    ok = client.post("/v1/challenge", json=play, headers={"Authorization": "Bearer ronda-7-secreto"})
    assert ok.get_json()["valid"] is True
    assert client.get("/v1/challenge?lexicon=es&word=SOL&token=ronda-7-secreto").get_json()["valid"] is True
    assert (
        client.post(
            "/v1/challenges?token=ronda-7-secreto", json={"lexicon": "es", "plays": [{"words": ["SOL"]}]}
        ).status_code
        == 200
    )
    for path in ("/healthz", "/readyz", "/openapi.json"):
        assert client.get(path).status_code == 200
    document = client.get("/openapi.json").get_json()
    assert document["paths"]["/v1/challenge"]["post"]["security"] == [{"bearer": []}, {"queryToken": []}]
    assert "401" in document["paths"]["/v1/challenge"]["post"]["responses"]


def test_no_token_no_security_in_the_document(client):
    document = client.get("/openapi.json").get_json()
    assert "security" not in document["paths"]["/v1/challenge"]["post"]
    assert "securitySchemes" not in document["components"]


def test_cors_is_off_by_default(client):
    response = client.post(
        "/v1/challenge", json={"lexicon": "es", "words": ["SOL"]}, headers={"Origin": "http://pairings.lan"}
    )
    assert "Access-Control-Allow-Origin" not in response.headers


def test_cors_for_configured_origins(make_app):
    client = make_app(
        LEXICON_CORS_ORIGINS="http://pairings.lan:8080, http://club.lan", LEXICON_TOKEN="ronda-7"
    ).test_client()
    play = {"lexicon": "es", "words": ["SOL"]}
    auth = {"Authorization": "Bearer ronda-7"}
    allowed = client.post("/v1/challenge", json=play, headers={"Origin": "http://club.lan", **auth})
    assert allowed.headers["Access-Control-Allow-Origin"] == "http://club.lan"
    assert "Origin" in allowed.headers["Vary"]
    other = client.post("/v1/challenge", json=play, headers={"Origin": "http://evil.lan", **auth})
    assert "Access-Control-Allow-Origin" not in other.headers
    assert "Origin" in other.headers["Vary"]
    preflight = client.options(
        "/v1/challenge",
        headers={
            "Origin": "http://pairings.lan:8080",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert preflight.status_code == 204  # no token needed: browsers send none on a preflight
    assert preflight.headers["Allow"] and not preflight.data
    assert preflight.headers["Access-Control-Allow-Origin"] == "http://pairings.lan:8080"
    assert preflight.headers["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS, POST"
    assert preflight.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type"


@pytest.mark.parametrize("path", ["/v1/challenge", "/v1/challenges", "/healthz"])
def test_options_without_cors_is_204_with_allow(client, path):
    response = client.options(path)
    assert response.status_code == 204 and response.data == b""
    assert "OPTIONS" in response.headers["Allow"] and "Content-Type" not in response.headers


def test_cors_any_origin(make_app):
    client = make_app(LEXICON_CORS_ORIGINS="*").test_client()
    response = client.get("/v1/lexicons", headers={"Origin": "http://anything.lan"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Vary" not in response.headers


# -- members given twice, lone surrogates, long strings ----------------------------------------------------


@pytest.mark.parametrize(
    "data, pointer",
    [
        (b'{"lexicon":"es","words":["CASA"],"lexicon":"ca"}', "/lexicon"),
        (b'{"lexicon":"es","words":["CASA"],"lex\\u0069con":"ca"}', "/lexicon"),  # the same name, escaped
        (b'{"lexicon":"es","words":["KIWI"],"words":["CASA"]}', "/words"),
        (b'{"lexicon":"es","notation":"tiles","words":["CASA"],"notation" : "spelling"}', "/notation"),
    ],
)
def test_a_member_given_twice_is_refused(client, data, pointer):
    body = problem(client.post("/v1/challenge", data=data), 422, "invalid-request")
    assert body["pointer"] == pointer
    assert "given twice" in body["detail"] and repr(pointer[1:]) in body["detail"]


def test_a_member_given_twice_in_a_batch_is_refused(client):
    play = b'{"id":"t1","words":["SOL"],"words":["KIWI"]}'
    body = problem(
        client.post("/v1/challenges", data=b'{"lexicon":"es","plays":[{"words":["SOL"]},' + play + b"]}"),
        422,
        "invalid-request",
    )
    assert (body["play"], body["id"], body["pointer"]) == (2, "t1", "/plays/1/words")
    body = problem(
        client.post("/v1/challenges", data=b'{"lexicon":"es","plays":[{"words":["SOL"]}],"lexicon":"ca"}'),
        422,
        "invalid-request",
    )
    assert body["pointer"] == "/lexicon"


def test_a_quote_and_colon_inside_a_word_is_no_member(client):
    # `\":` in a string looks like the end of a member name to the quick count: read again, not refused.
    body = problem(client.post("/v1/challenge", data=b'{"lexicon":"es","words":["SO\\":L"]}'), 422, "not-a-tile")
    assert body["input"] == 'SO":L' and body["character"] == '"'
    batch = b'{"lexicon":"es","plays":[{"id":"a\\":b","words":["SOL"]}]}'
    assert client.post("/v1/challenges", data=batch).get_json()["results"] == [{"id": 'a":b', "valid": True}]


@pytest.mark.parametrize(
    "path, data, pointer",
    [
        ("/v1/challenge", b'{"lexicon":"es","words":["CASA","\\ud800"]}', "/words/1"),
        ("/v1/challenge", b'{"lexicon":"es","words":["CA\\udfffSA"]}', "/words/0"),
        ("/v1/challenge", b'{"lexicon":"es\\ud800","words":["CASA"]}', "/lexicon"),
        ("/v1/challenge", b'{"lexicon":"es","words":["CASA"],"notation":"\\ud800"}', "/notation"),
        ("/v1/challenge", b'{"lexicon":"es","words":["CASA"],"\\ud800":1}', ""),  # a member name
        ("/v1/challenge", b'{"lexicon":"es","words":[7],"x":"\\ud800"}', "/x"),  # before the type error
        ("/v1/challenges", b'{"lexicon":"es","plays":[{"id":"\\ud800","words":["CASA"]}]}', "/plays/0/id"),
        ("/v1/challenges", b'{"lexicon":"es","plays":[{"words":["CASA","\\udbff"]}]}', "/plays/0/words/1"),
        ("/v1/challenges", b'{"lexicon":"es","plays":[{"\\ud800":1,"words":["CASA"]}]}', "/plays/0"),
    ],
)
def test_a_lone_surrogate_anywhere_is_422(client, path, data, pointer):
    response = client.post(path, data=data)
    body = problem(response, 422, "invalid-request")
    assert body["pointer"] == pointer
    assert "lone surrogate" in body["detail"] and "\\ud" in body["detail"]  # quoted, escaped
    response.get_data().decode("utf-8")  # the answer itself is UTF-8


def test_a_surrogate_pair_is_one_character(client):
    body = problem(
        client.post("/v1/challenge", data=b'{"lexicon":"es","words":["CASA","\\ud83d\\ude00"]}'), 422, "not-a-tile"
    )
    assert body["character"] == "😀"


def test_a_word_longer_than_any_word_is_refused_by_its_type(client):
    from service.types import MAX_WORD_CHARS

    too_long = "A" * (MAX_WORD_CHARS + 1)
    body = problem(
        client.post("/v1/challenge", json={"lexicon": "es", "words": ["SOL", too_long]}), 422, "invalid-request"
    )
    assert body["pointer"] == "/words/1"
    assert f"{MAX_WORD_CHARS + 1} characters; at most {MAX_WORD_CHARS}" in body["detail"]
    assert client.post("/v1/challenge", json={"lexicon": "es", "words": [" " * 59 + "SOL  "]}).get_json()["valid"]
    body = problem(client.get("/v1/challenge?lexicon=es&word=SOL&word=" + too_long), 422, "invalid-request")
    assert body["parameter"] == "word"


def test_not_json_comes_before_a_type_error(client):
    # msgspec stops at the first misfit; a body that is not JSON further on is still a 400.
    for data in (
        b'{"lexicon":1,"words":["SOL"]',
        b'{"lexicon":"es","words":[7, NaN]}',
        b'{"lexicon":1,"words":["SO\xffL"]}',
    ):
        problem(client.post("/v1/challenge", data=data), 400, "invalid-json")


def test_the_lexicon_list_entry_is_the_verdict_identity_and_more(client):
    from service.status_types import LexiconInfo

    verdict = client.post("/v1/challenge", json={"lexicon": "es", "words": ["SOL"]}).get_json()["lexicon"]
    listed = client.get("/v1/lexicons").get_json()["lexicons"][0]
    assert {name: listed[name] for name in verdict} == verdict
    assert issubclass(LexiconInfo, Identity)


@pytest.mark.parametrize(
    "language, notation, word",
    [
        ("ca", "tiles", "[L·L]" * 15),  # the longest spelling of a tile, fifteen times
        ("es", "spelling", "  CASA" + " " * 60),
        ("es", "spelling", unicodedata.normalize("NFD", "ÁÉÍÓÚ" * 3)),  # accents as combining marks
        ("es", "spelling", " " * 60 + unicodedata.normalize("NFD", "ÁÉÍÓÚ" * 3) + "\t"),
    ],
)
def test_every_word_the_core_reads_as_up_to_15_tiles_gets_a_verdict(client, language, notation, word):
    from lexicon.tokenizer import tokenizer

    assert len(tokenizer(language, notation).key(word)) <= 15  # the core reads it
    response = client.post("/v1/challenge", json={"lexicon": language, "notation": notation, "words": [word]})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["valid"] is (word.strip() == "CASA")
