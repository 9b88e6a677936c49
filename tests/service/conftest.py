"""Fixtures of the service tests: small lexicons compiled once a session, and apps made from them.

The lexicons are compiled here with the real compiler (build_tools.compiler.build), so the
service reads the same kind of file it serves in a tournament, in milliseconds:

- `es-mini` (Spanish, the first Spanish file listed, so the default of `es`),
- `es-alt` (Spanish, by id only),
- `ca-mini` (Catalan, the default of `ca`).

Every app gets every LEXICON_* setting from its test config, so the developer's environment
(a LEXICON_TOKEN in the shell, say) never changes what a test sees.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support import LEXICON_SCRIPT, REPO, compile_list

ES_WORDS = """CARRO CHICO PERRO CASA MESA GATO LUNA AGUA CAMIÓN ÑANDÚ PINGÜINO LLAVE ARROZ
SILLA FUEGO SOL MAR PAN""".split()
ES_ALT_WORDS = ES_WORDS + ["XILÓFONO"]
CA_WORDS = "COL·LEGI QUADRE CAVALL LLUNA ANYS PLAÇA CASA AIGUA".split()

# Eight words of the mini Spanish lexicon, and words that are well-formed tiles but not in it.
EIGHT_VALID = ["CARRO", "CHICO", "PERRO", "CASA", "MESA", "GATO", "LUNA", "AGUA"]
NOT_WORDS = ["CARRA", "ZURDO", "QUESO"]


@pytest.fixture(scope="session")
def lexicon_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("lexicons")
    return {
        "es-mini": compile_list(folder / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini español"),
        "es-alt": compile_list(folder / "es-alt.lex", ES_ALT_WORDS, "es", "es-alt", "Otro español"),
        "ca-mini": compile_list(folder / "ca-mini.lex", CA_WORDS, "ca", "ca-mini", "Mini català"),
    }


def app_config(lexicon_files: dict[str, Path], **overrides) -> dict:
    config = {
        "TESTING": True,
        "LEXICON_FILES": [str(lexicon_files[n]) for n in ("es-mini", "es-alt", "ca-mini")],
        "LEXICON_CORS_ORIGINS": "",
        "LEXICON_TOKEN": None,
        "LEXICON_LOG_LEVEL": "info",
    }
    config.update(overrides)
    return config


@pytest.fixture
def make_app(lexicon_files):
    from service import create_app

    def make(**overrides):
        return create_app(app_config(lexicon_files, **overrides))

    return make


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def spanish_default() -> Path:
    """The real Spanish default lexicon (built through the CLI if it is not built yet)."""
    from build_tools.manifest import load_manifest

    entry = load_manifest().find("es")
    assert entry is not None, "the manifest has no Spanish default"
    if not entry.output.is_file():
        # `lexicon info es` builds that one default on first use (not every language's).
        subprocess.run(
            [str(LEXICON_SCRIPT), "info", "es"], check=True, cwd=REPO, stdout=subprocess.DEVNULL, env={**os.environ}
        )
    return entry.output
