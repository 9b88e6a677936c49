"""The director's console marks a row of the record where its facts need a word, under the row's
time or verdict in its list, in the language tapped; a row that needs none carries no mark:

- a row stamped before the row before it (clocks that disagree: tournament/times.py), saying by
  how much and that the numbers are the order;
- a verdict judged offline by a phone that did not say which verdict it showed (a page from before
  `shown_valid`: tournament/shown.py), on its slip too;
- an online row whose second opinion its phone never showed (it judged the play itself and showed
  the same verdict alone: tournament/unshown_second.py), on its slip too, under the second opinion.

And it says, on a judge's row of the devices list, its offline verdicts the record refused because
the phone showed another verdict than the service gives, and apart those it judged with another
list than the event's (tournament/refused_offline.py).

Each in the three engines a director's phone or laptop runs (tests/page/engines.py), at a phone's
size, where the lists are a card a row: each mark drawn whole on the screen's width.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from .axe import assert_accessible
from .phone_states import Director
from .test_director_console import event_es  # noqa: F401 (a fixture)
from .test_engines import round_button_on_the_first_screen, signed_in

pytestmark = pytest.mark.server  # the event's service is the test's own

ES = "el teléfono no dijo qué veredicto mostró (una página anterior): este es el del servicio; lo que vieron los jugadores no consta"
CA = "el telèfon no va dir quin veredicte va mostrar (una pàgina anterior): aquest és el del servei; el que van veure els jugadors no consta"

# Each row of the list, newest first: its number and the text of its mark (args[0], a selector), or ''.
MARKS = """[...document.querySelectorAll("#records tbody tr")].map((r) =>
  [r.dataset.seq, (r.querySelector(args[0]) || {}).textContent || ""])"""
# Where an element (the args[1]th of those args[0] selects) is drawn, the page scrolled to it: its
# box (left, top, right, bottom), the screen's size, how wide its lines are beside the room it
# gives them, and the room inside its cell of the list (its width less its padding), if it is in one.
WHERE = """(() => { const el = document.querySelectorAll(args[0])[args[1]];
  el.scrollIntoView({ block: "center", behavior: "instant" }); const r = el.getBoundingClientRect();
  const cell = el.closest("td"), style = cell && getComputedStyle(cell);
  return { box: [r.left, r.top, r.right, r.bottom], screen: [innerWidth, innerHeight], lines: [el.scrollWidth, el.clientWidth],
    cell: cell ? cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) : null,
    shown: getComputedStyle(el).visibility !== "hidden" && getComputedStyle(el).display !== "none" }; })()"""


def seen(console, selector: str, n: int = 0, taller: bool = False) -> None:
    """The element (the `n`th the selector finds) drawn whole on the screen, its lines wrapped, not
    cut; in a cell of a list, a line of its own as wide as the cell (not squeezed beside its value).
    `taller`: it may be taller than the screen (then READ checks each of its lines, scrolled to)."""
    where = console.run(WHERE, selector, n)
    (left, top, right, bottom), (width, height) = where["box"], where["screen"]
    if taller and bottom - top > height:
        top, bottom = 0, height
    assert where["shown"] and 0 <= left < right <= width + 1 and 0 <= top < bottom <= height, (
        f"{console.engine}: {where}"
    )
    assert where["lines"][0] <= where["lines"][1] + 1, f"{console.engine}: {where}"
    assert where["cell"] is None or right - left >= where["cell"] - 1, f"{console.engine}: {where}"


# The slip's field of what the phone showed (its term and its words), or null with no such field.
SLIP_SHOWN = "(document.querySelector('#slip-fields .slip-field.shown') || {}).textContent || null"


# The console shown, signed in (it is drawn first, then shown: console.hidden goes last).
SIGNED_IN = "!document.getElementById('console').hidden"


def slip(console, seq: int) -> None:
    """The slip of row `seq` open, its fields drawn."""
    console.tap(f'[data-slip="{seq}"]')
    console.wait(
        f"document.getElementById('slip').open && document.querySelector('#slip-fields .slip-field.seq dd')"
        f" && document.querySelector('#slip-fields .slip-field.seq dd').textContent === '{seq}'",
        f"the slip of nº {seq}",
    )


def closed(console) -> None:
    console.tap("#slip-close")
    console.wait("!document.getElementById('slip').open", "the slip closed")


def in_language(console, lang: str) -> None:
    console.tap(f'.lang[data-lang="{lang}"]')
    console.wait(f"document.documentElement.lang === '{lang}'", f"the console in {lang}")


def test_an_offline_verdict_whose_phone_did_not_say_what_it_showed_is_marked_in_the_list_and_the_slip(
    devices,
    engine,
    event_es,  # noqa: F811
):
    from tests.tournament.conftest import entry
    from tournament import open_event

    db = open_event(event_es.event_path, clock=lambda: datetime(2026, 11, 22, 10, tzinfo=UTC))
    offline = dict(offline=True, device_time="2026-11-22T09:59:00.000000Z")
    play = dict(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",))
    try:
        db.append(entry(**play))
        db.append(entry(idempotency_key="older-page", shown_round=0, **offline, **play))
        db.append(entry(idempotency_key="this-page", shown_round=0, shown_valid=True, **offline, **play))
    finally:
        db.close()
    console = devices(event_es.url)
    signed_in(
        console, f"{SIGNED_IN} && document.querySelectorAll('#records tbody tr').length === 3", "the console's rows"
    )
    unknown = console.run(MARKS, ".shown-unknown")
    assert unknown == [["3", ""], ["2", ES], ["1", ""]], f"{engine}: {unknown}"
    seen(console, '#records tr[data-seq="2"] .shown-unknown')
    slip(console, 2)
    assert console.run(SLIP_SHOWN) == "Mostrado en el teléfono" + ES, engine
    seen(console, "#slip-fields .slip-field.shown")
    closed(console)
    slip(console, 3)
    assert console.run(SLIP_SHOWN) is None, engine
    closed(console)
    in_language(console, "ca")
    assert console.run(MARKS, ".shown-unknown") == [["3", ""], ["2", CA], ["1", ""]], engine
    seen(console, '#records tr[data-seq="2"] .shown-unknown')
    slip(console, 2)
    assert console.run(SLIP_SHOWN) == "Mostrat al telèfon" + CA, engine


UNSHOWN = {
    "es": (
        "segunda opinión no mostrada: el teléfono no recibió esta respuesta, juzgó la jugada sin conexión y a las ",
        " mostró el mismo veredicto sin ella",
        "Segunda opinión en el teléfono",
    ),
    "ca": (
        "segona opinió no mostrada: el telèfon no va rebre aquesta resposta, va jutjar la jugada sense connexió i a les ",
        " va mostrar el mateix veredicte sense ella",
        "Segona opinió al telèfon",
    ),
}
SLIP_UNSHOWN = "(document.querySelector('#slip-fields .slip-field.secondUnshown') || {}).textContent || null"


def test_an_online_row_whose_phone_showed_its_verdict_alone_is_marked_in_the_list_and_the_slip(
    devices,
    engine,
    event_es,  # noqa: F811
):
    from tests.tournament.conftest import entry
    from tournament import IdempotencyConflict, open_event

    db = open_event(event_es.event_path, clock=lambda: datetime(2026, 11, 22, 10, tzinfo=UTC))
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    mine = dict(device_id=judge.id, device_name=judge.name, role="judge")
    second = dict(second_lexicon_id="es-page", second_lexicon_version="1", second_lexicon_checksum="6a" * 32)
    play = dict(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",), second_valid=True, **second, **mine)
    try:
        db.append(entry(idempotency_key="lost", **play))
        db.append(entry(idempotency_key="answered", **play))
        with pytest.raises(IdempotencyConflict):  # its phone judged it itself: the same verdict, shown alone
            offline = dict(offline=True, device_time="2026-11-22T09:59:00.000000Z")
            db.append(
                entry(
                    idempotency_key="lost",
                    lexicon_id="es-page",
                    words=("CARRO",),
                    tiles=("CA[RR]O",),
                    **offline,
                    **mine,
                )
            )
    finally:
        db.close()
    console = devices(event_es.url)
    signed_in(
        console, f"{SIGNED_IN} && document.querySelectorAll('#records tbody tr').length === 2", "the console's rows"
    )
    for lang in ("es", "ca"):
        in_language(console, lang)
        start, end, term = UNSHOWN[lang]
        marks = console.run(MARKS, ".second-unshown")
        assert [seq for seq, _ in marks] == ["2", "1"] and marks[0][1] == "", f"{engine}: {marks}"
        assert marks[1][1].startswith(start) and marks[1][1].endswith(end), f"{engine}: {marks}"
        seen(console, '#records tr[data-seq="1"] .second-unshown')
        slip(console, 1)
        assert console.run(SLIP_UNSHOWN) == term + marks[1][1], engine
        seen(console, "#slip-fields .slip-field.secondUnshown")
        closed(console)
        slip(console, 2)
        assert console.run(SLIP_UNSHOWN) is None, engine
        closed(console)


def refused_twice(event) -> str:
    """A judge's phone (its token) that sent an offline verdict it showed *válida*, which the service
    judges *no válida* with the same lexicon (409 `offline-verdict-differs`), and one judged with
    another list (409 `offline-lexicon-changed`), that one twice: the record refused them."""
    director = Director(event)
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {"number": 1})
    status, _, data = event.request(
        "POST", "/v1/devices/pair", json.dumps({"code": code}).encode(), {"Content-Type": "application/json"}
    )
    assert status == 201, data
    token = json.loads(data)["token"]
    lexicon = next(item for item in director.ask("GET", "/v1/lexicons")["lexicons"] if item["id"] == "es-page")
    play = {
        "lexicon": lexicon["id"],
        "words": ["CARROX"],
        "idempotency_key": "k-1",
        "offline": True,
        "device_time": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "checksum": lexicon["checksum"],
        "round": 1,
        "shown_valid": True,
    }
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    status, _, data = event.request("POST", "/v1/challenge", json.dumps(play).encode(), headers)
    assert status == 409 and b"offline-verdict-differs" in data, data
    other = {**play, "words": ["CARRO"], "idempotency_key": "k-2", "checksum": "0" * 64, "round": None}
    for _ in range(2):  # sent again with its key: counted once
        status, _, data = event.request("POST", "/v1/challenge", json.dumps(other).encode(), headers)
        assert status == 409 and b"offline-lexicon-changed" in data, data
    return token


def test_a_judge_s_offline_verdict_the_record_refused_is_counted_on_its_row_of_the_devices_list(
    devices,
    engine,
    event_es,  # noqa: F811
):
    """A judge's phone sends an offline verdict it showed *válida* that the service judges *no
    válida* with the same lexicon: refused (409 `offline-verdict-differs`), said until now on the
    phone alone; and one judged with another list (409 `offline-lexicon-changed`). The console's
    devices list says each on the judge's row, a line per reason, in the language tapped: how
    many, the round its phone showed, when it judged and when it was refused, to look at that
    phone and decide the play (and for the other list, to have its page fetch the event's); no word."""
    token = refused_twice(event_es)
    console = devices(event_es.url)
    marks = "#devices tr[data-device] .refused-offline"
    signed_in(console, f"{SIGNED_IN} && document.querySelectorAll('{marks}').length === 2", "the judge's row marked")
    said = console.run(f"[...document.querySelectorAll('{marks}')].map((mark) => mark.textContent)")
    where = f"{engine}: {said}"
    assert said[0].startswith("1 veredicto sin conexión rechazado: el teléfono mostró otro veredicto"), where
    assert "(ronda 1, juzgado a las " in said[0], where
    assert said[1].startswith("1 veredicto sin conexión rechazado: el teléfono juzgó con otro léxico"), where
    assert "(fuera de ronda, juzgado a las " in said[1], where
    assert "Revisa el teléfono y decide la jugada; con conexión, que el juez recargue" in said[1], where
    text = " ".join(said).upper()
    assert not any(secret in text for secret in ("CARRO", "K-1", "K-2", "VÁLIDA", token.upper())), where
    for n in (0, 1):
        seen(console, marks, n)
    in_language(console, "ca")
    said = console.run(f"[...document.querySelectorAll('{marks}')].map((mark) => mark.textContent)")
    assert said[0].startswith("1 veredicte sense connexió rebutjat: el telèfon va mostrar un altre veredicte"), said
    assert said[1].startswith("1 veredicte sense connexió rebutjat: el telèfon va jutjar amb un altre lèxic"), said
    for n in (0, 1):
        seen(console, marks, n)


# Each line of text of an element (the args[1]th of those args[0] selects), scrolled to in turn:
# whether it is drawn inside the screen's width and on top at its middle (not under another
# element, not cut); and the other elements of its row its box overlaps (their classes or tags).
READ = """(() => { const el = document.querySelectorAll(args[0])[args[1]], range = document.createRange();
  range.selectNodeContents(el);
  const lines = [...range.getClientRects()].filter((r) => r.width > 1), out = [];
  for (let n = 0; n < lines.length; n++) {
    let r = range.getClientRects()[n];
    if (r.top < 0 || r.bottom > innerHeight) { scrollBy(0, r.top - innerHeight / 2); r = range.getClientRects()[n]; }
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    if (!(r.left >= 0 && r.right <= innerWidth + 1 && hit && el.contains(hit))) out.push([n, r.left, r.right, hit && hit.className]);
  }
  const b = el.getBoundingClientRect(), row = el.closest("tr");
  const over = [...row.querySelectorAll("*")].filter((o) => !o.contains(el) && !el.contains(o)).filter((o) => {
    const c = o.getBoundingClientRect();
    return Math.min(b.right, c.right) - Math.max(b.left, c.left) > 1 && Math.min(b.bottom, c.bottom) - Math.max(b.top, c.top) > 1; });
  return { lines: lines.length, out, over: over.map((o) => o.className || o.tagName) }; })()"""


# The text of a row of a list (the args[0]th that args[1] selects) that a reader cannot read: each
# piece of text drawn past the screen's sides (or the name of a cell wider than it), or broken into
# more lines than it has words (a value squeezed beside its name in a card, a character a line).
ROW = """(() => { const row = document.querySelectorAll(args[1])[args[0]], texts = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
  row.scrollIntoView({ block: "start", behavior: "instant" });
  const out = [], broken = [];
  for (let text = texts.nextNode(); text; text = texts.nextNode()) {
    if (!text.textContent.trim()) continue;
    const range = document.createRange(); range.selectNodeContents(text);
    const lines = [...range.getClientRects()].filter((r) => r.width > 1);
    if (lines.some((r) => r.left < 0 || r.right > innerWidth + 1)) out.push(text.textContent);
    if (lines.length > text.textContent.trim().split(/\\s+/).length) broken.push([text.textContent, lines.length]);
  }
  for (const cell of row.cells) if (cell.scrollWidth > cell.clientWidth + 1) out.push(cell.dataset.label);  // its name too
  return { out, broken }; })()"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_a_judge_s_refused_offline_verdicts_are_read_whole(devices, engine, event_es, size):  # noqa: F811
    """The lines of a judge's refused offline verdicts, one per reason, on a director's phone at
    200 % zoom (360 x 640: 180 x 320 CSS px), in Spanish and Catalan: each line of their text
    inside the screen's width and drawn on top, a line of its own under the row's last verdict,
    overlapping nothing else of the row; the round's button still whole on the first screen; and
    nothing for axe-core to find there (Chromium). And the rest of the judge's row read whole: its
    last contact, squeezed beside its label ("Último contacto"), was a column of one character a
    line past the screen's right side, and its state's badge was broken inside its word."""
    refused_twice(event_es)
    console = devices(event_es.url, size, zoomed=True)
    marks = "#devices tr[data-device] .refused-offline"
    signed_in(console, f"{SIGNED_IN} && document.querySelectorAll('{marks}').length === 2", "the judge's row marked")
    for lang in ("es", "ca"):
        in_language(console, lang)
        round_button_on_the_first_screen(console, engine, "round-close", [lang])
        row = console.run(ROW, 0, "#devices tr[data-device]")
        assert row == {"out": [], "broken": []}, f"{engine}, {lang}: {row}"
        for n in (0, 1):
            read = console.run(READ, marks, n)
            assert read["lines"] > 1 and read["out"] == [] and read["over"] == [], f"{engine}, {lang}, {n}: {read}"
            seen(console, marks, n, taller=True)
        if engine == "chromium":
            assert_accessible(console.page, f"the refused offline verdicts at 200 %, {lang}", "#devices")


def test_a_row_stamped_before_the_row_before_it_is_marked_in_the_list(devices, engine, event_es):  # noqa: F811
    """Instances whose clocks disagree (or a clock set back) stamp a row before the one before it:
    the list marks it under its time, saying by how much and that the numbers are the order, in the
    language tapped; a row less than a second back (clocks in agreement) is not marked."""
    from tests.tournament.conftest import entry
    from tournament import open_event

    times = iter(["10:00:05", "10:00:01.5", "10:00:01", "10:00:02"])
    db = open_event(event_es.event_path, clock=lambda: datetime.fromisoformat(f"2026-11-22T{next(times)}+00:00"))
    try:
        for _ in range(4):  # one clock reading each, as instances take turns
            db.append_many([entry(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",))])
    finally:
        db.close()
    console = devices(event_es.url)
    signed_in(
        console, f"{SIGNED_IN} && document.querySelectorAll('#records tbody tr').length === 4", "the console's rows"
    )
    stamped = console.run(MARKS, ".stamped-back")
    said = "sellado 3,5 s antes que el nº 1 (relojes que no coinciden o uno atrasado): el orden es el de los números"
    assert stamped == [["4", ""], ["3", ""], ["2", said + ", no el de las horas"], ["1", ""]], f"{engine}: {stamped}"
    seen(console, '#records tr[data-seq="2"] .stamped-back')
    in_language(console, "ca")
    back = console.text('#records tr[data-seq="2"] .stamped-back')
    assert back.startswith("segellat 3,5 s abans que el núm. 1"), f"{engine}: {back}"
    seen(console, '#records tr[data-seq="2"] .stamped-back')
