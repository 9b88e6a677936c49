"""The second opinion (LEXICON_SECOND) over HTTP, with Flask's test client.

Two small Spanish lexicons with known differences stand for two releases of one list:

- both hold the words of `COMMON`;
- only the new one (the main lexicon) holds CHICOS, only the old one (the second) holds NANDU;
- neither holds ZURDO.

So CHICOS gives (main valid, second not), NANDU (main not, second valid), ZURDO or CHICOS with
NANDU (neither), and the four combinations of the two verdicts are each tested in every place of
an 8-word play: the body of each combination must be the same bytes wherever the word is.
"""

from __future__ import annotations

import itertools
import json

import pytest

from service import create_app
from service.config import SettingsError
from service.registry import StartError
from tests.support import compile_list

COMMON = ["CASA", "PERRO", "CARRO", "MESA", "GATO", "LUNA", "AGUA", "LLAVE"]
NEW_ONLY, OLD_ONLY, NEITHER = "CHICOS", "NANDU", "ZURDO"
CA_WORDS = ["COL·LEGI", "QUADRE", "CASA"]

# (main valid, second valid): the word that makes it so, among seven COMMON words.
COMBINATIONS = {(True, True): COMMON[0], (True, False): NEW_ONLY, (False, True): OLD_ONLY, (False, False): NEITHER}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("second")
    return {
        "new": compile_list(folder / "new.lex", COMMON + [NEW_ONLY], "es", "file2018", "FILE 2018", "2018"),
        "old": compile_list(folder / "old.lex", COMMON + [OLD_ONLY], "es", "file2017", "FILE 2017", "2017"),
        "ca": compile_list(folder / "ca.lex", CA_WORDS, "ca", "ca-mini", "Mini català"),
    }


def config(files, **overrides):
    settings = {
        "TESTING": True,
        "LEXICON_FILES": [str(files[n]) for n in ("new", "old", "ca")],
        "LEXICON_SECOND": "es:file2017",
        "LEXICON_SECOND_ALWAYS": False,
        "LEXICON_TOKEN": None,
        "LEXICON_CORS_ORIGINS": "",
        "LEXICON_LOG_LEVEL": "warning",
    }
    settings.update(overrides)
    return settings


@pytest.fixture(scope="module")
def client(files):
    return create_app(config(files)).test_client()


def ask(client, words, **members):
    response = client.post("/v1/challenge", json={"lexicon": "es", "words": words, **members})
    assert response.status_code == 200, response.data
    return response


def play(word: str, position: int) -> list[str]:
    """Eight words: seven of COMMON, and `word` at `position` (1-based)."""
    others = COMMON[1:]
    return others[: position - 1] + [word] + others[position - 1 :]


# -- the four combinations ------------------------------------------------------------------------


@pytest.mark.parametrize("expected, word", COMBINATIONS.items())
def test_each_combination_of_the_two_verdicts(client, expected, word):
    answer = ask(client, ["CASA", word], second=True).get_json()
    assert (answer["valid"], answer["second"]["valid"]) == expected
    assert answer["lexicon"]["id"] == "file2018" and answer["lexicon"]["version"] == "2018"
    assert answer["second"]["lexicon"]["id"] == "file2017" and answer["second"]["lexicon"]["name"] == "FILE 2017"
    assert set(answer) == {"valid", "lexicon", "second"} and set(answer["second"]) == {"valid", "lexicon"}
    assert "word" not in answer["second"] and word not in json.dumps(answer)


@pytest.mark.parametrize("expected, word", COMBINATIONS.items())
def test_a_combination_is_the_same_bytes_wherever_the_word_is(client, expected, word):
    bodies = {ask(client, play(word, position), second=True).data for position in range(1, 9)}
    assert len(bodies) == 1
    answer = json.loads(bodies.pop())
    assert (answer["valid"], answer["second"]["valid"]) == expected


def test_two_failing_words_anywhere_give_the_bytes_of_neither(client):
    neither = ask(client, play(NEITHER, 1), second=True).data
    for first, second in itertools.permutations(range(8), 2):
        words = list(COMMON[2:])  # six words, then the two at their places
        for place, word in sorted(((first, NEW_ONLY), (second, OLD_ONLY))):
            words.insert(place, word)
        assert ask(client, words, second=True).data == neither


def test_the_four_bodies_differ_and_the_main_verdict_stays_as_without_a_second(client):
    bodies = {expected: ask(client, ["CASA", word], second=True).data for expected, word in COMBINATIONS.items()}
    assert len(set(bodies.values())) == 4
    for (valid, _), word in COMBINATIONS.items():
        plain = ask(client, ["CASA", word]).get_json()
        assert plain == {"valid": valid, "lexicon": plain["lexicon"]}  # no second unless asked


def test_every_word_is_looked_up_in_both_lexicons(client, monkeypatch):
    import service.api

    seen: list[tuple[str, int]] = []
    real = service.api.lookup_all

    def spy(lexicon, keys):
        seen.append((lexicon.header.id, len(keys)))
        return real(lexicon, keys)

    monkeypatch.setattr(service.api, "lookup_all", spy)
    for word in (NEITHER, NEW_ONLY, OLD_ONLY):  # the main verdict already known at the first word
        seen.clear()
        ask(client, play(word, 1), second=True)
        assert seen == [("file2018", 8), ("file2017", 8)]


def test_an_input_error_is_the_same_with_or_without_the_second(client):
    with_second = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CASA", "KIWI"], "second": True})
    without = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CASA", "KIWI"]})
    assert with_second.status_code == 422 and with_second.data == without.data
    assert with_second.get_json()["word"] == 2


# -- how it is asked for --------------------------------------------------------------------------


def test_get_with_second_1_is_the_post_answer(client):
    for word in COMBINATIONS.values():
        got = client.get(f"/v1/challenge?lexicon=es&word=CASA&word={word}&second=1")
        assert got.status_code == 200 and got.data == ask(client, ["CASA", word], second=True).data
        plain = client.get(f"/v1/challenge?lexicon=es&word=CASA&word={word}&second=0")
        assert plain.data == ask(client, ["CASA", word]).data


@pytest.mark.parametrize("query", ["second=yes", "second=1&second=1"])
def test_get_refuses_a_second_that_is_no_flag(client, query):
    got = client.get(f"/v1/challenge?lexicon=es&word=CASA&{query}")
    assert got.status_code == 422 and got.get_json()["parameter"] == "second"


@pytest.mark.parametrize("value", ["yes", 1, None, []])
def test_post_refuses_a_second_that_is_no_boolean(client, value):
    got = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CASA"], "second": value})
    assert got.status_code == 422 and got.get_json()["pointer"] == "/second"
    assert "second must be true or false" in got.get_json()["detail"]


def test_second_given_twice_is_refused(client):
    got = client.post(
        "/v1/challenge",
        data=b'{"lexicon":"es","words":["CASA"],"second":true,"second":false}',
        content_type="application/json",
    )
    assert got.status_code == 422 and got.get_json()["pointer"] == "/second"


def test_a_lexicon_without_a_second_opinion_refuses_the_question(client):
    for name, lexicon_id in (("ca", "ca-mini"), ("file2017", "file2017")):  # another language; the second itself
        got = client.post("/v1/challenge", json={"lexicon": name, "words": ["CASA"], "second": True})
        assert got.status_code == 422
        assert got.get_json()["type"].endswith("/no-second-opinion") and got.get_json()["lexicon"] == lexicon_id
        assert client.post("/v1/challenge", json={"lexicon": name, "words": ["CASA"]}).status_code == 200


def test_always_gives_it_unasked_and_false_leaves_it_out(files):
    client = create_app(config(files, LEXICON_SECOND_ALWAYS="yes")).test_client()
    for (_, other), word in COMBINATIONS.items():
        unasked = ask(client, ["CASA", word])
        assert unasked.data == ask(client, ["CASA", word], second=True).data
        assert unasked.get_json()["second"]["valid"] is other
        assert "second" not in ask(client, ["CASA", word], second=False).get_json()
    plain = client.post("/v1/challenge", json={"lexicon": "ca", "words": ["CASA"]})  # none for Catalan
    assert plain.status_code == 200 and "second" not in plain.get_json()


def test_a_batch_carries_each_plays_second_and_the_second_lexicon_once(client):
    plays = [{"id": f"t{n}", "words": ["CASA", word]} for n, word in enumerate(COMBINATIONS.values())]
    got = client.post("/v1/challenges", json={"lexicon": "es", "plays": plays, "second": True})
    assert got.status_code == 200, got.data
    answer = got.get_json()
    assert [(r["valid"], r["second"]["valid"]) for r in answer["results"]] == list(COMBINATIONS)
    assert answer["second"] == {"lexicon": ask(client, ["CASA"], second=True).get_json()["second"]["lexicon"]}
    plain = client.post("/v1/challenges", json={"lexicon": "es", "plays": plays}).get_json()
    assert "second" not in plain and all("second" not in r for r in plain["results"])


# -- the settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, message",
    [
        ("es", "LEXICON_SECOND: 'es' is not LANG:ID"),
        ("es:file2017,es:file2018", "LEXICON_SECOND: 'es' is given twice"),
    ],
)
def test_a_second_setting_that_cannot_be_read_names_the_variable(files, value, message):
    with pytest.raises(SettingsError, match=message):
        create_app(config(files, LEXICON_SECOND=value))


@pytest.mark.parametrize(
    "value, message",
    [
        ("es:file2016", "LEXICON_SECOND: es:file2016: no lexicon 'file2016' is served"),
        ("ca:file2017", "LEXICON_SECOND: ca:file2017: 'file2017' is a lexicon of language 'es', not 'ca'"),
        ("ca:ca-mini", "LEXICON_SECOND: ca:ca-mini: no other lexicon of 'ca' is served"),
    ],
)
def test_a_second_lexicon_that_is_not_served_stops_the_start(files, value, message):
    with pytest.raises(StartError, match=message):
        create_app(config(files, LEXICON_SECOND=value))


@pytest.mark.server
def test_lexicon_serve_stops_with_exit_2_naming_the_variable(files):
    import os
    import subprocess

    from tests.support import LEXICON_SCRIPT, free_port

    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["LEXICON_FILES"] = os.pathsep.join(str(files[n]) for n in ("new", "old"))
    for value, says in (
        ("es:file2016", "Error: LEXICON_SECOND: es:file2016: no lexicon 'file2016' is served"),
        ("file2017", "Error: LEXICON_SECOND: 'file2017' is not LANG:ID"),
    ):
        done = subprocess.run(
            [str(LEXICON_SCRIPT), "serve", "--port", str(free_port())],
            capture_output=True,
            text=True,
            env={**env, "LEXICON_SECOND": value},
            timeout=60,
        )
        assert done.returncode == 2 and says in done.stderr, done.stderr


def test_always_must_be_yes_or_no(files):
    with pytest.raises(SettingsError, match="LEXICON_SECOND_ALWAYS: 'sometimes' is not yes or no"):
        create_app(config(files, LEXICON_SECOND_ALWAYS="sometimes"))


def test_the_page_and_the_document_know_the_second(client, files):
    from service.page_data import page_data

    data = page_data(client.application, 15)
    assert {item["id"]: item.get("second") for item in data["lexicons"]} == {
        "file2018": "file2017",
        "file2017": None,
        "ca-mini": None,
    }
    document = client.get("/openapi.json").get_json()
    assert "second" in document["components"]["schemas"]["ChallengeRequest"]["properties"]
    assert "second" in document["components"]["schemas"]["Verdict"]["properties"]
    get = document["paths"]["/v1/challenge"]["get"]["parameters"]
    assert any(parameter["name"] == "second" for parameter in get)


# -- in an event: the record keeps the second opinion the players were shown -----------------------


def test_in_an_event_the_record_keeps_the_second_opinion_shown(files, tmp_path):
    from tests.service.event.conftest import keyed
    from tournament import create_event, read_export, verify
    from tournament import export as export_record

    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", "una-clave-bien-larga").close()
    app = create_app(config(files, LEXICON_EVENT=str(path)))  # no longer refused together
    director = app.test_client()
    same = {"Origin": "http://localhost"}
    assert (
        director.post("/v1/director/session", json={"password": "una-clave-bien-larga"}, headers=same).status_code
        == 201
    )
    code = director.post("/v1/devices", json={"name": "Juez 1", "role": "judge"}, headers=same).json["code"]
    token = app.test_client().post("/v1/devices/pair", json={"code": code}).json["token"]
    judge = {"Authorization": f"Bearer {token}"}
    client = app.test_client()

    bodies = {}
    for expected, word in COMBINATIONS.items():
        answer = client.post(
            "/v1/challenge", json=keyed({"lexicon": "es", "words": ["CASA", word], "second": True}), headers=judge
        ).get_json()
        assert (answer["valid"], answer["second"]["valid"]) == expected and answer["second"]["lexicon"][
            "id"
        ] == "file2017"
        bodies[expected] = answer
    plain = client.post("/v1/challenge", json=keyed({"lexicon": "es", "words": ["CASA"]}), headers=judge).get_json()
    batch = client.post(
        "/v1/challenges",
        json=keyed({"lexicon": "es", "second": True, "plays": [{"words": ["CASA", NEW_ONLY]}, {"words": [OLD_ONLY]}]}),
        headers=judge,
    ).get_json()

    db = app.extensions["lexicon_event"].db
    rows = {row.seq: row for row in db.records()}
    for expected, answer in bodies.items():
        row = rows[answer["record"]]
        assert (row.entry.valid, row.entry.second_valid) == expected and row.format == 3
        assert (row.entry.second_lexicon_id, row.entry.second_lexicon_version) == ("file2017", "2017")
        assert row.entry.second_lexicon_checksum == answer["second"]["lexicon"]["checksum"]
    alone = rows[plain["record"]]
    assert "second" not in plain and alone.format == 2 and alone.entry.second_lexicon_id is None
    assert (
        [(rows[r["record"]].entry.valid, rows[r["record"]].entry.second_valid) for r in batch["results"]]
        == [(True, False), (False, True)]
        == [(r["valid"], r["second"]["valid"]) for r in batch["results"]]
    )
    assert verify(db) is None and len(rows) == 7
    assert read_export(export_record(db, format="csv"), "csv") == list(rows.values())
    # Two answers that differ in which word failed still differ only in their record number.
    failed = [
        client.post("/v1/challenge", json=keyed({"lexicon": "es", "words": words, "second": True}), headers=judge).data
        for words in (["CASA", NEITHER, "MESA"], ["CASA", "MESA", NEITHER])
    ]
    assert failed[0].replace(b'"record":8', b'"record":9') == failed[1]
