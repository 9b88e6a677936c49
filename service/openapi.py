"""The OpenAPI 3.1 document of the API, served at /openapi.json and checked against the app by tests.

Built from the same constants the code enforces (words a play, plays a batch, body limit), and
from the settings: with a venue token, the /v1/ operations say so.
"""

from __future__ import annotations

from typing import Any

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS

from .config import MAX_BODY, MAX_PLAY_ID, MAX_PLAYS, NOTATIONS, Settings
from .problems import MEDIA_TYPE, TYPE_BASE, TYPES

VERSION = "1.0.0"


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _problem(description: str) -> dict:
    return {"description": description, "content": {MEDIA_TYPE: {"schema": _ref("Problem")}}}


def _json(description: str, schema: str, cache: str = "no-store") -> dict:
    return {
        "description": description,
        "headers": {"Cache-Control": {"$ref": f"#/components/headers/{cache}"}},
        "content": {"application/json": {"schema": _ref(schema)}},
    }


IDENTITY = {
    "type": "object",
    "description": "Which list answered: a verdict is only as trustworthy as this.",
    "required": ["id", "name", "version", "checksum"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "version": {"type": "string"},
        "checksum": {"type": "string", "pattern": "^[0-9a-f]{64}$",
                     "description": "SHA-256 of the compiled file, as `sha256sum` prints it."},
    },
}

WORDS = {
    "type": "array",
    "minItems": MIN_WORDS,
    "maxItems": MAX_WORDS,
    "items": {"type": "string", "minLength": 1},
    "description": f"All the words formed by one play, {MIN_WORDS} to {MAX_WORDS}, each of "
                   f"{MIN_TILES} to {MAX_TILES} tiles. Surrounding white space is ignored.",
    "examples": [["CARRO", "CHICO"]],
}

NOTATION = {
    "type": "string",
    "enum": list(NOTATIONS),
    "default": "spelling",
    "description": "`spelling`: natural spelling (CARRO, COL·LEGI, camión; CH, LL, RR, L·L, NY, QU "
                   "read as one tile). `tiles`: engine tile notation ([CH], [LL], [RR] or 1 2 3; "
                   "L·L or W, NY or Y, QU or Q, Ç or K; plain CH is two tiles).",
}

LEXICON_NAME = {
    "type": "string",
    "description": "A lexicon's id, or a language code (`es`, `ca`) for that language's default.",
    "examples": ["es"],
}

PROBLEM = {
    "type": "object",
    "description": "RFC 9457 problem details. Input errors quote what was typed and never say "
                   "anything about the lexicon. Types of this API: "
                   + ", ".join(f"`{TYPE_BASE}{name}` ({status})" for name, (status, _) in TYPES.items())
                   + "; plain HTTP errors (404 path, 405, 413, 500) are `about:blank`.",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "format": "uri-reference"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "word": {"type": "integer", "minimum": 1, "description": "The word's 1-based place in its play."},
        "input": {"type": "string", "description": "The word as typed."},
        "character": {"type": "string", "description": "The character that is no tile."},
        "position": {"type": "integer", "minimum": 1, "description": "Its 1-based place in the word."},
        "reason": {"type": "string"},
        "tiles": {"type": "integer", "description": "How many tiles the word has."},
        "count": {"type": "integer", "description": "How many words the play has."},
        "play": {"type": "integer", "minimum": 1, "description": "The play's 1-based place in a batch."},
        "id": {"type": ["string", "null"], "description": "The play's id in a batch."},
        "pointer": {"type": "string", "description": "JSON Pointer (RFC 6901) to the body member at fault."},
        "parameter": {"type": "string", "description": "The query parameter at fault."},
        "lexicon": {"type": "string", "description": "The lexicon name asked for."},
        "known": {"type": "array", "items": {"type": "string"}, "description": "The names this server answers to."},
        "limit": {"type": "integer", "description": "The body limit in bytes."},
        "errors": {"type": "array", "items": {"type": "object"},
                   "description": "In a batch: one entry per play with an error, each with the "
                                  "members above; the top-level members are those of the first."},
    },
}


def document(settings: Settings | None = None, names: list[str] | None = None) -> dict[str, Any]:
    """The document of a server with these settings, answering to these lexicon names.

    The names (ids, and language codes of defaults) are the `enum` of every `lexicon` member
    and parameter: a tool reads there what this server serves; any other name is a 404.
    """
    token = settings is not None and settings.token is not None
    lexicon_name = dict(LEXICON_NAME, **({"enum": names} if names else {}))
    common = {
        "404": _problem("Unknown lexicon (`unknown-lexicon`): a name not in the `enum`."),
        "422": _problem("Wrong types or members (`invalid-request`), no words or more than "
                        f"{MAX_WORDS} (`play-size`), an empty word (`empty-word`), a character "
                        "that is no tile (`not-a-tile`), a word of fewer than 2 or more than 15 "
                        "tiles (`word-length`)."),
    }
    with_body = {
        "400": _problem("The body is not JSON (`invalid-json`)."),
        "408": _problem("The body stalled (a read of it took over 5 s)."),
        "413": _problem(f"The body is over {MAX_BODY} bytes (with or without Content-Length)."),
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
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": _ref("ChallengeRequest"),
                    "examples": {"spanish": {"value": {"lexicon": "es", "words": ["CARRO", "CHICO"]}}},
                }}},
                "responses": {"200": _json("The verdict.", "Verdict"), **with_body, **common},
                **secured,
            },
            "get": {
                "operationId": "challengeByQuery",
                "summary": "The same verdict, for links and simple tools",
                "parameters": [
                    {"name": "lexicon", "in": "query", "required": True, "schema": lexicon_name},
                    {"name": "word", "in": "query", "required": True, "style": "form", "explode": True,
                     "schema": WORDS, "description": "Repeat for each word: word=CARRO&word=CHICO."},
                    {"name": "notation", "in": "query", "required": False, "schema": NOTATION},
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
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": _ref("BatchRequest"),
                    "examples": {"catalan": {"value": {"lexicon": "ca", "plays": [
                        {"id": "t12-r3", "words": ["COL·LEGI", "QUADRE"]}]}}},
                }}},
                "responses": {"200": _json("One verdict per play, in order.", "BatchResult"),
                              **with_body, **common},
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
                "parameters": [{"name": "lexicon_id", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {
                    "200": {"description": "The file.", "content": {"application/octet-stream": {
                        "schema": {"type": "string", "format": "binary"}}}},
                    "304": {"description": "Not modified (If-None-Match)."},
                    "404": _problem("No lexicon with this id (`unknown-lexicon`)."),
                    **({"401": common["401"]} if token else {}),
                },
                **secured,
            },
        },
        "/healthz": {"get": {
            "operationId": "health", "summary": "The process answers",
            "responses": {"200": _json("Alive.", "Health")},
        }},
        "/readyz": {"get": {
            "operationId": "ready", "summary": "The lexicons are loaded and verified",
            "responses": {"200": _json("Ready.", "Ready"),
                          "503": _problem("Not ready (`not-ready`).")},
        }},
        "/openapi.json": {"get": {
            "operationId": "openapi", "summary": "This document",
            "responses": {"200": {"description": "OpenAPI 3.1.", "content": {"application/json": {
                "schema": {"type": "object"}}}}},
        }},
    }

    components: dict[str, Any] = {
        "schemas": {
            "Identity": IDENTITY,
            "Verdict": {
                "type": "object", "required": ["valid", "lexicon"], "additionalProperties": False,
                "properties": {"valid": {"type": "boolean"}, "lexicon": _ref("Identity")},
            },
            "ChallengeRequest": {
                "type": "object", "required": ["lexicon", "words"], "additionalProperties": False,
                "properties": {"lexicon": lexicon_name, "words": WORDS, "notation": NOTATION},
            },
            "Play": {
                "type": "object", "required": ["words"], "additionalProperties": False,
                "properties": {
                    "id": {"type": ["string", "null"], "maxLength": MAX_PLAY_ID,
                           "description": "Anything that names the slip, e.g. table and round; echoed back."},
                    "words": WORDS,
                },
            },
            "BatchRequest": {
                "type": "object", "required": ["lexicon", "plays"], "additionalProperties": False,
                "properties": {
                    "lexicon": lexicon_name, "notation": NOTATION,
                    "plays": {"type": "array", "minItems": 1, "maxItems": MAX_PLAYS, "items": _ref("Play")},
                },
            },
            "BatchResult": {
                "type": "object", "required": ["results", "lexicon"], "additionalProperties": False,
                "properties": {
                    "results": {"type": "array", "items": {
                        "type": "object", "required": ["id", "valid"], "additionalProperties": False,
                        "properties": {"id": {"type": ["string", "null"]}, "valid": {"type": "boolean"}},
                    }},
                    "lexicon": _ref("Identity"),
                },
            },
            "LexiconList": {
                "type": "object", "required": ["lexicons"], "additionalProperties": False,
                "properties": {"lexicons": {"type": "array", "items": _ref("LexiconInfo")}},
            },
            "LexiconInfo": {
                "type": "object", "additionalProperties": False,
                "required": ["id", "name", "language", "version", "words", "checksum", "words_sha256",
                             "default", "source", "licence"],
                "properties": {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "language": {"type": "string", "examples": ["es", "ca"]},
                    "version": {"type": "string"},
                    "words": {"type": "integer", "minimum": 0},
                    "checksum": IDENTITY["properties"]["checksum"],
                    "words_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$",
                                     "description": "SHA-256 of `lexicon dump`: the words themselves."},
                    "default": {"type": "boolean",
                                "description": "Whether the language code names this lexicon."},
                    "source": {"type": "string"},
                    "licence": {"type": "string"},
                },
            },
            "Health": {"type": "object", "required": ["status"], "additionalProperties": False,
                       "properties": {"status": {"const": "ok"}}},
            "Ready": {"type": "object", "required": ["status", "lexicons"], "additionalProperties": False,
                      "properties": {"status": {"const": "ready"},
                                     "lexicons": {"type": "array", "items": {"type": "string"}}}},
            "Problem": PROBLEM,
        },
        "headers": {
            "no-store": {"description": "Verdicts stay out of every cache.",
                         "schema": {"type": "string", "const": "no-store"}},
            "private": {"description": "Only the caller may cache it, briefly.",
                        "schema": {"type": "string", "const": "private, max-age=60"}},
        },
    }
    if token:
        components["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer", "description": "The venue token."},
            "queryToken": {"type": "apiKey", "in": "query", "name": "token",
                           "description": "The venue token, for links."},
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
