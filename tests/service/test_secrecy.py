"""A verdict never tells which word failed: not in the body, the headers, the work done, the logs."""

from __future__ import annotations

import datetime
import json
import logging
from types import SimpleNamespace

import pytest
from gunicorn.config import Config

from lexicon.lexfile import Lexicon
from service import gunicorn_conf
from service.logs import NO_ROUTE, ROUTE_KEY, GunicornLogger, JSONFormatter

from .conftest import EIGHT_VALID, NOT_WORDS


def plays_failing_at_each_position(bad: str) -> list[list[str]]:
    plays = []
    for position in range(8):
        words = list(EIGHT_VALID)
        words[position] = bad
        plays.append(words)
    return plays


@pytest.mark.parametrize("bad", NOT_WORDS)
def test_not_valid_answer_is_identical_whichever_word_failed(client, bad):
    answers = []
    for words in plays_failing_at_each_position(bad):
        response = client.post("/v1/challenge", json={"lexicon": "es", "words": words})
        answers.append((response.status_code, sorted(response.headers.items()), response.data))
    assert answers[0][0] == 200
    assert json.loads(answers[0][2])["valid"] is False
    assert all(answer == answers[0] for answer in answers)  # body AND every header (length included)

    by_query = []
    for words in plays_failing_at_each_position(bad):
        response = client.get("/v1/challenge", query_string=[("lexicon", "es")] + [("word", w) for w in words])
        by_query.append((response.status_code, sorted(response.headers.items()), response.data))
    assert all(answer == answers[0] for answer in by_query)


def test_not_valid_answer_is_the_same_with_several_words_missing(client):
    one = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO", "CARRA"]})
    three = client.post("/v1/challenge", json={"lexicon": "es", "words": NOT_WORDS})
    assert one.data == three.data and sorted(one.headers.items()) == sorted(three.headers.items())


def test_batch_results_do_not_depend_on_the_failing_position(client):
    plays = [{"id": "slip", "words": words} for words in plays_failing_at_each_position("ZURDO")]
    results = client.post("/v1/challenges", json={"lexicon": "es", "plays": plays}).get_json()["results"]
    assert results == [{"id": "slip", "valid": False}] * 8


def test_every_word_is_looked_up_whichever_fails(client, monkeypatch):
    looked_up: list[str] = []
    original = Lexicon.count_in  # looks up every key it is given (tests/lexicon/test_verdict.py)

    def counting(self, keys):
        looked_up.extend(keys)
        return original(self, keys)

    monkeypatch.setattr(Lexicon, "count_in", counting)
    for words in plays_failing_at_each_position("ZURDO"):
        looked_up.clear()
        assert client.post("/v1/challenge", json={"lexicon": "es", "words": words}).get_json()["valid"] is False
        assert len(looked_up) == 8
    looked_up.clear()
    client.post("/v1/challenges", json={"lexicon": "es", "plays": [{"words": ["ZURDO", "CARRO"]}] * 3})
    assert len(looked_up) == 6


# -- logs -----------------------------------------------------------------------------------------------

SECRET_WORDS = ["PINGÜINO", "ÑANDÚ", "ZURDO", "XILÓFONO", "QUESO", "KIWI"]


def test_app_logs_never_hold_the_words(make_app, capfd):
    client = make_app(LEXICON_LOG_LEVEL="debug").test_client()
    capfd.readouterr()
    client.post("/v1/challenge", json={"lexicon": "es", "words": ["PINGÜINO", "ÑANDÚ"]})
    client.post("/v1/challenge", json={"lexicon": "es", "words": ["PINGÜINO", "ZURDO"]})
    client.get("/v1/challenge", query_string="lexicon=es&word=XIL%C3%93FONO&word=QUESO")
    client.post("/v1/challenges", json={"lexicon": "es", "plays": [{"id": "t1", "words": ["ZURDO"]}]})
    client.post("/v1/challenge", json={"lexicon": "es", "words": ["ZURDO", "KIWI"]})  # an input error
    client.post("/v1/challenge", data=b'{"lexicon": "es", "words": ["ZURDO"')  # broken JSON
    logged = capfd.readouterr()
    text = logged.out + logged.err
    assert text, "the requests logged nothing at all: the test would prove nothing"
    for line in logged.err.splitlines():
        json.loads(line)  # one JSON object a line
    for word in SECRET_WORDS:
        assert word not in text
        assert word.lower() not in text.lower()
    assert "XIL%C3%93FONO" not in text and "query" not in text.lower().replace("[query removed]", "")


def access_line(path: str, query: str, status: int = 200, sent: int = 191, routed: bool = True) -> dict:
    """One access log line of GunicornLogger, as JSON (`routed`: the app left the path as its route)."""
    config = Config()  # gunicorn's own, with the service's logging settings
    for name in ("accesslog", "errorlog", "logger_class", "proc_name"):
        config.set(name, getattr(gunicorn_conf, name))
    logger = GunicornLogger(config)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.access_log.addHandler(handler)
    try:
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "REMOTE_ADDR": "192.0.2.7",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "RAW_URI": f"{path}?{query}",
            **({ROUTE_KEY: path} if routed else {}),
        }
        response = SimpleNamespace(status_code=status, sent=sent, status=f"{status} OK", headers=[])
        logger.access(response, SimpleNamespace(), environ, datetime.timedelta(milliseconds=1.5))
    finally:
        logger.access_log.removeHandler(handler)
    assert len(records) == 1
    return json.loads(records[0].getMessage())  # the line as written: JSON already


def test_access_log_has_no_query_and_no_size_of_a_verdict():
    line = access_line("/v1/challenge", "lexicon=es&word=ZURDO")
    assert line["path"] == "/v1/challenge" and line["status"] == 200 and line["method"] == "GET"
    assert "bytes" not in line
    assert "ZURDO" not in json.dumps(line)
    assert "bytes" not in access_line("/v1/challenges", "")
    assert access_line("/v1/lexicons", "")["bytes"] == 191
    assert access_line("/v1/PERA/MANGO", "", 404, routed=False)["path"] == NO_ROUTE  # the path typed: never


def test_gunicorn_messages_lose_their_query_strings():
    record = logging.LogRecord(
        "gunicorn.error",
        logging.WARNING,
        __file__,
        1,
        "Invalid request from ip=%s: %s",
        ("192.0.2.7", "Invalid HTTP request line: 'GET /v1/challenge?lexicon=es&word=ZURDO HTTP/1.1 x'"),
        None,
    )
    line = json.loads(JSONFormatter().format(record))
    assert line["message"] == "Invalid request from ip=192.0.2.7: Invalid HTTP request line: [removed]"
