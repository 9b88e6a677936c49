"""The entry's own checks (model.check_entry), and the record's time stamps (model.stamp)."""

from __future__ import annotations

import sys
from datetime import UTC, timedelta, timezone
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from tournament import model


def test_white_space_in_a_word_is_exactly_what_str_isspace_calls_white_space():
    """check_entry finds white space with one regular expression: the same characters as isspace."""
    differ = [c for c in range(sys.maxunicode + 1) if bool(model._SPACE.search(chr(c))) != chr(c).isspace()]
    assert differ == []


class Word(str):
    """A str subclass (as rows.Undecodable is): text, but not exactly str."""


# Texts a check may meet: words, Catalan and Spanish ones among them, white space, NUL, a lone
# surrogate, the empty string, a str subclass, and what is not text at all.
texts = (
    st.sampled_from(["CASA", "COL·LEGI", "CA[RR]O", "[CH]ICO", "ÑANDU", "plaça", "q-1", "fise-2", "ab" * 32])
    | st.text(max_size=6)
    | st.text(st.characters(categories=("Cs", "Zs", "Cc", "Ll")), max_size=4)
    | st.just("")
    | st.just("A\0B")
    | st.just(Word("CASA"))
    | st.integers(0, 3)
)
often_none = lambda strategy: st.none() | st.none() | strategy
flags = st.booleans() | st.booleans() | st.sampled_from([0, 1, None, "true"])
plays = st.lists(texts, max_size=9)


WELL_FORMED = dict(  # an online verdict's entry, as the service makes one
    lexicon_id="disc-ca",
    lexicon_version="2.9",
    lexicon_checksum="5f" * 32,
    notation="spelling",
    words=("Col·legi", "plaça"),
    tiles=("COL·LEGI", "PLAÇA"),
    valid=True,
    device_id=3,
    device_name="Mesa 7",
    role="table",
    table="7",
    idempotency_key="k-1",
    offline=False,
    device_time=None,
    second_lexicon_id=None,
    second_lexicon_version=None,
    second_lexicon_checksum=None,
    second_valid=None,
    shown_round=None,
)
ANY_VALUE = {  # what each field may be given instead, well formed or not
    **dict.fromkeys(("lexicon_id", "lexicon_version", "lexicon_checksum"), texts),
    **dict.fromkeys(("device_name", "table", "idempotency_key"), often_none(texts)),
    **dict.fromkeys(("second_lexicon_id", "second_lexicon_version", "second_lexicon_checksum"), often_none(texts)),
    "notation": st.sampled_from(["spelling", "tiles", "other", None]),
    "words": plays.map(tuple),
    "tiles": plays.map(tuple),
    "valid": flags,
    "offline": flags,
    "second_valid": often_none(flags),
    "device_id": st.none() | st.integers(1, 9) | st.sampled_from([True, 1.0, "1"]),
    "role": st.sampled_from([None, "judge", "table", "lookup", "director"]),
    "device_time": often_none(st.sampled_from(["2026-11-22T10:31:07.120034Z", "ayer"]) | texts),
    "shown_round": often_none(st.integers(-1, 3) | st.just(True)),
}


@st.composite
def anything_like_an_entry(draw) -> SimpleNamespace:
    """An online verdict's entry with none, one, two or many of its fields given any other value."""
    changed = draw(st.lists(st.sampled_from(sorted(ANY_VALUE)), max_size=draw(st.sampled_from([1, 2, 19]))))
    fields = dict(WELL_FORMED)
    for name in changed:
        fields[name] = draw(ANY_VALUE[name])
    if "words" in changed and "tiles" not in changed and draw(st.booleans()):
        fields["tiles"] = fields["words"]  # as many tiles as words, each as bad as its word
    return SimpleNamespace(**fields)


def outcome(check, entry) -> tuple[type, str] | None:
    try:
        check(entry)
    except Exception as error:
        return type(error), str(error)
    return None


@given(anything_like_an_entry())
def test_an_entry_checked_at_once_is_accepted_or_refused_as_checked_one_thing_at_a_time(entry):
    """check_entry's pass at once (_plainly_whole) accepts only what its checks one at a time
    accept; what it does not accept, they refuse (or accept) as always, with the same message."""
    assert outcome(model.check_entry, entry) == outcome(model._check_each, entry)
    if model._plainly_whole(entry):
        assert outcome(model._check_each, entry) is None


# Values no field of an entry may hold, or only some: each given to every field in turn (and as
# one word of a play, and as every word of one), the rest well formed
ODD_VALUES = [
    None,
    "",
    " ",
    "CA SA",
    "CASA\u00a0",
    "A\0B",
    "\ud800",
    "CASA\udc00",
    Word("CASA"),
    Word(""),
    0,
    1,
    True,
    False,
    1.0,
    "1",
    -1,
    "ayer",
    "2026-11-22T10:31:07.120034Z",
    "judge",
    "director",
    "tiles",
    "other",
    ("CASA",),
    (),
]


def test_each_odd_value_in_each_field_is_accepted_or_refused_as_checked_one_thing_at_a_time():
    for name in WELL_FORMED:
        for value in ODD_VALUES:
            cases = [{name: value}]
            if name in ("words", "tiles"):
                cases += [{name: ("CASA", value)}, {"words": (value, value), "tiles": (value, value)}]
            for change in cases:
                entry = SimpleNamespace(**{**WELL_FORMED, **change})
                assert outcome(model.check_entry, entry) == outcome(model._check_each, entry), change


def test_an_online_verdict_s_entry_is_checked_at_once():
    assert model._plainly_whole(model.Entry(**WELL_FORMED))


@given(
    st.datetimes(
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=-11, minutes=-30))])
    )
)
def test_a_stamp_is_the_utc_time_strftime_writes(moment):
    """stamp writes the time as strftime("%Y-%m-%dT%H:%M:%S.%fZ") of the UTC time always did (each
    row's time is in its hash), years before 1000 too (which glibc's %Y does not pad)."""
    assert model.stamp(moment) == moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
