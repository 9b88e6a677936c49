"""Settings and start-up: defaults, environment, test config; a lexicon that cannot be trusted stops it."""

from __future__ import annotations

from pathlib import Path

import pytest
from gunicorn.config import Config

from service import SettingsError, StartError, create_app, gunicorn_conf
from service.config import VARIABLES, Settings, load_settings
from tests.support import compile_list

from .conftest import app_config


def test_environment_then_test_config():
    environ = {"LEXICON_CORS_ORIGINS": "http://a.lan", "LEXICON_TOKEN": "from-env", "LEXICON_FILES": "a.lex:b.lex"}
    settings = load_settings(None, environ)
    assert settings.cors_origins == ("http://a.lan",)
    assert settings.token == "from-env"
    assert settings.files == ("a.lex", "b.lex")
    settings = load_settings({"LEXICON_TOKEN": None, "LEXICON_FILES": ["c.lex"]}, environ)
    assert settings.token == "from-env" and settings.files == ("c.lex",)  # None: not given
    defaults = load_settings(None, {})
    assert defaults.files is None and defaults.cors_origins == () and defaults.token is None
    assert defaults == Settings()  # one set of defaults: the dataclass's
    assert (defaults.log_level, defaults.verdict_seconds, defaults.port, defaults.workers) == ("info", 0.0, 8000, None)


def test_every_variable_from_the_environment(tmp_path):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text("", encoding="utf-8")
    environ = {
        "LEXICON_FILES": "a.lex",
        "LEXICON_MANIFEST": str(manifest),
        "LEXICON_HOME": "/h",
        "LEXICON_TOKEN": "tok3n",
        "LEXICON_CORS_ORIGINS": "*",
        "LEXICON_VERDICT_SECONDS": "4.5",
        "LEXICON_LOG_LEVEL": "WARNING",
        "LEXICON_HOST": "0.0.0.0",
        "LEXICON_PORT": "8080",
        "LEXICON_WORKERS": "3",
        "LEXICON_WORKER_CLASS": "gthread",
        "LEXICON_THREADS": "4",
        "XDG_DATA_HOME": "/x",
        "LEXICON_DIRECTOR_PASSWORD": "una-clave-larga",
        "LEXICON_SECOND": "es:file2017, ca:disc-old",
        "LEXICON_SECOND_ALWAYS": "Yes",
        "LEXICON_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8",
        "LEXICON_PUBLIC_URL": "https://juez.example.org",
    }
    event = {
        "LEXICON_EVENT": "~/open.db",
        "LEXICON_EVENT_SYNC": "NORMAL",
        "LEXICON_RATE_JUDGE": "1.5",
        "LEXICON_RATE_TABLE": "20",
        "LEXICON_RATE_LOOKUP": "0",
        "LEXICON_RATE_PLAYS": "45",
    }
    assert sorted({**environ, **event}) == sorted(v.name for v in VARIABLES)  # the test covers every one
    assert load_settings(None, environ) == Settings(
        files=("a.lex",),
        manifest=manifest,
        home=Path("/h"),
        token="tok3n",
        cors_origins=("*",),
        verdict_seconds=4.5,
        log_level="warning",
        host="0.0.0.0",
        port=8080,
        workers=3,
        worker_class="gthread",
        threads=4,
        data_home=Path("/x"),
        director_password="una-clave-larga",
        second=(("es", "file2017"), ("ca", "disc-old")),
        second_always=True,
        public_url="https://juez.example.org/",
        trusted_proxies=("127.0.0.1/32", "10.0.0.0/8"),
    )
    # An event has paired devices, not the venue token: both together are refused.
    with pytest.raises(SettingsError, match="LEXICON_TOKEN and LEXICON_EVENT"):
        load_settings(None, {**environ, **event})
    del environ["LEXICON_TOKEN"]
    # The event's record keeps the second opinion the players were shown: both together are fine.
    assert load_settings(None, {**environ, **event}) == Settings(
        files=("a.lex",),
        manifest=manifest,
        home=Path("/h"),
        cors_origins=("*",),
        verdict_seconds=4.5,
        log_level="warning",
        host="0.0.0.0",
        port=8080,
        workers=3,
        worker_class="gthread",
        threads=4,
        data_home=Path("/x"),
        director_password="una-clave-larga",
        event=Path("~/open.db").expanduser(),
        event_sync="normal",
        rate_judge=1.5,
        rate_table=20.0,
        rate_lookup=0.0,
        rate_plays=45,
        second=(("es", "file2017"), ("ca", "disc-old")),
        second_always=True,
        public_url="https://juez.example.org/",
        trusted_proxies=("127.0.0.1/32", "10.0.0.0/8"),
    )


def test_blank_variables_are_unset_and_a_test_config_none_is_not_given():
    environ = {v.name: "  " for v in VARIABLES if v.name != "LEXICON_TOKEN"}
    assert load_settings(None, environ) == Settings()
    assert load_settings({"LEXICON_VERDICT_SECONDS": None}, {"LEXICON_VERDICT_SECONDS": "30"}).verdict_seconds == 30
    assert load_settings({"LEXICON_VERDICT_SECONDS": 2.5}, {"LEXICON_VERDICT_SECONDS": "30"}).verdict_seconds == 2.5


@pytest.mark.parametrize("blank", ["", "  ", "\t"])
def test_a_token_set_but_blank_is_refused_not_taken_as_none(blank):
    """`export LEXICON_TOKEN=$TYPO` must not open the venue to anyone."""
    with pytest.raises(SettingsError, match="LEXICON_TOKEN is set but empty"):
        load_settings(None, {"LEXICON_TOKEN": blank})


@pytest.mark.parametrize(
    "config, fragment",
    [
        ({"LEXICON_CORS_ORIGINS": "pairings.lan"}, "LEXICON_CORS_ORIGINS"),
        ({"LEXICON_CORS_ORIGINS": "http://pairings.lan/"}, "no path"),
        ({"LEXICON_TOKEN": "ab"}, "LEXICON_TOKEN"),
        ({"LEXICON_TOKEN": ""}, "LEXICON_TOKEN is set but empty"),
        ({"LEXICON_TOKEN": "with space"}, "LEXICON_TOKEN"),
        ({"LEXICON_LOG_LEVEL": "chatty"}, "LEXICON_LOG_LEVEL"),
        ({"LEXICON_VERDICT_SECONDS": "0.5"}, "LEXICON_VERDICT_SECONDS: '0.5' is not 0 .the verdict stays"),
        ({"LEXICON_VERDICT_SECONDS": "nan"}, "LEXICON_VERDICT_SECONDS"),
        ({"LEXICON_PORT": "70000"}, "LEXICON_PORT: '70000' is not a port"),
        ({"LEXICON_PORT": "http"}, "LEXICON_PORT"),
        ({"LEXICON_WORKERS": "-1"}, "LEXICON_WORKERS"),
        ({"LEXICON_THREADS": "many"}, "LEXICON_THREADS"),
        ({"LEXICON_HOST": "http://x/"}, "LEXICON_HOST"),
        ({"LEXICON_WORKER_CLASS": "a b"}, "LEXICON_WORKER_CLASS"),
        ({"LEXICON_WORKER_CLASS": "nope.Worker"}, "LEXICON_WORKER_CLASS: 'nope.Worker' is not a gunicorn worker class"),
        ({"LEXICON_WORKER_CLASS": "service.workers.Nope"}, "LEXICON_WORKER_CLASS"),
        ({"LEXICON_WORKER_CLASS": "os.path"}, "LEXICON_WORKER_CLASS"),
        ({"LEXICON_WORKER_CLASS": "json.JSONDecoder"}, "LEXICON_WORKER_CLASS"),
        ({"LEXICON_FILES": ":"}, "LEXICON_FILES: ':' names no compiled file"),
        ({"LEXICON_MANIFEST": "/nonexistent.toml"}, "LEXICON_MANIFEST: no manifest at '/nonexistent.toml'"),
        ({"LEXICON_FILES": " : "}, "LEXICON_FILES"),
        ({"LEXICON_FILES": []}, "LEXICON_FILES"),
    ],
)
def test_bad_settings_are_refused(config, fragment):
    with pytest.raises(SettingsError, match=fragment):
        load_settings(config, {})


@pytest.mark.parametrize(
    "url", ["postgresql://judge:s3cr%zz@/lexicon?host=/x", "postgresql://judge:s3cr%zz@/lexicon?host=/x&event=a"]
)
def test_a_database_url_libpq_would_quote_is_refused_at_the_start_without_it(url):
    """libpq's error for a '%' it cannot decode quotes the token, a password perhaps: served, it
    reached /readyz's 503, the log and `lexicon serve`'s first lines. Refused before, never quoted."""
    with pytest.raises(SettingsError, match="LEXICON_EVENT: a database's URL has a '%'") as refused:
        load_settings(None, {"LEXICON_EVENT": url})
    assert "s3cr" not in str(refused.value) and "judge" not in str(refused.value)


@pytest.mark.parametrize(
    "url, shown",
    [
        ("postgresql://judge:pw@/lexicon?host=/x&sslmod=require", "postgresql://judge@/lexicon?host=/x&sslmod=***"),
        ("postgresql://judge@/lexicon?event=a&passwrd=s3cret", "postgresql://judge@/lexicon?event=a&passwrd=***"),
    ],
)
def test_a_database_url_with_a_parameter_libpq_does_not_take_is_refused_at_the_start_naming_it(url, shown):
    """A federation's service started, and said only on /readyz that its database failed; an
    event's said at its start that the database failed. Refused at once, by the parameter's name."""
    name = shown.rpartition("&")[2].partition("=")[0]
    with pytest.raises(SettingsError) as refused:
        load_settings(None, {"LEXICON_EVENT": url})
    said = str(refused.value)
    assert said.startswith(f"LEXICON_EVENT: {shown}: a database's URL has no query parameter {name!r}"), said
    assert (
        "it takes event and libpq's parameters: application_name, " in said
        and "s3cret" not in said
        and ":pw@" not in said
    )


def test_environment_reaches_the_app(lexicon_files, monkeypatch):
    monkeypatch.setenv("LEXICON_FILES", str(lexicon_files["ca-mini"]))
    monkeypatch.setenv("LEXICON_TOKEN", "from-env")
    app = create_app({"TESTING": True})
    client = app.test_client()
    assert client.get("/v1/lexicons").status_code == 401
    listed = client.get("/v1/lexicons", headers={"Authorization": "Bearer from-env"}).get_json()
    assert [item["id"] for item in listed["lexicons"]] == ["ca-mini"]


def test_missing_lexicon_stops_the_start(lexicon_files, tmp_path):
    with pytest.raises(StartError, match=r"missing\.lex"):
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


def test_two_releases_of_a_list_under_one_id_are_refused_naming_both_files(lexicon_files, tmp_path):
    """A federation's new release built with the old id, listed beside the old file: the refusal
    names both files and their versions, and what to do, so the operator knows which to rebuild."""
    new = compile_list(tmp_path / "es-mini-2.lex", ["CARRO", "ZAS"], "es", "es-mini", "Mini español", "test-2")
    with pytest.raises(StartError) as refused:
        create_app(app_config(lexicon_files, LEXICON_FILES=[str(new), str(lexicon_files["es-mini"])]))
    assert str(refused.value) == (
        f"two lexicons answer to 'es-mini': {new} (version test-2) and {lexicon_files['es-mini']} (version "
        "test-1); ids must be unique: build one with an id of its own (lexicon build --id)"
    )


def test_manifest_lexicons_by_default(lexicon_files, tmp_path, monkeypatch):
    manifest = tmp_path / "manifest.toml"
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "es-mini.lex").write_bytes(lexicon_files["es-mini"].read_bytes())
    manifest.write_text(
        'output = "out"\n[[lexicon]]\nid = "es-mini"\nlanguage = "es"\ndefault = true\n'
        'name = "Mini"\nversion = "1"\nsource = "none.txt"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("LEXICON_MANIFEST", str(manifest))
    app = create_app({**app_config(lexicon_files), "LEXICON_FILES": None})
    assert app.test_client().post("/v1/challenge", json={"lexicon": "es", "words": ["SOL"]}).get_json()["valid"]
    (tmp_path / "out" / "es-mini.lex").unlink()
    with pytest.raises(StartError, match="lexicon build-defaults"):
        create_app({**app_config(lexicon_files), "LEXICON_FILES": None})


def test_create_app_takes_settings_already_read(lexicon_files, monkeypatch):
    monkeypatch.setenv("LEXICON_TOKEN", "from-env")  # not read again: the Settings given win
    settings = Settings(files=(str(lexicon_files["ca-mini"]),), verdict_seconds=7.0)
    app = create_app({"TESTING": True}, settings=settings)
    assert app.extensions["lexicon_settings"] is settings
    assert app.test_client().get("/v1/lexicons").status_code == 200


def test_a_manifest_of_no_lexicons_stops_the_start(lexicon_files, tmp_path, monkeypatch):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text('output = "out"\n', encoding="utf-8")
    monkeypatch.setenv("LEXICON_MANIFEST", str(manifest))
    with pytest.raises(StartError, match="no lexicon to serve"):
        create_app({**app_config(lexicon_files), "LEXICON_FILES": None})


def test_a_lexicon_of_no_words_stops_the_start(lexicon_files, tmp_path):
    empty = compile_list(tmp_path / "empty.lex", [], "es", "empty", "Empty")
    with pytest.raises(StartError, match=f"cannot serve {empty}: it holds no words"):
        create_app(app_config(lexicon_files, LEXICON_FILES=[str(empty)]))


def _gunicorn_config(options: dict) -> Config:
    """gunicorn's own Config, given our options as `lexicon serve` gives them: a name it does not
    know, or a value it refuses, fails here."""
    config = Config()
    for name, value in options.items():
        config.set(name, value)
    return config


def test_gunicorn_takes_its_settings_from_the_settings_object():
    settings = Settings(host="::1", port=8123, workers=3, worker_class="gthread", threads=2, log_level="debug")
    config = _gunicorn_config(gunicorn_conf.options(settings))
    assert config.bind == ["[::1]:8123"] and config.workers == 3 and config.threads == 2
    assert config.loglevel == "debug" and config.preload_app and config.worker_class_str == "gthread"
    assert config.logger_class.__name__ == "GunicornLogger"
    default = _gunicorn_config(gunicorn_conf.options(Settings()))
    assert default.bind == ["127.0.0.1:8000"] and default.workers == gunicorn_conf.default_workers()
    assert default.worker_class_str == "gevent" and default.worker_connections == 10_000  # service.connections


def test_the_module_attributes_are_the_environment_s(monkeypatch):
    """`gunicorn -c python:service.gunicorn_conf` reads the module: the same values, from LEXICON_*."""
    import importlib

    monkeypatch.setenv("LEXICON_PORT", "8765")
    monkeypatch.setenv("LEXICON_WORKERS", "5")
    try:
        module = importlib.reload(gunicorn_conf)
        assert module.bind == ["127.0.0.1:8765"] and module.workers == 5
    finally:
        monkeypatch.delenv("LEXICON_PORT")
        monkeypatch.delenv("LEXICON_WORKERS")
        importlib.reload(gunicorn_conf)


def test_the_settings_repr_shows_no_token_nor_password():
    settings = load_settings({"LEXICON_TOKEN": "sala-b-2026", "LEXICON_DIRECTOR_PASSWORD": "una-clave-larga"}, {})
    assert (settings.token, settings.director_password) == ("sala-b-2026", "una-clave-larga")
    assert "sala-b-2026" not in repr(settings) and "una-clave" not in repr(settings)


def test_xdg_data_home_is_read_here_and_places_an_installed_copy_s_lexicons(tmp_path):
    from build_tools.manifest import user_data_dir

    assert load_settings({}, {"XDG_DATA_HOME": str(tmp_path)}).data_home == tmp_path
    assert load_settings({}, {"XDG_DATA_HOME": "relative/dir"}).data_home is None  # the XDG rules
    assert user_data_dir(tmp_path) == tmp_path / "lexicon-judge"
    assert user_data_dir(None) == Path("~/.local/share/lexicon-judge").expanduser()
