"""`lexicon serve`: the challenge service under gunicorn, with the project's gunicorn configuration.

In order, before anything listens: the settings are read (service.config: one Settings object
for the app and for gunicorn), the address is tried (a port in use is exit 2 at once, not
gunicorn's five retries), the event is read (one the service would refuse, a backup copy say, is
exit 2 before the addresses are printed, which would say it is served), the default lexicons not
yet built are built, every lexicon served is read and verified, and only then are the addresses
printed and the app created, in this, the master process: a lexicon that is missing, fails its
build or fails its checks stops the command with exit code 2 and a sentence saying which file,
and no address of a service that never started is shown. "service ready" is logged once the socket
listens (service.gunicorn_conf.when_ready). The venue token is read from LEXICON_TOKEN only,
never from the command line, where `ps` would show it.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import socket

import click

from lexicon.errors import LexiconError
from service.config import default_of
from tournament import database_url, is_database_url, shown_location

from .common import BadInput, bad_lexicon, build_default, load_manifest, settings
from .speech import say

LABELS = 23  # the first column of the banner's addresses, at least: the English labels' and a space


class ServeCommand(click.Command):
    """`serve --help` ends with the LEXICON_* variables, from the table that reads them."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from service.config import VARIABLES

        with formatter.section("Environment variables (options win over them)"):
            formatter.write_dl([(v.name, v.help) for v in VARIABLES if not v.cli_only])


def check_address(host: str, port: int) -> None:
    """Bind and release the address gunicorn will bind, to say at once why it cannot listen."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise BadInput(f"cannot listen on {host}: {error.strerror}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise BadInput(
                    f"port {port} on {host} is in use: another server listens there; stop it or choose another --port"
                ) from None
            raise BadInput(f"cannot listen on {host} port {port}: {error.strerror or error}") from None


def where_to_go(current) -> str:
    """What `serve` prints before its logs: where the judges' page, the director's console (in an
    event) and the API are, at the addresses phones can reach, and this computer's own.

    >>> from dataclasses import replace
    >>> from pathlib import Path
    >>> from service.config import Settings
    >>> print(where_to_go(replace(Settings(), host="192.168.1.10", port=8000, event=Path("open.db"))))
    Lexicon Judge, serving the event open.db:
      judges' page (phones)  http://192.168.1.10:8000/
      director's console     http://192.168.1.10:8000/director
      API                    http://192.168.1.10:8000/v1/ (described at /openapi.json)
    >>> print(where_to_go(replace(Settings(), host="192.168.1.10", event="postgresql://lexicon@db/lexicon")))
    Lexicon Judge, serving the events of postgresql://lexicon@db/lexicon:
      an event's page        http://192.168.1.10:8000/e/ID/
      its director's console http://192.168.1.10:8000/e/ID/director
      (ID: the event's, as `lexicon event init postgresql://…?event=ID` made it)
    >>> print(where_to_go(replace(Settings(), host="127.0.0.1", port=8000)))
    Lexicon Judge:
      judges' page (phones)  http://127.0.0.1:8000/ (this computer only: phones cannot reach it; serve with --host 0.0.0.0)
      API                    http://127.0.0.1:8000/v1/ (described at /openapi.json)
    """
    from service.addresses import phone_bases

    bases, own = phone_bases(current)
    base = bases[0] if bases else own
    if is_database_url(current.event) and database_url(str(current.event)) is not None:  # every event in it
        return _banner(
            say("serve.events", location=shown_location(current.event)),
            [("serve.event_page", _alone(f"{base}e/ID/", bases)), ("serve.event_console", f"{base}e/ID/director")],
            say("serve.event_id"),
        )
    title = say("serve.event", location=shown_location(current.event)) if current.event else say("serve.title")
    rows = [("serve.page", _alone(base, bases))]
    if current.event:
        rows.append(("serve.console", f"{base}director"))
        if base != own:
            rows.append(("serve.here", f"{own}director"))
    rows.append(("serve.api", say("serve.described", address=f"{base}v1/")))
    return _banner(title, rows)


def _alone(address: str, bases: list) -> str:
    """The judges' address, said to be this computer's only when no phone can reach it."""
    return address if bases else say("serve.alone", address=address)


def _banner(title: str, rows: list[tuple[str, str]], note: str = "") -> str:
    """The title, then each label and its address in two columns as wide as the language's labels
    need, then the note: labels are said in the director's language (speech)."""
    labels = [(say(key), address) for key, address in rows]
    width = max(LABELS, *(len(label) + 1 for label, _ in labels))
    return "\n".join(
        [title, *(f"  {label.ljust(width)}{address}" for label, address in labels), *([f"  {note}"] if note else [])]
    )


def build_missing_defaults() -> None:
    """The default lexicons not built yet or out of date (manifest.is_current: another source,
    another version of this program), built now, once, before the service starts: a fresh
    install serves them at once, and an updated one never serves a stale list."""
    try:
        for entry in load_manifest().entries:
            build_default(entry, err=True)  # checks is_current; says "up to date" otherwise
    except LexiconError as error:  # the manifest, or a source that cannot be read or gives no words
        raise BadInput(str(error)) from None


@click.command(cls=ServeCommand)
@click.option(
    "--host",
    help="Address to listen on; 0.0.0.0 to answer on the venue network "
    f"[default: LEXICON_HOST or {default_of('host')}].",
)
@click.option("--port", type=click.IntRange(1, 65535), help=f"Port [default: LEXICON_PORT or {default_of('port')}].")
@click.option(
    "--workers", type=click.IntRange(1, 64), help="Worker processes [default: LEXICON_WORKERS or one per core]."
)
def serve(host, port, workers):
    """Serve the judge's page and the challenge API (JSON over HTTP) with gunicorn.

    Serves the default lexicons (es and ca; built first if they are not yet or are out of date), or the compiled
    files listed in LEXICON_FILES. Stop with Ctrl-C.

    Exit codes: 0 stopped; 2 a setting that cannot be used, a port in use, a lexicon that is
    missing or fails its checks (nothing listens then).
    """
    overrides = {"host": host, "port": port, "workers": workers}
    current = dataclasses.replace(settings(), **{k: v for k, v in overrides.items() if v is not None})

    from gunicorn.app.base import BaseApplication

    from lexicon.errors import LexiconError
    from service import SettingsError, StartError, check_event, create_app, load_registry
    from service.addresses import proxies_over_hall
    from service.gunicorn_conf import options  # its own attributes read the environment: checked above

    check_address(current.host, current.port)
    try:  # an event that would be refused (a backup copy, say) is never announced as served
        check_event(current)
    except StartError as error:
        raise BadInput(str(error)) from None
    overlap = proxies_over_hall(current.trusted_proxies, current.host)  # as create_app refuses, said before too
    if overlap is not None:
        raise BadInput(overlap)
    # Every lexicon served is built (the defaults missing or out of date) and read and verified
    # before the addresses: a list that fails is never announced as served, nor are the addresses
    # of a service that never starts.
    if current.files is None:
        build_missing_defaults()
    try:
        registry = load_registry(current)
    except (LexiconError, SettingsError) as error:
        raise bad_lexicon(error) from None
    click.echo(where_to_go(current), err=True)  # before the logs: where the director and the phones go
    from service.config import load_settings
    from service.reloading import Reloader, Switch, clean_up, pid_file, record_address

    def make_app(environ: dict[str, str]):  # the address and the workers stay as they are
        return create_app(
            settings=dataclasses.replace(
                load_settings(environ=environ),
                host=current.host,
                port=current.port,
                workers=current.workers,
                worker_class=current.worker_class,
                threads=current.threads,
            )
        )

    try:
        app = Switch(create_app(settings=current, registry=registry))
    except (LexiconError, SettingsError) as error:
        raise bad_lexicon(error) from None
    gunicorn_settings = options(current)
    # `lexicon reload` and SIGHUP: gunicorn's on_reload hook builds the new app (service.reloading).
    gunicorn_settings["pidfile"] = str(pid_file(current.port))
    gunicorn_settings["on_reload"] = Reloader(app, make_app, current.port, dict(os.environ))
    gunicorn_settings["on_exit"] = lambda server: clean_up(current.port)
    record_address(current.host, current.port, current.event, current.public_url)  # gunicorn's master is this process

    class Server(BaseApplication):  # gunicorn's documented way to embed it ("Custom Application")
        def load_config(self):
            for name, value in gunicorn_settings.items():
                self.cfg.set(name, value)

        def load(self):
            return app

    Server().run()
