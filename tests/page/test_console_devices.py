"""The director's console's devices form says what is wrong with it (a name missing, too long,
with no letter nor digit or another device's, a table device's number missing or refused) under
it, its field marked, and the line goes as soon as the director corrects that field, or an action
succeeds: it stayed until the form was used again, so a name corrected still read as wrong. In
the three engines (tests/page/engines.py), at a phone's size, in Spanish and Catalan."""

from __future__ import annotations

import pytest

from service.director import director_texts

from .phone_states import Director
from .test_console_marks import SIGNED_IN
from .test_director_console import event_es  # noqa: F401 (a fixture)
from .test_engines import signed_in

pytestmark = pytest.mark.server  # the event's service is the test's own

TEXTS = director_texts()
PAIR = "#device-form [type=submit]"
# The line under the form, and which field is marked wrong and has the focus.
STATE = """({ said: document.getElementById("device-error").textContent, focus: document.activeElement.id,
  marked: ["device-name", "device-table"].filter((id) => document.getElementById(id).getAttribute("aria-invalid") === "true") })"""


def console_of(devices, server):
    console = devices(server.url)
    signed_in(console, f"{SIGNED_IN} && document.getElementById('devices-panel')", "the console signed in")
    return console


def refused(console, field: str, said: str, focus: bool = True) -> None:
    """The line says `said`, the field marked (and with the focus, as the refusal left it)."""
    state = console.wait(f"(({STATE}).said === args[0]) && {STATE}", f"the line {said!r}", 15, said)
    assert state["marked"] == [field] and (state["focus"] == field or not focus), f"{console.engine}: {state}"


def gone(console) -> None:
    state = console.run(STATE)
    assert state["said"] == "" and state["marked"] == [], f"{console.engine}: {state}"


def role(console, value: str) -> None:
    """The role chosen in its list, as a tap on an option does (the select's value, its input and change)."""
    console.run(
        """((s) => { s.value = args[1]; s.dispatchEvent(new Event("input", { bubbles: true }));
        s.dispatchEvent(new Event("change", { bubbles: true })); })(document.querySelector(args[0]))""",
        "#device-role",
        value,
    )


def test_a_name_missing_or_another_device_s_goes_as_the_director_corrects_it(devices, engine, event_es):  # noqa: F811
    Director(event_es).device("Juez 1", "judge")
    console = console_of(devices, event_es)
    console.tap(PAIR)
    refused(console, "device-name", TEXTS["es"]["nameRequired"])
    console.tap('.lang[data-lang="ca"]')  # said again in the language tapped, still marked
    refused(console, "device-name", TEXTS["ca"]["nameRequired"], focus=False)
    console.type("#device-name", "j")
    gone(console)
    console.tap('.lang[data-lang="es"]')
    console.type("#device-name", "uez 1")
    console.tap(PAIR)
    said = TEXTS["es"]["nameTaken"].format(name="Juez 1", newCode=TEXTS["es"]["newCode"], revoke=TEXTS["es"]["revoke"])
    refused(console, "device-name", said)
    console.type("#device-name", "0")  # «juez 10»: no longer another device's name
    gone(console)
    console.tap(PAIR)
    console.wait("!document.getElementById('pairing').hidden", "the code of «juez 10»")
    gone(console)


def test_a_name_or_table_the_service_refuses_is_marked_and_goes_as_it_is_corrected(devices, engine, event_es):  # noqa: F811
    """A name of 61 characters (the field keeps one typed or pasted at 60: one a script or an
    older page put there), refused by the service naming the name (its `pointer`): marked, said
    as the name's fault, and gone with a character less. A name with no letter nor digit ("- -"),
    which the service refused naming no field, so that the console marked none and said only that
    the data was refused: marked and said the same way, in the language tapped, gone as it is
    corrected. And a table with an invisible character in it: the table's field marked."""
    console = console_of(devices, event_es)
    name = {lang: TEXTS[lang]["nameRefused"].format(max=60) for lang in ("es", "ca")}
    console.run("document.getElementById('device-name').value = 'J'.repeat(61)")
    console.tap(PAIR)
    refused(console, "device-name", name["es"])
    console.run("((f) => f.setSelectionRange(61, 61))(document.getElementById('device-name'))")  # the focus there
    console.backspace()
    gone(console)
    console.run("document.getElementById('device-name').value = ''")
    console.type("#device-name", "- -")
    console.tap(PAIR)
    refused(console, "device-name", name["es"])
    console.tap('.lang[data-lang="ca"]')  # said again in the language tapped, still marked
    refused(console, "device-name", name["ca"], focus=False)
    role(console, "lookup")  # another field changed: the name still wrong
    refused(console, "device-name", name["ca"], focus=False)
    console.type("#device-name", "3")
    gone(console)
    role(console, "table")
    console.run("document.getElementById('device-table').value = '\u200b'")  # no space: sent as it is
    console.tap(PAIR)
    refused(console, "device-table", TEXTS["ca"]["tableRefused"])
    console.type("#device-table", "5")
    gone(console)


def test_a_table_missing_goes_with_its_number_or_another_role(devices, engine, event_es):  # noqa: F811
    console = console_of(devices, event_es)
    for then in ("number", "role"):
        role(console, "table")
        console.type("#device-name", "Mesa 3" if then == "number" else "4")
        console.tap(PAIR)
        refused(console, "device-table", TEXTS["es"]["tableRequired"])
        if then == "number":
            console.type("#device-table", "3")
        else:
            role(console, "judge")
        gone(console)
        console.tap(PAIR)
        console.wait("!document.getElementById('pairing').hidden", "a code shown")
        console.tap("#pairing-done")


def test_a_line_goes_once_an_action_succeeds(devices, engine, event_es):  # noqa: F811
    """A device revoked (or given a new code) after a name was refused: the line goes, since the
    director has moved on; the field is no longer marked."""
    device = Director(event_es).ask("POST", "/v1/devices", {"name": "Juez 1", "role": "judge"})["device"]
    console = console_of(devices, event_es)
    console.wait(f"document.querySelector('[data-revoke=\"{device['id']}\"]')", "the device's row")
    console.tap(PAIR)
    refused(console, "device-name", TEXTS["es"]["nameRequired"])
    assert console.confirm(f'[data-revoke="{device["id"]}"]').startswith("¿"), engine
    console.wait("document.querySelector('#devices tr.revoked')", "the device revoked")
    gone(console)
