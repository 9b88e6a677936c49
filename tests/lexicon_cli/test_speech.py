"""The director's commands speak the laptop's language (lexicon_cli/speech.py): a Catalan or
Spanish locale hears the event's day in it, anything else English; errors stay English."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from lexicon_cli import speech
from lexicon_cli.serve import where_to_go
from service.config import Settings
from tests.service.conftest import ES_WORDS
from tests.support import compile_list
from tournament import open_event

from .test_event import LEXICON_ENV, entry, run

PASSWORD = "una-clau-llarga-2026"
CATALAN = {"LANG": "ca_ES.UTF-8", LEXICON_ENV: PASSWORD}


@pytest.fixture
def mini(tmp_path) -> Path:
    return compile_list(tmp_path / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini")


def test_a_catalan_directors_day_is_said_in_catalan(tmp_path, mini, monkeypatch):
    """init, a record of two rows verified against its round's head, exported and backed up: each
    line the director reads, as the Catalan file says it, numbers written as Catalan writes them."""
    monkeypatch.chdir(tmp_path)
    made = run("event", "init", "open.db", "--name", "Open de Lleida", "--lexicon", mini, env=CATALAN)
    assert made.exit_code == 0, made.stderr
    assert made.stderr == (
        "creat open.db: 'Open de Lleida', lèxic es-mini\ncontrasenya de la direcció: la de LEXICON_DIRECTOR_PASSWORD\n"
    )
    assert run("records", "verify", "open.db", env=CATALAN).stdout == "open.db: íntegre, encara sense registres\n"
    db = open_event(tmp_path / "open.db")
    db.open_round(1)
    rows = [db.append(entry(idempotency_key=f"k{n}")) for n in (1, 2)]
    db.close()
    head = rows[-1].hash
    verified = run("records", "verify", "open.db", "--head", f"2:{head[:16]}", env=CATALAN)
    assert verified.stdout == (
        f"open.db: íntegre, 2 registres; últim registre 2, empremta {head}; coincideix amb l'empremta donada\n"
    )
    exported = run("records", "export", "open.db", "--round", "1", "-o", "ronda1.csv", env=CATALAN)
    assert (
        exported.stderr
        == f"escrit ronda1.csv: 2 registres de la ronda 1 en CSV, registres 1 a 2; última empremta {head}\n"
    )
    backup = run("event", "backup", "open.db", "copia.db", env=CATALAN)
    assert backup.exit_code == 0, backup.stderr
    assert backup.stderr.startswith(
        f"escrit copia.db: una còpia comprovada de open.db; últim registre 2, empremta {head};"
    )
    assert speech.records(1234, "ca") == "1.234 registres" and speech.records(1, "es") == "1 registro"


def test_the_locale_is_read_as_gettext_reads_it(tmp_path, mini):
    """LANGUAGE's list first, the locale's language after it; LC_ALL=C is English whatever LANG
    says (a script's way to read the lines it parses); a language not spoken here is English."""
    path = tmp_path / "open.db"
    made = run("event", "init", path, "--name", "Open", "--lexicon", mini, env={"LANG": "es_ES.UTF-8"})
    assert made.stderr.startswith(f"creado {path}: 'Open', léxico es-mini\ncontraseña de la dirección (se muestra")
    for env, said in [
        ({"LANGUAGE": "fr:es", "LANG": "fr_FR.UTF-8"}, "íntegro, aún sin registros"),
        ({"LC_ALL": "C", "LANG": "ca_ES.UTF-8"}, "intact, no records yet"),
        ({"LC_MESSAGES": "ca_ES.UTF-8", "LANG": "es_ES.UTF-8"}, "íntegre, encara sense registres"),
        ({"LANG": "fr_FR.UTF-8"}, "intact, no records yet"),
    ]:
        assert run("records", "verify", path, env=env).stdout == f"{path}: {said}\n", env


def test_errors_stay_english_in_every_language(tmp_path, mini):
    path = tmp_path / "open.db"
    assert run("event", "init", path, "--name", "Open", "--lexicon", mini, env=CATALAN).exit_code == 0
    again = run("event", "init", path, "--name", "Open", "--lexicon", mini, env=CATALAN)
    assert again.exit_code == 2 and "already exists" in again.stderr


def test_the_login_says_where_it_links_in_the_directors_language(tmp_path, mini, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))  # no service of this machine's
    path = tmp_path / "open.db"
    assert run("event", "init", path, "--name", "Open", "--lexicon", mini, env=CATALAN).exit_code == 0
    printed = run("event", "login", path, env={"LEXICON_PORT": "8090", **CATALAN})
    assert printed.stdout.startswith("http://127.0.0.1:8090/director#login=")
    assert printed.stderr == (
        "enllaç a http://127.0.0.1:8090/: LEXICON_HOST i LEXICON_PORT, perquè no s'ha trobat cap `lexicon serve` "
        "funcionant en aquest ordinador; --url en dona una altra adreça\n"
        "enllaç d'entrada a la consola de la direcció (funciona una vegada, durant 5 minuts; obre'l en aquest "
        "ordinador):\n"
    )


def test_the_serve_banner_keeps_its_columns_in_every_language(monkeypatch):
    """The labels are longer in Catalan: the addresses still start in one column, after the
    longest label and a space."""
    monkeypatch.setenv("LANG", "ca_ES.UTF-8")
    banner = where_to_go(replace(Settings(), host="192.168.1.10", port=8000, event=Path("open.db")))
    assert banner.split("\n") == [
        "Lexicon Judge, servint el torneig open.db:",
        "  pàgina dels jutges (mòbils) http://192.168.1.10:8000/",
        "  consola de la direcció      http://192.168.1.10:8000/director",
        "  API                         http://192.168.1.10:8000/v1/ (descrita a /openapi.json)",
    ]


def test_every_text_the_commands_say_is_in_every_language_and_used():
    """Each key a command says is in the texts (read_texts checks that every language has the
    same keys and placeholders), and each text is said by some command: none left over."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in Path(speech.__file__).parent.glob("*.py"))
    known = set(speech.texts()["en"])
    sections = {key.partition(".")[0] for key in known}
    said = {key for key in re.findall(r'"([a-z_]+\.[a-z_]+)"', source) if key.partition(".")[0] in sections}
    assert sorted(speech.texts()) == ["ca", "en", "es"]
    assert said - known == set(), "keys said that no text has"
    assert known - said == set(), "texts no command says"
