"""A service of every event in a database (LEXICON_EVENT=postgresql://…/DATABASE, no `?event=`):
each event at its own path, /e/ID/ (its judge's page, console, API, pairing QR and installed app).

`Events` is the WSGI middleware in front of the service's root app (Flask's documented
`app.wsgi_app = Middleware(app.wsgi_app)`; the dispatch by path of Flask's "Application
Dispatching"): a request to /e/ID/… goes to that event's app, made by `create_app` bound to the
event at its first request in this process (SCRIPT_NAME /e/ID, so every link, cookie path and
storage name of its pages is under the prefix), and kept while it is among the MAX_APPS events of
this process asked last. Each event's app is the single event's
app whole: its own store (every token, session and code looked up within that event only), its
own wrong-code limits and login lockout, its own pages. Nothing of one event is reached from
another's path.

Which ids exist is asked of the database (`tournament.events_in`), at most once every LOOK_AGAIN
seconds in a process, and only when a path names an id not known yet: an event made while the
service runs is served within that time, without a restart, and unknown ids cannot make the
service ask the database more often. A path under an id that is no event is answered by the
root as any unknown path is (404, the same text), so the root lists no event and an unknown id
is told apart from an unknown path of an event by nothing but the event's own pages.

Event ids are no secret and an event stays in the database after its day, so anyone can ask
/e/ID/readyz of every event of a season: each event's app holds connections of the database's
(its store's: connections.py), so a process keeps at most MAX_APPS of them. An app asked for
beyond that closes the app asked least lately that is answering no request (its store's every
connection, its writer thread); when all are answering, the request is answered 503 and nothing
is recorded. So a process holds the database's connections of MAX_APPS events at the most,
whoever asks; an app closed is made again at its event's next request (its sessions, devices
and record are in the database: nothing is lost, its phones see nothing but that request's time).

Whatever the worker class, a process makes one app per event and counts its requests exactly:
gthread's threads, or gevent's greenlets, asking at once. The kept apps and the requests each is
answering are read and changed only under one lock of the process (`Locks.table`, held for a few
steps that never wait), the apps are made under another (`Locks.build`: one at a time, the first
asker's, the others then finding it), and each process's locks are made once, by whichever of its
threads asks first (`Events._locks`).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import timedelta
from typing import Any, NamedTuple
from urllib.parse import quote

from flask import Blueprint, Response, redirect, request
from werkzeug import Request
from werkzeug.wsgi import ClosingIterator

from tournament import StorageError, events_in, pinned_events, stamp, utc_now

from .api import problem_response, respond
from .line_page import line_page
from .page_texts import problem_texts
from .problems import AGAIN_SOON, Problem
from .proxies import from_this_computer
from .registry import LexiconNotServed, Registry, dumps
from .status_types import NOT_HERE, Ready

log = logging.getLogger("service")

EVENTS = "/e"  # every event's path starts so: /e/ID/
EVENT_PATH = re.compile(r"/e/([a-z0-9][a-z0-9-]{0,62})(/.*)?\Z", re.DOTALL)  # ids as the database's CHECK
EVENT_PATHS = "each event of this service is at /e/ID/, the address its director gives"
LOOK_AGAIN = 2.0  # seconds between two looks at the database's events for an id not known
RETRY = 2.0  # seconds an event whose app could not be made (its database away) waits before another try
FORGOTTEN_HOURS = 12  # a round of another event open longer closes no lookups (OtherRounds)
MAX_APPS = 24  # events' apps a process keeps (each with its connections): more than a Saturday's at once


class Locks(NamedTuple):
    """A process's locks of the dispatcher."""

    look: threading.Lock  # one look at the database's events at a time
    build: threading.Lock  # one event's app made at a time: one app per event
    table: threading.Lock  # the apps kept and the requests each answers, read and changed together


class Events:
    """The dispatcher: /e/ID/… to the event's app, anything else to the root app."""

    def __init__(
        self,
        root: Callable,
        database: str,
        build: Callable[[str], Callable],
        close: Callable[[Callable], None],
        clock=time.monotonic,
        registry: Registry | None = None,
    ):
        self.root, self.database, self.build, self.close, self.clock = root, database, build, close, clock
        self.apps: OrderedDict[str, Callable] = OrderedDict()  # the event asked least lately first
        self.answering: dict[str, int] = {}  # id -> requests its app is answering now
        self.known: frozenset[str] = frozenset()
        self.looked = -LOOK_AGAIN
        self.failed: dict[str, tuple[float, str | None]] = {}  # id -> when its app could not be made, and why if told
        self.error: str | None = None  # why the last look at the database failed (None: it answered)
        self.rounds = OtherRounds(database, clock, registry)  # the events with a round open, for each event's lookups
        self._locks_of: dict[int, Locks] = {}  # a process's id -> its locks

    def _locks(self) -> Locks:
        """This process's locks, made at their first use here. gunicorn makes this middleware in
        its master (preload_app), before a gevent worker patches `threading`: a lock made there is
        the system's, and a greenlet waiting on it stops the worker's whole loop, the greenlet
        holding it too (building an event's app yields to the loop): two first requests of one
        event at once hung the worker until gunicorn killed it. Two threads asking first at once
        (gthread) may each make a set, but `setdefault` keeps one, which both get: two sets would
        let each thread make the same event's app (one never closed, holding its connections)."""
        pid = os.getpid()
        locks = self._locks_of.get(pid)
        if locks is None:
            locks = self._locks_of.setdefault(pid, Locks(*(threading.Lock() for _ in Locks._fields)))
        return locks

    def __call__(self, environ: dict[str, Any], start_response: Callable):
        match = EVENT_PATH.match(environ.get("PATH_INFO", ""))
        if match is None or match.group(2) is None:  # not an event's, or /e/ID (the root redirects it)
            return self.root(environ, start_response)
        event_id, rest = match.groups()
        try:
            app = self.app(event_id)
        except Problem as problem:  # an event whose app cannot be made now: a person's browser reads why
            kind = f"problem.{problem.type.rsplit('/', 1)[-1]}"
            page = line_page("unavailableTitle", kind, problem.status, Request(environ), problem_texts())
            if page is not None:
                page.headers.update(problem.headers)  # a person's page says when as the API does (Retry-After)
            return (page or problem_response(problem))(environ, start_response)
        if app is None:
            return self.root(environ, start_response)
        environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + f"{EVENTS}/{event_id}"
        environ["PATH_INFO"] = rest
        try:
            response = app(environ, start_response)
        except BaseException:
            self._answered(event_id)
            raise
        return ClosingIterator(response, lambda: self._answered(event_id))  # its body sent (or cut)

    def _answered(self, event_id: str) -> None:
        with self._locks().table:
            left = self.answering.get(event_id, 1) - 1
            if left > 0:
                self.answering[event_id] = left
            else:
                self.answering.pop(event_id, None)

    def _kept(self, event_id: str) -> Callable | None:
        """The event's app if kept, counted as answering one more request (`_answered` ends it)
        and made the one asked most lately, under the lock that closing an idle app takes."""
        with self._locks().table:
            app = self.apps.get(event_id)
            if app is not None:
                self.apps.move_to_end(event_id)
                self.answering[event_id] = self.answering.get(event_id, 0) + 1
            return app

    def app(self, event_id: str) -> Callable | None:
        """The event's app, made at its first request here, counted as answering this request;
        None when the database has no such event."""
        app = self._kept(event_id)
        if app is not None:
            return app
        if event_id not in self.known:
            self._look()
            if event_id not in self.known:
                if self.error is not None:  # the database away: whether it is an event cannot be known,
                    raise unavailable()  # and a 503 is what makes a judge's phone judge offline (a 404 refuses)
                return None
        failed = self.failed.get(event_id)
        if failed is not None and self.clock() - failed[0] < RETRY:
            raise unavailable(failed[1])
        locks = self._locks()
        with locks.build:  # one app per event in a process, however many ask at once
            app = self._kept(event_id)  # made by another asker meanwhile
            if app is None:
                self._make_room()
                try:
                    app = self.build(event_id)
                except Exception as error:  # the database away, or the event unusable: a StartError saying which
                    public = error.public if isinstance(error, LexiconNotServed) else None
                    self.failed[event_id] = (self.clock(), public)
                    log.error("event not served", extra={"fields": {"event": event_id, "reason": str(error)}})
                    raise unavailable(public) from None
                self.failed.pop(event_id, None)
                with locks.table:
                    self.apps[event_id] = app
                    self.answering[event_id] = self.answering.get(event_id, 0) + 1
        return app

    def _make_room(self) -> None:
        """Close the apps asked least lately, answering nothing, until one more fits in MAX_APPS;
        503 when every app kept is answering (see the module's docstring). Called under the build
        lock: no app is added meanwhile, and one taken here answers nothing (it is no longer kept
        when the table's lock is let go, so no request can find it)."""
        while len(self.apps) >= MAX_APPS:
            with self._locks().table:
                idle = next((event_id for event_id in self.apps if not self.answering.get(event_id)), None)
                app = None if idle is None else self.apps.pop(idle)
            if idle is None:
                raise Problem.later(
                    "record-unavailable",
                    f"this instance is answering requests of {MAX_APPS} other events, as many as it serves at "
                    f"once: nothing was recorded; ask again in {AGAIN_SOON} s",
                    AGAIN_SOON,
                )
            try:
                self.close(app)
            except Exception as error:  # its connections are dropped with it all the same
                log.error("event not closed", extra={"fields": {"event": idle, "reason": str(error)}})

    def _look(self) -> None:
        """The database's events again, unless they were asked less than LOOK_AGAIN seconds ago."""
        with self._locks().look:
            if self.clock() - self.looked < LOOK_AGAIN:
                return
            self.looked = self.clock()
            try:
                self.known = events_in(self.database)
                self.error = None
            except StorageError as error:  # the events known so far stay served
                self.error = str(error)
                log.error("events not looked up", extra={"fields": {"reason": self.error}})

    def played_elsewhere(self, event_id: str) -> frozenset[Playing]:
        """OtherRounds.besides: the lexicons the database's other events with a round open judge with."""
        return self.rounds.besides(event_id)

    def unreachable(self) -> str | None:
        """Why the database cannot be asked now (looked at again if the last look is older than
        LOOK_AGAIN), or None: what the root's /readyz says."""
        self._look()
        return self.error


class Playing(NamedTuple):
    """The lexicon an event with a round open judges with, as its pin keeps it (tournament.Pin)."""

    checksum: str
    lexicon_id: str
    language: str | None  # None: pinned before the language was kept (Pin.language)


class OtherRounds:
    """The lexicons (`Playing`) that the events of one database with a round open judge with: a
    lookup at an event (no device, or a kiosk) between its own rounds is refused while another
    event of its database judges in its language (service.event.admission, `admit`), or a player of
    that round would look its words up there. So for an event served by a service of every event
    of the database (`Events`) and for one served by a service of its own (LEXICON_EVENT naming
    it, `?event=ID`: a big event's instances, service.app): both ask the database. The language is
    the pin's, kept with it, so a list this service does not serve, nor knows by its id, counts too.

    Asked at most every LOOK_AGAIN seconds in a process (one query, `tournament.pinned_events`),
    and only by such a lookup: the window a round's opening takes to close them elsewhere.

    A round opened more than FORGOTTEN_HOURS ago closes nothing here: only its own director can
    close it, so a round left open after an event's last (or kept open on purpose) would close
    every other event's lookups in its language for the rest of the season. No round is played
    that long; the log says, once a process, which event's round is no longer counted.

    A round of an event whose language cannot be known here (a pin kept before its language was,
    of a list `registry` knows neither by its bytes nor its id) closes the lookups of every
    language (service.event.admission): the log says so, once a process for each such round, when
    a lookup first finds it open, naming the event and its list, so that the operator can tell the
    events' directors why, and start that event's instances on this release to end it."""

    def __init__(self, database: str, clock: Callable[[], float] = time.monotonic, registry: Registry | None = None):
        self.database, self.clock, self.registry = database, clock, registry
        self.playing: dict[str, Playing] = {}  # id -> its lexicon, of those with a round open
        self.played = -LOOK_AGAIN  # when `playing` was asked of the database
        self.forgotten: set[tuple[str, str]] = set()  # (event, opened) of rounds said to be counted no more
        self.unknown: set[tuple[str, str]] = set()  # (event, opened) of rounds said to close every language
        self._locks: dict[int, threading.Lock] = {}  # a process's id -> its lock (as `Events._locks`)

    def besides(self, event_id: str) -> frozenset[Playing]:
        """The lexicons that the database's events other than `event_id` with a round open judge
        with; StorageError when the database cannot be asked (the event's own record is then away
        too). One look at a time in a process, under a lock made there at its
        first use (made in gunicorn's master, before a gevent worker patches `threading`, it would
        be the system's: `Events._locks`)."""
        pid = os.getpid()
        lock = self._locks.get(pid) or self._locks.setdefault(pid, threading.Lock())
        with lock:
            if self.clock() - self.played >= LOOK_AGAIN:
                since = stamp(utc_now() - timedelta(hours=FORGOTTEN_HOURS))  # the record's form sorts as time
                self.playing = {}
                for event in pinned_events(self.database):
                    if event.opened is not None and event.opened >= since:
                        self.playing[event.event_id] = Playing(event.checksum, event.lexicon_id, event.language)
                        self._said_if_unknown(event)
                    elif event.opened is not None and (event.event_id, event.opened) not in self.forgotten:
                        self.forgotten.add((event.event_id, event.opened))
                        log.warning(
                            "a round of another event, open since long ago, no longer closes lookups here",
                            extra={
                                "fields": {"event": event.event_id, "opened": event.opened, "hours": FORGOTTEN_HOURS}
                            },
                        )
                self.played = self.clock()
            return frozenset(lexicon for other, lexicon in self.playing.items() if other != event_id)

    def _said_if_unknown(self, event) -> None:
        """The log's line of a round open whose language cannot be known here (the class's docstring)."""
        if event.language is not None or self.registry is None or (event.event_id, event.opened) in self.unknown:
            return
        if self.registry.language_of(event.checksum, event.lexicon_id) is not None:
            return
        self.unknown.add((event.event_id, event.opened))
        log.warning(
            "a round of another event closes the lookups of every language here: its list's language is not known",
            extra={"fields": {"event": event.event_id, "lexicon": event.lexicon_id, "opened": event.opened}},
        )


def unserved(database: str, registry: Registry) -> list[str]:
    """What to say, at start and at each reload, of the events this service cannot serve because
    it does not serve the list each is pinned to (each would answer 503 event-lexicon-missing):
    one sentence per list, naming its events and those with a round open, so that the operator
    learns it from `lexicon reload` or the log rather than a director from the judges. Nothing
    when the database cannot be asked now (the events are looked at again at their requests)."""
    try:
        pinned = pinned_events(database)
    except StorageError:
        return []
    lists: dict[tuple[str, str, str], list[str]] = {}
    for event in pinned:
        if registry.by_checksum(event.checksum) is None:
            named = f"{event.event_id} (a round open)" if event.round_open else event.event_id
            lists.setdefault((event.lexicon_id, event.version, event.checksum), []).append(named)
    return [
        f"events this service does not serve, as it has not their list: {', '.join(events)}, judging with "
        f"{lexicon_id} {version} (checksum {checksum[:12]}…): each is answered 503 event-lexicon-missing "
        "until that file is in LEXICON_FILES again"
        for (lexicon_id, version, checksum), events in lists.items()
    ]


def unavailable(public: str | None = None) -> Problem:
    """503: the event's app cannot be made. Why, when it is the event's lexicon (`public`): no
    retry helps there, only its file served again, so no Retry-After; otherwise (its database
    away) the one a store away gives in an event's own app (AGAIN_SOON)."""
    if public is not None:
        detail = f"{public}: nothing was recorded; the federation's operator must serve that list again"
        return Problem("event-lexicon-missing", detail)
    return Problem.later(
        "record-unavailable",
        "this event cannot be served now (its database does not answer, or the service's log says why): "
        f"nothing was recorded; ask again in {AGAIN_SOON} s",
        AGAIN_SOON,
    )


def root_blueprint(registry: Registry, events: Events, trusted: tuple[str, ...]) -> Blueprint:
    """The root's own routes: the probes, and /e/ID sent on to /e/ID/ (whatever the id: its page's
    relative links need the final slash, and saying so tells no event apart). /readyz names the
    database and its error only to this computer's own tool (`trusted`: the front ends whose
    X-Forwarded-For is believed, service.proxies): anyone may ask it, over the Internet."""
    bp = Blueprint("federation", __name__)

    @bp.get("/healthz")
    def healthz() -> Response:
        return respond(b'{"status":"ok"}')

    @bp.get("/readyz")
    def readyz() -> Response:
        if not registry.ready:
            raise Problem("not-ready", "no lexicon is loaded and verified")
        why = events.unreachable()  # the database away: every event's writes are 503 meanwhile
        if why is not None:
            whole = from_this_computer(request.environ, trusted)
            said, more = (f" ({why})", "") if whole else ("", NOT_HERE)
            raise Problem(
                None,
                f"the events' database cannot be reached{said}: no verdict can be recorded until it answers "
                f"again, and this instance uses it again then, without a restart{more}",
                status=503,
            )
        stale = registry.stale()
        names = [item.id for item in registry.served]
        status = "stale" if stale else "ready"
        more = {"stale": sorted(stale.values())} if stale else {}
        return respond(dumps(Ready(status, names, events="database", **more)))

    @bp.get(f"{EVENTS}/<event_id>")
    def event_root(event_id: str) -> Response:
        # quoted: an id is anything typed, a line break too, which no Location header may hold
        return redirect(f"{request.script_root}{EVENTS}/{quote(event_id, safe='')}/", 308)

    return bp
