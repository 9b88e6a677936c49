"""`python -m bench.same_answers`: the check that a change meant to make the service faster changed
no answer. It must find a difference of one byte, in a body or a header, and none between a
revision and itself (nothing in an answer may depend on the process that gave it)."""

from __future__ import annotations

import base64

from bench import same_answers


def _answer(body: bytes, headers=(("Content-Type", "application/json"),), status: str = "200 OK") -> list:
    return [status, [list(header) for header in headers], base64.b64encode(body).decode()]


def test_a_byte_changed_in_a_body_or_a_header_is_found_and_named():
    requests = [same_answers._get("/healthz"), same_answers._get("/readyz")]
    old = {"plain 0": _answer(b'{"status":"ok"}'), "plain 1": _answer(b"{}")}
    assert same_answers.differences(old, dict(old), requests) == []

    body = {**old, "plain 0": _answer(b'{"status":"OK"}')}
    found = same_answers.differences(old, body, requests)
    assert len(found) == 1 and found[0].startswith("plain 0: GET /healthz: body was") and "OK" in found[0]

    header = {**old, "plain 1": _answer(b"{}", (("Content-Type", "application/problem+json"),))}
    assert [line.split(": headers")[0] for line in same_answers.differences(old, header, requests)] == [
        "plain 1: GET /readyz"
    ]
    assert same_answers.differences(old, {"plain 0": old["plain 0"]}, requests) == [
        "plain 1: GET /readyz: answered on one side only"
    ]


def test_the_last_commit_answers_as_itself_every_request_of_every_configuration():
    count, found = same_answers.compare("HEAD")
    assert found == []
    assert count == len(same_answers._challenges()) * 6  # six configurations, every request answered
