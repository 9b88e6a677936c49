"""The OpenAPI 3.1 document of the API, served at /openapi.json and checked against the app by tests.

The schemas are derived from the types the service reads and writes (`COMPONENTS`, from their
modules: service/types.py, service/status_types.py, service/problems.py); the paths are written
here, from the same constants the code enforces (body limit, plays a batch), and from the
settings: with a venue token, the /v1/ operations say so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import msgspec

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES
from lexicon.verdict import Identity

from .config import BODY_SECONDS, MAX_BODY, MAX_PLAYS, Settings
from .problems import MEDIA_TYPE, TYPE_BASE, TYPES, ProblemDetails
from .status_types import Health, LexiconInfo, LexiconList, Ready
from .types import BatchRequest, BatchResult, ChallengeRequest, Play, SecondVerdict, Verdict

# The API's revision, as docs/api.md ("Versions") promises it: its first number is the paths'
# (/v1/), the second grows with each addition a program may use (1.1: `shown_valid`, an
# offline verdict's own; 1.2: a record row's `shown_valid`; 1.3: /readyz's `event_limits`; 1.4: a
# device's `refused_offline`, in the director's list; 1.5: its `refused_offline_lexicon`; 1.6: a
# record row's `second_not_shown`; the additions before 1.1 were not counted).
VERSION = "1.6.0"

# The components of the document, in the order they are listed there.
COMPONENTS = (
    Identity,
    Verdict,
    SecondVerdict,
    ChallengeRequest,
    Play,
    BatchRequest,
    BatchResult,
    LexiconList,
    LexiconInfo,
    Health,
    Ready,
    ProblemDetails,
)


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _problem(description: str, retry_after: bool = False) -> dict:
    """A problem answer; `retry_after`: one of its problems says when to ask again (`Retry-After`)."""
    said = {"description": description, "content": {MEDIA_TYPE: {"schema": _ref("ProblemDetails")}}}
    return {**said, "headers": {"Retry-After": {"$ref": "#/components/headers/retry-after"}}} if retry_after else said


def _json(description: str, schema: str, cache: str = "no-store") -> dict:
    return {
        "description": description,
        "headers": {"Cache-Control": {"$ref": f"#/components/headers/{cache}"}},
        "content": {"application/json": {"schema": _ref(schema)}},
    }


REF = "#/components/schemas/{name}"
# The 415 of every operation that reads a body (service.api.coded_body), the event's too.
CODED_BODY = (
    "A body sent with a Content-Encoding other than `identity` (gzip, say): not read, nothing done "
    "(`Accept-Encoding: identity`). Send it uncompressed."
)

# The 400 of every operation: its query is read as UTF-8 before anything else.
QUERY_NOT_UTF8 = (
    "A query string whose percent-encoded bytes are no UTF-8 (`?word=CAS%FF`): the problem names the "
    "`parameter` and quotes it; send the UTF-8 bytes of the text (Ñ is `%C3%91`)."
)


def schemas(names: list[str] | None = None, more: Sequence[type] = ()) -> dict[str, Any]:
    """The schema components, derived from the types the service decodes and encodes (and `more`:
    the app factory adds tournament mode's).

    Two things are data of this server, not of the types: the lexicon names it answers to (the
    `enum` of every `lexicon` member), and the list of problem types with their statuses.
    """
    components = msgspec.json.decode(_derived(COMPONENTS + tuple(more)))  # a new copy, changed below
    if names:
        for request in ("ChallengeRequest", "BatchRequest"):
            components[request]["properties"]["lexicon"]["enum"] = names
    components["ProblemDetails"]["description"] += (
        " Types of this API: "
        + ", ".join(f"`{TYPE_BASE}{name}` ({status})" for name, (status, _) in TYPES.items())
        + "."
    )
    return components


@cache
def _derived(types: tuple[type, ...]) -> bytes:
    """The schema components of `types`, derived once a process (each app's document has them:
    a service of every event makes an app an event), as JSON, which each document decodes anew."""
    return msgspec.json.encode(msgspec.json.schema_components(types, ref_template=REF)[1])


Extension = Callable[[dict, dict, Callable[[str], dict], Callable[..., dict], Callable[..., dict]], None]


def document(
    settings: Settings | None = None,
    names: list[str] | None = None,
    more: Sequence[type] = (),
    extend: Extension | None = None,
) -> dict[str, Any]:
    """The document of a server with these settings, answering to these lexicon names.

    The names (ids, and language codes of defaults) are the `enum` of every `lexicon` member
    and parameter: a tool reads there what it can ask for here (in an event, its lexicon's names
    alone: another served one is a 403); a name not served is a 404.
    `more` and `extend` are what tournament mode adds (its schemas; its operations, and what it
    changes in the challenge operations), given by the app factory: this module knows no event,
    so that the web package's common parts never import its tournament part.
    """
    token = settings is not None and settings.token is not None
    components: dict[str, Any] = {"schemas": schemas(names, more)}
    query = components["schemas"]["ChallengeRequest"]["properties"]  # a GET asks what a POST body does
    common = {
        "404": _problem(
            "Unknown lexicon (`unknown-lexicon`): a name this server does not serve; `known` lists the `enum`'s, "
            "the names to use."
        ),
        "422": _problem(
            "What this document refuses: wrong types or members, a string too long, a "
            "member given twice, a lone surrogate such as `\\ud800` (`invalid-request`), no "
            f"words or more than {MAX_WORDS} (`play-size`). And the tile rules, which it "
            "cannot state as a schema: an empty word (`empty-word`), a character that is no "
            "tile of the language in the notation (`not-a-tile`), a word of fewer than "
            f"{MIN_TILES} or more than {MAX_TILES} tiles (`word-length`). And `second: true` "
            "for a lexicon that has no second opinion on this server (`no-second-opinion`)."
        ),
    }
    with_body = {
        "400": _problem("The body is not JSON (`invalid-json`)."),
        "408": _problem(f"The body stalled: it had not arrived {BODY_SECONDS} s after the head."),
        "413": _problem(f"The body is over {MAX_BODY} bytes (with or without Content-Length)."),
        "415": _problem(CODED_BODY),
    }
    if token:
        common["401"] = _problem("No venue token, or a wrong one (`token-required`).")
    secured = {"security": [{"bearer": []}, {"queryToken": []}]} if token else {}

    paths = {
        "/v1/challenge": {
            "post": {
                "operationId": "challenge",
                "summary": "One joint verdict for all the words of one play",
                "description": "Answers `valid: true` when every word is in the lexicon. Every word "
                "is looked up every time; a not-valid answer is the same bytes "
                "whichever word failed. Input errors come before any lookup.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": _ref("ChallengeRequest"),
                            "examples": {"spanish": {"value": {"lexicon": "es", "words": ["CARRO", "CHICO"]}}},
                        }
                    },
                },
                "responses": {"200": _json("The verdict.", "Verdict"), **with_body, **common},
                **secured,
            },
            "get": {
                "operationId": "challengeByQuery",
                "summary": "The same verdict, for links and simple tools",
                "parameters": [
                    {"name": "lexicon", "in": "query", "required": True, "schema": query["lexicon"]},
                    {
                        "name": "word",
                        "in": "query",
                        "required": True,
                        "style": "form",
                        "explode": True,
                        "schema": query["words"],
                        "description": "Repeat for each word: word=CARRO&word=CHICO.",
                    },
                    {"name": "notation", "in": "query", "required": False, "schema": query["notation"]},
                    {
                        "name": "second",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string", "enum": ["1", "0", "true", "false"]},
                        "description": query["second"]["description"],
                    },
                ],
                "responses": {"200": _json("The verdict.", "Verdict"), **common},
                **secured,
            },
        },
        "/v1/challenges": {
            "post": {
                "operationId": "challenges",
                "summary": f"A batch of up to {MAX_PLAYS} plays, one joint verdict each, in order",
                "description": "For checking a stack of slips. Every play is read before any is "
                "judged: if any play has an input error the whole batch is refused "
                "with 422, naming the first play and word at fault (`play`, `id`, "
                "`word`) and listing every play at fault in `errors`.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": _ref("BatchRequest"),
                            "examples": {
                                "catalan": {
                                    "value": {
                                        "lexicon": "ca",
                                        "plays": [{"id": "t12-r3", "words": ["COL·LEGI", "QUADRE"]}],
                                    }
                                }
                            },
                        }
                    },
                },
                "responses": {"200": _json("One verdict per play, in order.", "BatchResult"), **with_body, **common},
                **secured,
            },
        },
        "/v1/lexicons": {
            "get": {
                "operationId": "lexicons",
                "summary": "Every loaded lexicon, and which is its language's default",
                "responses": {
                    "200": _json("The loaded lexicons.", "LexiconList", "private"),
                    **({"401": common["401"]} if token else {}),
                },
                **secured,
            },
        },
        "/v1/lexicons/{lexicon_id}/browser": {
            "get": {
                "operationId": "browserLexicon",
                "summary": "The lexicon as a compact automaton for the judge's page offline",
                "description": "The browser lexicon file (docs/browser-lexicon.md): immutable, with a "
                "strong ETag, brotli or gzip as accepted.",
                "parameters": [{"name": "lexicon_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {
                    "200": {
                        "description": "The file.",
                        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
                    },
                    "304": {"description": "Not modified (If-None-Match)."},
                    "307": {
                        "description": "A language code (`es`) or an id in another case: sent on, not cached, "
                        "to the lexicon id's URL, the one cached as immutable (a language's default may change).",
                        "headers": {
                            "Location": {
                                "description": "`/v1/lexicons/{id}/browser` of the lexicon it names.",
                                "schema": {"type": "string"},
                            }
                        },
                    },
                    "404": _problem("No lexicon with this id (`unknown-lexicon`)."),
                    **({"401": common["401"]} if token else {}),
                },
                **secured,
            },
        },
        "/healthz": {
            "get": {
                "operationId": "health",
                "summary": "The process answers",
                "responses": {"200": _json("Alive.", "Health")},
            }
        },
        "/readyz": {
            "get": {
                "operationId": "ready",
                "summary": "The lexicons are loaded and verified",
                "responses": {"200": _json("Ready.", "Ready"), "503": _problem("Not ready (`not-ready`).")},
            }
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document",
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.1.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
    }

    if extend is not None:  # tournament mode: service.event.openapi_paths.add_to, given by the app factory
        extend(paths, components, _ref, _problem, _json)
    for item in paths.values():  # every route reads its query first (service.decoding.query_not_utf8)
        for operation in item.values():
            said = operation["responses"].get("400")
            operation["responses"]["400"] = _problem(
                f"{said['description']} Or {QUERY_NOT_UTF8}" if said else QUERY_NOT_UTF8
            )

    components.update(
        {
            "headers": {
                "no-store": {
                    "description": "Verdicts stay out of every cache.",
                    "schema": {"type": "string", "const": "no-store"},
                },
                "private": {
                    "description": "Only the caller may cache it, briefly.",
                    "schema": {"type": "string", "const": "private, max-age=60"},
                },
                "retry-after": {
                    "description": "Seconds to wait before asking again, as the body's `retry_after`: sent with "
                    "the problems this answer names with `Retry-After`, never with the others.",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"},
                },
            },
        }
    )
    if token:
        components["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer", "description": "The venue token."},
            "queryToken": {
                "type": "apiKey",
                "in": "query",
                "name": "token",
                "description": "The venue token, for links.",
            },
        }

    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Lexicon Judge challenge service",
            "version": VERSION,
            "summary": "Joint verdicts on Scrabble plays in Spanish and Catalan lexicons",
            "description": "One verdict for all the words of a play, never saying which word "
            "failed (FISE art. 40, AJS DCT 4.1.7, LLISCA art. 26). Bodies are at "
            f"most {MAX_BODY} bytes and are read as JSON whatever their Content-Type.",
            "license": {"name": "GPL-3.0-or-later", "identifier": "GPL-3.0-or-later"},
        },
        "paths": paths,
        "components": components,
    }
