"""The document's version is the one docs/api.md ("Versions") promises: the API's major version
is the paths' (/v1/), and the document says which revision of it the service speaks."""

from __future__ import annotations

import re

import pytest

from tournament import create_event


@pytest.mark.parametrize("in_event", [False, True], ids=["simple", "event"])
def test_the_document_s_major_version_is_its_paths(make_app, tmp_path, in_event):
    if in_event:
        create_event(tmp_path / "event.db", "Open", "a long enough password").close()
    app = make_app(**({"LEXICON_EVENT": str(tmp_path / "event.db")} if in_event else {}))
    document = app.test_client().get("/openapi.json").get_json()
    version = document["info"]["version"]
    assert re.fullmatch(r"[1-9][0-9]*\.[0-9]+\.[0-9]+", version), version
    majors = {found.group(1) for path in document["paths"] if (found := re.match(r"/v([0-9]+)/", path))}
    assert majors == {version.split(".")[0]}, (version, sorted(document["paths"]))
