"""`lexicon serve`: the challenge service under gunicorn, with the project's gunicorn configuration.

The app is created here, in the master process, before gunicorn forks its workers: a lexicon
that is missing or fails its checks stops the command with exit code 2 and a sentence saying
which file and what to do, before anything listens. Settings come from LEXICON_* variables
(see service.config and service.gunicorn_conf); the venue token is read from LEXICON_TOKEN
only, never from the command line, where `ps` would show it.
"""

from __future__ import annotations

import click

from .common import BadInput


def _gunicorn_settings(host: str, port: int, workers: int | None) -> dict:
    from service import gunicorn_conf

    settings = {name: getattr(gunicorn_conf, name) for name in dir(gunicorn_conf)
                if not name.startswith("_")}
    settings["bind"] = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    if workers is not None:
        settings["workers"] = workers
    return settings


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="LEXICON_HOST",
              help="Address to listen on; 0.0.0.0 to answer on the venue network.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
              envvar="LEXICON_PORT")
@click.option("--workers", type=click.IntRange(1, 64), envvar="LEXICON_WORKERS",
              help="Worker processes [default: one per core].")
def serve(host, port, workers):
    """Serve the challenge API (JSON over HTTP) with gunicorn.

    Serves the manifest's lexicons (build them with `lexicon build-defaults`), or the
    compiled files listed in LEXICON_FILES. Stop with Ctrl-C.
    """
    from gunicorn.app.base import BaseApplication

    from lexicon.errors import LexiconError
    from service import SettingsError, create_app

    try:
        app = create_app()
    except (LexiconError, SettingsError) as error:
        raise BadInput(str(error)) from None
    settings = _gunicorn_settings(host, port, workers)

    class Server(BaseApplication):
        def load_config(self):
            for name, value in settings.items():
                if name in self.cfg.settings and value is not None:
                    self.cfg.set(name, value)

        def load(self):
            return app

    Server().run()
