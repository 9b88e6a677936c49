"""The OpenAPI documents' schemas are JSON Schema as their readers read it: OpenAPI 3.1's dialect
is JSON Schema 2020-12, whose `pattern` is an ECMA-262 regular expression, not Python's.

The types write their patterns for msgspec, which runs them with Python's `re`; schemathesis
(tests/service/test_openapi.py) reads them with Python's too, so neither would notice a pattern
only Python reads (`\\Z`, `(?P<name>…)`, a possessive `++`): a client generated from the
document, or a validator in JavaScript, would refuse it or, worse, read it otherwise (without
the `u` flag, `\\Z` is a plain Z). Every schema is checked against the 2020-12 meta-schema, and
every pattern compiled by Node.js's RegExp with the `u` flag (ECMA-262's stricter reading).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import jsonschema_rs
import pytest

from tournament import create_event

# Each pattern compiled as ECMA-262 reads it; the ones that do not compile printed with why.
COMPILE = """
const failed = [];
for (const pattern of JSON.parse(require("fs").readFileSync(0, "utf8"))) {
  try { new RegExp(pattern, "u"); } catch (error) { failed.push([pattern, error.message]); }
}
process.stdout.write(JSON.stringify(failed));
"""


def schemas(node, where: str = ""):
    """Every schema object of a document (`schema` members, `components/schemas`), with where."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "schema" and isinstance(value, dict):
                yield f"{where}/{key}", value
            if key == "schemas" and where.endswith("/components"):
                yield from ((f"{where}/schemas/{name}", each) for name, each in value.items())
            yield from schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from schemas(value, f"{where}/{index}")


def patterns(node) -> set[str]:
    """Every `pattern` keyword's value below a schema (a property named `pattern` is an object)."""
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                found.add(value)
            found |= patterns(value)
    elif isinstance(node, list):
        for value in node:
            found |= patterns(value)
    return found


def not_ecma(given: set[str]) -> list:
    node = shutil.which("node")
    assert node, "Node.js is not installed: `make test` installs it (apt-get install nodejs)"
    ran = subprocess.run([node, "-e", COMPILE], input=json.dumps(sorted(given)), capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


@pytest.fixture(params=[False, True], ids=["simple", "event"])
def document(request, make_app, tmp_path):
    """/openapi.json of the simple mode, and of an event (its operations added)."""
    if request.param:
        create_event(tmp_path / "event.db", "Open", "a long enough password").close()
    app = make_app(**({"LEXICON_EVENT": str(tmp_path / "event.db")} if request.param else {}))
    made = app.test_client().get("/openapi.json").get_json()
    assert made["openapi"].startswith("3.1")
    return made


def test_every_schema_of_the_document_is_a_json_schema(document):
    found = list(schemas(document))
    assert len(found) > 20
    for where, schema in found:
        assert jsonschema_rs.meta.is_valid(schema), (where, schema)


@pytest.mark.node
def test_a_pattern_only_python_reads_is_told_apart():
    """The check itself: Python's end of text and named group are no ECMA-262 (with `u`)."""
    failed = not_ecma({r"^[0-9a-f]{16}\Z", r"^(?P<hex>[0-9a-f]+)$", r"^[0-9a-f]{16}(?!\n)$"})
    assert sorted(pattern for pattern, _ in failed) == [r"^(?P<hex>[0-9a-f]+)$", r"^[0-9a-f]{16}\Z"]


@pytest.mark.node
def test_every_pattern_of_the_document_is_ecma_262(document):
    every = patterns(document)
    assert any(pattern.endswith(r"(?!\n)$") for pattern in every), every  # service/event_members.py's END
    assert not_ecma(every) == []
