"""Settings and start-up: defaults, environment, test config; a lexicon that cannot be trusted stops it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from lexicon_cli import main
from service import SettingsError, StartError, create_app
from service.config import load_settings

from .conftest import app_config


def test_environment_then_test_config():
    environ = {"LEXICON_CORS_ORIGINS": "http://a.lan", "LEXICON_TOKEN": "from-env", "LEXICON_FILES": "a.lex:b.lex"}
    settings = load_settings(None, environ)
    assert settings.cors_origins == ("http://a.lan",)
    assert settings.token == "from-env"
    assert settings.files == ("a.lex", "b.lex")
    settings = load_settings({"LEXICON_TOKEN": None, "LEXICON_FILES": ["c.lex"]}, environ)
    assert settings.token is None and settings.files == ("c.lex",)
    defaults = load_settings(None, {})
    assert defaults.files is None and defaults.cors_origins == () and defaults.token is None
    assert defaults.log_level == "info"


@pytest.mark.parametrize("config, fragment", [
    ({"LEXICON_CORS_ORIGINS": "pairings.lan"}, "LEXICON_CORS_ORIGINS"),
    ({"LEXICON_CORS_ORIGINS": "http://pairings.lan/"}, "no path"),
    ({"LEXICON_TOKEN": "ab"}, "LEXICON_TOKEN"),
    ({"LEXICON_TOKEN": "with space"}, "LEXICON_TOKEN"),
    ({"LEXICON_LOG_LEVEL": "chatty"}, "LEXICON_LOG_LEVEL"),
])
def test_bad_settings_are_refused(config, fragment):
    with pytest.raises(SettingsError, match=fragment):
        load_settings(config, {})


def test_environment_reaches_the_app(lexicon_files, monkeypatch):
    monkeypatch.setenv("LEXICON_FILES", str(lexicon_files["ca-mini"]))
    monkeypatch.setenv("LEXICON_TOKEN", "from-env")
    app = create_app({"TESTING": True})
    client = app.test_client()
    assert client.get("/v1/lexicons").status_code == 401
    listed = client.get("/v1/lexicons", headers={"Authorization": "Bearer from-env"}).get_json()
    assert [item["id"] for item in listed["lexicons"]] == ["ca-mini"]


def test_missing_lexicon_stops_the_start(lexicon_files, tmp_path):
    with pytest.raises(StartError, match="missing.lex"):
        create_app(app_config(lexicon_files, LEXICON_FILES=[str(tmp_path / "missing.lex")]))


def test_corrupt_lexicon_stops_the_start(lexicon_files, tmp_path):
    data = bytearray(lexicon_files["es-mini"].read_bytes())
    data[-1] ^= 0xFF
    corrupt = tmp_path / "corrupt.lex"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(StartError, match="checksum mismatch"):
        create_app(app_config(lexicon_files, LEXICON_FILES=[str(corrupt)]))


def test_two_lexicons_with_one_id_stop_the_start(lexicon_files):
    path = str(lexicon_files["es-mini"])
    with pytest.raises(StartError, match="ids must be unique"):
        create_app(app_config(lexicon_files, LEXICON_FILES=[path, path]))


def test_manifest_lexicons_by_default(lexicon_files, tmp_path, monkeypatch):
    manifest = tmp_path / "manifest.toml"
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "es-mini.lex").write_bytes(lexicon_files["es-mini"].read_bytes())
    manifest.write_text('output = "out"\n[[lexicon]]\nid = "es-mini"\nlanguage = "es"\ndefault = true\n'
                        'name = "Mini"\nversion = "1"\nsource = "none.txt"\n', encoding="utf-8")
    monkeypatch.setenv("LEXICON_MANIFEST", str(manifest))
    app = create_app({**app_config(lexicon_files), "LEXICON_FILES": None})
    assert app.test_client().post("/v1/challenge", json={"lexicon": "es", "words": ["SOL"]}).get_json()["valid"]
    (tmp_path / "out" / "es-mini.lex").unlink()
    with pytest.raises(StartError, match="lexicon build-defaults"):
        create_app({**app_config(lexicon_files), "LEXICON_FILES": None})


def test_serve_refuses_to_start_without_its_lexicons(tmp_path):
    result = CliRunner().invoke(main, ["serve", "--port", "1"],
                                env={"LEXICON_FILES": str(tmp_path / "missing.lex")})
    assert result.exit_code == 2
    assert "missing.lex" in result.output and "Traceback" not in result.output


def test_serve_help():
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--workers"):
        assert option in result.output


def test_module_examples():
    import doctest

    import service.config

    assert doctest.testmod(service.config).failed == 0
