"""The deployment tests' lexicon (nginx, which they start, is tests/conftest.py's `nginx_binary`)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spanish_file(tmp_path_factory):
    from tests.support import compile_list

    words = "CARRO CHICO PERRO CASA MESA GATO LUNA AGUA".split()
    return compile_list(
        tmp_path_factory.mktemp("deploy-lexicons") / "es-mini.lex", words, "es", "es-mini", "Mini español"
    )
