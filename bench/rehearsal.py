"""`make bench` section "rehearsal": a director's whole day, rehearsed, and the record checked after.

    python -m bench rehearsal

The day: an event (`event init --lexicon`), the service in tournament mode (`lexicon serve`, 2
workers), the director's API, 4 *juez* and 20 *mesa* devices (one of each running the real judge's
page in Debian's Chromium, bench.hall_pages; the others over HTTP as the page talks, bench.hall),
a *consulta* kiosk, and 3 rounds with the faults of a real hall:

- round 1: the whole service killed mid-round (SIGKILL to its process group, a laptop switched
  off hard) and started again at the same address; the devices ask again with the same
  idempotency key until answered. Measured: kill to ready, and kill to every waiting device
  answered;
- between rounds: `lexicon reload` (the same files: the event's lexicon keeps its checksum), and
  the kiosk's lookup, which is allowed then;
- round 2: the kiosk tries during the round (refused); 3 *juez* devices cut off from the network
  (the page's browser context offline; the others judge with their copy of the browser lexicon,
  as the page does) and back, their offline verdicts sent (`"offline": true`, key, device_time);
- round 3: one *mesa* device revoked mid-round;
- after the last round: the record verified (`lexicon records verify`), exported as CSV and JSON
  (`lexicon records export`) and the exports verified, then someone edits the file (sqlite3: the
  append-only trigger dropped, one row's verdict changed) and verify names that row.

Checked: every verdict any device showed is in the record exactly once, with the verdict shown
(and the record number shown, when one was); every row is a verdict some device showed, or is
counted and explained; each device's rows match the console's counts (`GET /v1/rounds`): bench/rehearsal_checks.py.
tests/bench/test_rehearsal.py runs the same day small (rounds of seconds, a 1 s table gap).
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from lexicon.lexfile import Lexicon
from tournament import create_event

from .hall import ApiDevice, Director, Hall, Service, Tally, ask
from .hall_pages import Pages
from .rehearsal_checks import check_files, check_record
from .table import Table

PASSWORD = "ensayo-general-2026"
WORDS = "CARRO CHICO LLAVE CALLE PERRO CASA MESA CAMIÓN ÑANDÚ PINGÜINO ARROZ CHURRO".split()
NOT_WORDS = ["CASAX", "PERROZ", "LLAVEX"]


@dataclass(frozen=True)
class Size:
    """How long the day's parts last. The full day keeps the real 10 s table gap."""

    round_seconds: float = 90  # devices play this long in each round (round 1: plus the restart)
    offline_seconds: float = 60  # how long 3 judges are cut off from the network
    table_gap: float = 10  # LEXICON_RATE_TABLE
    judge_pause: float = 2  # an API judge's pause between two challenges
    judges: int = 4
    tables: int = 20


def plays() -> list[tuple[str, ...]]:
    """1 to 3 words, valid and not (one word not in the lexicon), from the words every lexicon of the
    day has (the defaults' Spanish, and the test's small one compiled from WORDS)."""
    found = []
    for n, word in enumerate(WORDS):
        other = WORDS[(n * 5 + 3) % len(WORDS)]
        found += [(word,), (word, other), (word, other, WORDS[(n + 1) % len(WORDS)])]
        found.append((word, NOT_WORDS[n % len(NOT_WORDS)]))
    return found


@dataclass
class Day:
    """What happened: every device's tally, the record, the console's counts, the figures and the
    checks (name -> (passed, what was found))."""

    tallies: dict[str, Tally] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)  # device name -> "juez (API)", "mesa (page)"...
    ids: dict[str, int] = field(default_factory=dict)
    figures: dict[str, str] = field(default_factory=dict)
    checks: dict[str, tuple[bool, str]] = field(default_factory=dict)
    rows: list = field(default_factory=list)  # the record at the end of the day, before the edit
    failures: list[str] = field(default_factory=list)  # a device stopped by an error (none, on a good day)

    def check(self, name: str, passed: bool, found: str) -> None:
        self.checks[name] = (bool(passed), found)


def rehearse(folder: Path, files: list[Path], lexicon_path: Path, size: Size = Size()) -> Day:
    """The whole day in `folder` (the event file, exports, the service's logs); its Day."""
    lexicon = Lexicon.open(lexicon_path)
    lexicon_id, language = lexicon.header.id, lexicon.header.language
    event = folder / "ensayo.db"
    create_event(event, "Ensayo general", PASSWORD, lexicon=lexicon_id).close()
    service = Service(folder, files, event, LEXICON_RATE_TABLE=f"{size.table_gap:g}")
    pages = None
    day = Day()
    try:
        day.figures["service start"] = f"{service.start():.1f} s"
        director = Director(service, PASSWORD)
        hall = Hall(service, lexicon_id, language, plays(), size.table_gap, size.judge_pause)
        pages = Pages()
        api: list[ApiDevice] = []
        for role, count, label in (("judge", size.judges, "Juez"), ("table", size.tables, "Mesa")):
            for n in range(1, count + 1):
                name = f"{label} {n}"
                day.ids[name], code = director.add(name, role, str(n) if role == "table" else None)
                if n == 1:  # the first of each runs the judge's page
                    device = pages.pair(hall, name, role, code)
                    day.roles[name] = f"{label.lower()} (page)"
                else:
                    device = ApiDevice(hall, name, role, pair(service, code))
                    if role == "judge":
                        device.keep_copy()
                    api.append(device)
                    day.roles[name] = f"{label.lower()} (API)"
                day.tallies[name] = device.tally
        day.ids["Consulta"], code = director.add("Consulta", "lookup")
        kiosk = ApiDevice(hall, "Consulta", "lookup", pair(service, code))
        day.tallies["Consulta"], day.roles["Consulta"] = kiosk.tally, "consulta (API)"
        deadline = time.monotonic() + 6 * size.round_seconds + 300
        kiosk.challenge(hall.play(), deadline)  # before the first round: allowed

        for number in (1, 2, 3):
            director.call("POST", "/v1/rounds", {"number": number})
            stop = threading.Event()
            players = [
                threading.Thread(target=_playing, args=(day, d.name, d.play_until, stop, deadline), name=d.name)
                for d in api
            ]
            players.append(threading.Thread(target=_playing, args=(day, "pages", pages.play_until, stop), name="pages"))
            for player in players:
                player.start()
            try:
                FAULTS[number](day, size, service, director, hall, kiosk, api, deadline)
            finally:
                stop.set()
                for player in players:
                    player.join(max(1.0, deadline - time.monotonic()))
            day.check(
                f"round {number}: every device stopped",
                not any(p.is_alive() for p in players),
                ", ".join(p.name for p in players if p.is_alive()) or "all",
            )
            still = pages.send_waiting()
            day.check(
                f"round {number}: no offline verdict left waiting",
                still == 0 and not any(d.waiting for d in api),
                f"{still} on the pages, {sum(len(d.waiting) for d in api)} on API devices",
            )
            director.call("POST", "/v1/rounds/close")
            if number == 1:
                code, output, seconds = service.reload()
                day.check("lexicon reload between rounds: exit 0", code == 0, output.strip().splitlines()[-1:])
                day.figures["lexicon reload between rounds"] = f"{seconds:.1f} s"
            kiosk.challenge(hall.play(), deadline)  # between rounds: allowed
        counts = director.call("GET", "/v1/rounds")
        day.check("no device failed", not day.failures, "; ".join(day.failures[:5]) or "none")
    finally:
        if pages is not None:
            pages.close()
        service.stop()
    check_record(day, event, counts, lexicon)
    check_files(day, event, folder)
    return day


def _playing(day: Day, name: str, play_until, *arguments) -> None:
    """A device's round in its thread: what stops it early (no answer before the deadline, the
    page gone) is kept in `day.failures` rather than lost with the thread."""
    try:
        play_until(*arguments)
    except Exception as error:  # kept for the day's checks
        day.failures.append(f"{name}: {error!r}"[:300])


def pair(service: Service, code: str) -> str:
    status, _, answer = ask(service.port, "POST", "/v1/devices/pair", {"code": code})
    if status != 201:
        raise RuntimeError(f"pairing: {status} {answer}")
    return answer["token"]


def _phase(day: Day, what: str, done, seconds: float, deadline: float) -> None:
    """Lets the devices play for `seconds` (the load the bench's figures are made of), and on until
    `done()`: a fault comes, and a check is read, once the devices have done their part (what they
    showed, were refused), however slowly a loaded machine lets them. Past the day's deadline the
    day fails, saying what never happened."""
    end = time.monotonic() + seconds
    while time.monotonic() < end or not done():
        if day.failures:  # a device stopped (the day fails by its check): what it owed never comes
            return
        if time.monotonic() > deadline:
            day.failures.append(f"never happened before the deadline: {what}")
            return
        time.sleep(0.05)


def _marks(day: Day) -> dict[str, int]:
    """How many verdicts each device has shown so far: what it does next is counted from here."""
    return {name: len(tally.shown) for name, tally in day.tallies.items()}


def _each_showed(day: Day, names, since: dict[str, int], offline: bool | None = None):
    """A condition: each of `names` has shown a verdict since `since` (one judged offline, or
    online, when `offline` says which)."""

    def done() -> bool:
        return all(
            any(offline is None or s.offline == offline for s in day.tallies[name].shown[since[name] :])
            for name in names
        )

    return done


def _players(day: Day, api) -> list[str]:
    """The devices that play in a round: the API devices not revoked, and the pages."""
    return [name for name, role in day.roles.items() if role.endswith("(page)")] + [
        d.name for d in api if not d.revoked
    ]


def _round_1(day, size, service, director, hall, kiosk, api, deadline) -> None:
    """The laptop switched off hard mid-round, once the round's record has rows (every device has
    shown a verdict in it), and started again."""
    _phase(
        day,
        "every device showed a verdict in round 1",
        _each_showed(day, _players(day, api), _marks(day)),
        size.round_seconds * 0.4,
        deadline,
    )
    killed = time.monotonic()
    service.kill()
    ready = service.start()
    day.figures["restart: kill to ready"] = f"{time.monotonic() - killed:.1f} s (lexicon serve ready in {ready:.1f} s)"
    _phase(
        day,
        "every device showed a verdict after the restart",
        _each_showed(day, _players(day, api), _marks(day)),
        size.round_seconds * 0.6,
        deadline,
    )
    back = [t - killed for d in api for t in d.tally.back if t >= killed]
    waited = sum(1 for d in api if any(t >= killed for t in d.tally.back))
    day.figures["restart: kill to every waiting device answered"] = (
        f"{max(back):.1f} s ({waited} API devices waited)" if back else "no device was waiting"
    )
    day.check("restart: the waiting devices were answered", back, f"{waited} devices")


def _round_2(day, size, service, director, hall, kiosk, api, deadline) -> None:
    """The kiosk tries during the round; three judges lose the network, judge on their own copy,
    and come back."""
    since = _marks(day)
    refused = []
    for body in (
        {"offline": False},
        {
            "offline": True,
            "device_time": "2026-01-01T00:00:00.000000Z",
            "checksum": "0" * 64,
            "idempotency_key": "f" * 32,
        },
    ):
        status, _, answer = ask(
            service.port,
            "POST",
            "/v1/challenge",
            {"lexicon": hall.lexicon_id, "words": list(hall.play()), **body},
            kiosk.headers(),
        )
        refused.append(f"{status} {str((answer or {}).get('type', '')).rsplit('/', 1)[-1]}")
    status, _, answer = ask(service.port, "POST", "/v1/challenge", {"lexicon": hall.lexicon_id, "words": ["CASA"]})
    refused.append(f"{status} {str((answer or {}).get('type', '')).rsplit('/', 1)[-1]} (no device)")
    day.figures["consulta during a round"] = ", ".join(refused)
    day.check(
        "the kiosk is refused during a round",
        refused == ["403 lookups-closed", "403 offline-not-allowed", "403 lookups-closed (no device)"],
        refused,
    )
    _phase(
        day,
        "every device showed a verdict in round 2",
        _each_showed(day, _players(day, api), since),
        size.round_seconds * 0.1,
        deadline,
    )
    cut = sorted(f"Juez {n}" for n in range(1, 4))
    hall.cut_off |= set(cut)
    _phase(
        day,
        "each judge cut off judged offline",
        _each_showed(day, cut, _marks(day), offline=True),
        size.offline_seconds,
        deadline,
    )
    hall.cut_off -= set(cut)
    since = _marks(day)
    _phase(
        day,
        "each judge back online had a verdict of the service, its waiting ones sent",
        lambda: _each_showed(day, cut, since, offline=False)() and not any(d.waiting for d in api),
        size.round_seconds * 0.3,
        deadline,
    )


def _round_3(day, size, service, director, hall, kiosk, api, deadline) -> None:
    """A phone lost mid-round, once it has played in the round: the director revokes it, and it
    is refused at its next challenge (and stops)."""
    lost = f"Mesa {size.tables}"
    _phase(
        day,
        f"{lost} showed a verdict in round 3",
        _each_showed(day, [lost], _marks(day)),
        size.round_seconds * 0.5,
        deadline,
    )
    director.call("DELETE", f"/v1/devices/{day.ids[lost]}")
    _phase(
        day,
        f"{lost} refused once revoked",
        lambda: day.tallies[lost].refused.get("device-revoked", 0) >= 1,
        size.round_seconds * 0.5,
        deadline,
    )
    refused = day.tallies[lost].refused.get("device-revoked", 0)
    day.check("the revoked device is refused", refused == 1, f"{refused} refusal(s) device-revoked")


FAULTS = {1: _round_1, 2: _round_2, 3: _round_3}


def add_rows(table: Table, day: Day) -> None:
    for name, value in day.figures.items():
        table.add(name, value)
    for name, (passed, found) in day.checks.items():
        table.add(name, str(found)[:160], "yes", passed)


def run(size: Size = Size()) -> list[Table]:
    from .service import lexicon_files

    files, languages = lexicon_files()
    spanish = files[languages.index("es")]
    table = Table(
        f"A director's day rehearsed: {size.judges} juez and {size.tables} mesa devices (one of each in "
        f"Chromium), 3 rounds of {size.round_seconds:g} s, a {size.table_gap:g} s table gap, the service "
        f"killed and restarted, {size.offline_seconds:g} s of 3 judges offline, a device revoked"
    )
    with tempfile.TemporaryDirectory() as scratch:
        add_rows(table, rehearse(Path(scratch), files, spanish, size))
    return [table]
