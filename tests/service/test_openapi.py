"""The OpenAPI document, checked against the live app by schemathesis, property-based.

Every operation of /openapi.json gets requests generated from the document itself, both ones
that fit it (positive) and ones that do not (negative); each answer is checked against the
document: status documented, content type, schema of the body and headers, no server error,
negative data refused. Bounded (max_examples) and deterministic (derandomize, no database).

One check is narrowed: that every request fitting the document is accepted. Whether a string
is a word of tiles depends on the lexicon's language and the notation (CH is one Spanish tile,
NY one Catalan tile, Y no tile at all in Catalan), which JSON Schema cannot say; the document
says it in words, and such a string gets a documented 422 that names the character. So a
request that fits the document may get a 422 of a tile rule (`TILE_RULES`) and nothing else:
lengths, counts, types and members are all in the document (they come from service/types.py).

(schemathesis' own pytest plugin, `from_fixture`, does not run on pytest 9.2; its Hypothesis
strategies are used directly instead, which is what the plugin does.)
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode

pytestmark = pytest.mark.slow  # schemathesis generates hundreds of requests per operation

OPERATIONS = [
    ("POST", "/v1/challenge"),
    ("GET", "/v1/challenge"),
    ("POST", "/v1/challenges"),
    ("GET", "/v1/lexicons"),
    ("GET", "/v1/lexicons/{lexicon_id}/browser"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
]  # and /openapi.json, which schemathesis leaves out as the document's own address
TOKEN = "venue-token-7"
# and `second: true` for a lexicon without a second opinion, which no schema can say either
TILE_RULES = {
    f"tag:lexicon-judge,2026:problem/{kind}"
    for kind in ("empty-word", "not-a-tile", "word-length", "no-second-opinion")
}

CONFIG = {
    "checks": {
        "positive_data_acceptance": {"enabled": False},  # narrowed by `accepted` below
        # A body over 16 KiB is refused before it is read: 413 is a rejection too.
        "negative_data_rejection": {"expected-statuses": [400, 401, 404, 405, 413, 422]},
    }
}


def load(app):
    return schemathesis.openapi.from_wsgi("/openapi.json", app, config=SchemathesisConfig.from_dict(CONFIG))


def test_every_operation_is_checked(app):
    schema = load(app)
    listed = sorted((result.ok().method.upper(), result.ok().path) for result in schema.get_all_operations())
    assert listed == sorted(OPERATIONS)


def run(app, method: str, path: str, mode: GenerationMode, examples: int, headers=None) -> int:
    schema = load(app)
    operation = schema[path][method]
    calls = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    def check(case):
        response = case.call_and_validate(headers=headers)
        if mode is GenerationMode.POSITIVE and response.status_code == 422:
            assert response.json()["type"] in TILE_RULES, (case.body, case.query, response.json())
        calls.append(response.status_code)

    check()
    return len(calls)


@pytest.mark.parametrize("method, path", OPERATIONS)
def test_app_keeps_its_document(app, method, path):
    assert run(app, method, path, GenerationMode.POSITIVE, 60) > 0


@pytest.mark.parametrize("method, path", OPERATIONS[:3])  # the others take no input to spoil
def test_app_refuses_what_its_document_refuses(app, method, path):
    assert run(app, method, path, GenerationMode.NEGATIVE, 60) > 0


@pytest.mark.parametrize("method, path", OPERATIONS[:4])
def test_app_with_a_token_keeps_its_document(make_app, method, path):
    app = make_app(LEXICON_TOKEN=TOKEN)
    assert run(app, method, path, GenerationMode.POSITIVE, 25, {"Authorization": f"Bearer {TOKEN}"}) > 0
    assert run(app, method, path, GenerationMode.POSITIVE, 10) > 0  # no token: a documented 401
