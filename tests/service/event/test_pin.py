"""An event pins its lexicon by checksum: every instance that serves the event judges with those
very bytes, or does not start (exit 2, naming the file to add to LEXICON_FILES); /readyz says
which event and lexicon an instance serves, so two instances can be compared before a challenge.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace

import pytest

from service import StartError, create_app
from tests.service.conftest import app_config
from tests.support import LEXICON_SCRIPT, REPO, LiveServer, free_port
from tournament import Pin, create_event, open_event

from .conftest import PASSWORD, keyed

XILOFONO = {"lexicon": "es", "words": ["XILÓFONO"]}  # in es-alt only


def files(lexicon_files, *names):
    return [str(lexicon_files[name]) for name in names]


def app(lexicon_files, event_path, *names):
    return create_app(
        app_config(lexicon_files, LEXICON_EVENT=str(event_path), LEXICON_FILES=files(lexicon_files, *names))
    )


def test_an_older_event_is_pinned_at_its_first_start_and_every_instance_judges_with_that_lexicon(
    tmp_path, lexicon_files
):
    path = tmp_path / "open.db"
    create_event(path, "Open", PASSWORD, lexicon="es").close()  # only a name, as before pins
    first = app(lexicon_files, path, "es-mini", "ca-mini")  # es is es-mini here...
    second = app(lexicon_files, path, "es-alt", "es-mini")  # ...and es-alt here, es-mini served too
    pin = open_event(path).event().pin
    checksum = first.extensions["lexicon_registry"].find("es-mini").identity.checksum
    assert (pin.id, pin.checksum, pin.by, pin.language) == ("es-mini", checksum, "start", "es")
    verdicts = [instance.test_client().post("/v1/challenge", json=keyed(XILOFONO)).json for instance in (first, second)]
    assert [v["valid"] for v in verdicts] == [False, False]  # the event's lexicon, not each one's default
    assert {v["lexicon"]["checksum"] for v in verdicts} == {checksum}
    ready = [instance.test_client().get("/readyz").json for instance in (first, second)]
    assert ready[0]["event"] == ready[1]["event"] and ready[0]["event_lexicon"] == checksum == ready[1]["event_lexicon"]


def test_an_instance_that_cannot_serve_the_events_lexicon_does_not_start(tmp_path, lexicon_files):
    path = tmp_path / "open.db"
    mini = lexicon_files["es-mini"]
    from lexicon.lexfile import Lexicon

    opened = Lexicon.open(mini)
    create_event(
        path,
        "Open",
        PASSWORD,
        lexicon="es-mini",
        pin=Pin("es-mini", opened.header.version, opened.checksum, str(mini), "", "init", "es"),
    ).close()
    with pytest.raises(StartError, match=f"es-mini .*{opened.checksum[:12]}.*add {mini} to LEXICON_FILES"):
        app(lexicon_files, path, "es-alt", "ca-mini")


def test_a_pinned_path_edited_to_no_file_s_is_a_refusal_that_shows_it_escaped(tmp_path, lexicon_files):
    """The pinned lexicon's path is read from the event, which whoever holds the laptop may edit:
    one no file could have (a NUL in it) made the refusal to start a traceback (ValueError from
    resolving it), and an escape sequence in it went to the operator's terminal as it was. It is
    the same refusal, the path quoted escaped."""
    import sqlite3

    path = tmp_path / "open.db"
    create_event(
        path, "Open", PASSWORD, lexicon="es-mini", pin=Pin("es-mini", "1", "ab" * 32, "/x.lex", "", "init", "es")
    ).close()
    edited = "/lists/\x00\x1b[2Jes.lex"
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE event SET lexicon_file = ?", (edited,))
    conn.close()
    with pytest.raises(StartError) as refused:
        app(lexicon_files, path, "es-mini")
    assert "add '/lists/\\x00\\x1b[2Jes.lex' to LEXICON_FILES" in str(refused.value), str(refused.value)


def test_a_pin_kept_before_its_language_gets_it_at_the_event_s_next_start(tmp_path, lexicon_files):
    """A pin kept before its list's language was (event file schema 14, PostgreSQL's 5) gets it
    from the first instance that serves that list and starts the event, nothing else of it changed:
    from then on a round of the event closes the lookups of that language alone on a service that
    does not know its list (service.federation). An event moved elsewhere records nothing where it
    was: that copy still starts (its writes answer 410), its pin as it was."""
    import sqlite3

    from tournament import copy_event

    kept, moved = tmp_path / "open.db", tmp_path / "moved.db"
    for path in (kept, moved):
        create_event(path, "Open", PASSWORD, lexicon="ca").close()
        app(lexicon_files, path, "ca-mini")  # pinned at its first start
        with sqlite3.connect(path) as conn:  # as the migration to schema 15 leaves a pin kept before
            conn.execute("UPDATE event SET lexicon_language = NULL")
        conn.close()
    before = open_event(kept, readonly=True).event().pin
    assert before.language is None
    copy_event(moved, tmp_path / "there.db", "move")
    assert app(lexicon_files, moved, "ca-mini").extensions["lexicon_event"].pin.language is None
    assert open_event(moved, readonly=True).event().pin.language is None
    started = app(lexicon_files, kept, "ca-mini", "es-mini")
    assert started.extensions["lexicon_event"].pin.language == "ca"
    assert open_event(kept, readonly=True).event().pin == replace(before, language="ca")


def test_an_older_event_whose_lexicon_is_not_served_does_not_start_nor_get_pinned(tmp_path, lexicon_files):
    path = tmp_path / "open.db"
    create_event(path, "Open", PASSWORD, lexicon="ca").close()
    with pytest.raises(StartError, match="'ca', which is not served here: add its compiled file to LEXICON_FILES"):
        app(lexicon_files, path, "es-mini")
    assert open_event(path).event().pin is None


@pytest.mark.server
def test_lexicon_serve_alone_exits_2_naming_the_file_when_the_event_lexicon_is_not_served(tmp_path, lexicon_files):
    path = tmp_path / "e2.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    made = subprocess.run(
        [str(LEXICON_SCRIPT), "event", "init", str(path), "--name", "Open", "--lexicon", str(lexicon_files["ca-mini"])],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**env, "LEXICON_DIRECTOR_PASSWORD": PASSWORD},
    )
    assert made.returncode == 0, made.stderr
    served = subprocess.run(
        [str(LEXICON_SCRIPT), "serve", "--port", str(free_port())],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**env, "LEXICON_EVENT": str(path), "LEXICON_FILES": str(lexicon_files["es-mini"])},
        timeout=60,
    )
    assert served.returncode == 2
    assert f"add {lexicon_files['ca-mini']} to LEXICON_FILES" in served.stderr and "Traceback" not in served.stderr


@pytest.mark.server
def test_a_reload_that_would_drop_the_events_lexicon_is_refused_and_it_keeps_judging(tmp_path, lexicon_files):
    """A reload without the event's lexicon fails as a start would, so the instance goes on
    serving what it served: never another lexicon's verdict, never a /readyz that changes."""
    path = tmp_path / "open.db"
    create_event(path, "Open", PASSWORD, lexicon="es").close()
    server = LiveServer(tmp_path, [lexicon_files["es-mini"], lexicon_files["es-alt"]], LEXICON_EVENT=str(path))
    try:
        server.wait_ready()
        before = server.get("/readyz")[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
        done = subprocess.run(
            [str(LEXICON_SCRIPT), "reload", "--port", str(server.port)],
            cwd=REPO,
            env={**env, "LEXICON_FILES": str(lexicon_files["es-alt"])},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and f"add {lexicon_files['es-mini']} to LEXICON_FILES" in done.stderr
        assert server.get("/readyz") == (200, before)
        status, _, body = server.request(
            "POST", "/v1/challenge", json.dumps(keyed(XILOFONO)).encode(), {"Content-Type": "application/json"}
        )
        assert status == 200 and json.loads(body)["valid"] is False  # es-mini's verdict, not es-alt's
    finally:
        server.stop()


def test_readyz_says_the_limits_each_instance_holds_devices_to(tmp_path, lexicon_files):
    """The limits are each instance's own settings: an instance started with others than its
    peers behind one front end would hold the same devices to other gaps, so /readyz shows them
    beside `event_lexicon` for a front end's check to compare."""
    path = tmp_path / "open.db"
    create_event(path, "Open", PASSWORD, lexicon="es").close()
    config = app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_FILES=files(lexicon_files, "es-mini"))
    usual = create_app(config).test_client().get("/readyz").json
    other = create_app({**config, "LEXICON_RATE_TABLE": "0", "LEXICON_RATE_JUDGE": "2.5", "LEXICON_RATE_PLAYS": "12"})
    looser = other.test_client().get("/readyz").json
    assert usual["event"] == looser["event"] and usual["event_lexicon"] == looser["event_lexicon"]
    assert usual["event_limits"] == {"judge": 0.0, "table": 10.0, "lookup": 0.0, "plays": 30}
    assert looser["event_limits"] == {"judge": 2.5, "table": 0.0, "lookup": 0.0, "plays": 12}
    assert "event_limits" not in create_app(app_config(lexicon_files)).test_client().get("/readyz").json
