"""Devices: a single-use pairing code that expires in 10 minutes, a token stored hashed, revocation,
a name unique among the devices not revoked."""

from __future__ import annotations

import re

import pytest

from tournament import (
    DeviceGone,
    DeviceNameTaken,
    LastKeyMissing,
    PairingRefused,
    PlaysLimited,
    RoundRefused,
    UnknownDevice,
    open_event,
    stamp,
    token_hash,
)

from ..conftest import entry


def test_a_code_pairs_its_device_once(db):
    device, code = db.add_device("Juez 1", "judge")
    assert device.paired is None and not device.active
    paired, token = db.pair(code)
    assert paired.id == device.id and paired.active and len(token) >= 43
    assert db.device_by_token(token) == paired
    with pytest.raises(PairingRefused, match="already used") as refused:
        db.pair(code)
    assert refused.value.reason == "used"


def test_a_code_is_read_forgivingly(db):
    _, code = db.add_device("Mesa 3", "table", "3")
    assert db.pair(f" {code.lower().replace('-', ' ')} ")[0].table == "3"


def test_a_code_expires_after_ten_minutes(db, clock):
    _, code = db.add_device("Juez 2", "judge")
    _, late = db.add_device("Juez 3", "judge")
    clock.advance(minutes=9, seconds=59)
    db.pair(code)
    clock.advance(seconds=1)
    with pytest.raises(PairingRefused, match="expired") as refused:
        db.pair(late)
    assert refused.value.reason == "expired"


def test_an_unknown_code_is_refused(db):
    db.add_device("Juez 1", "judge")
    with pytest.raises(PairingRefused) as refused:
        db.pair("AAAA-AAAA")
    assert refused.value.reason == "unknown"


@pytest.mark.parametrize("code", [None, 12345678, b"AAAA-AAAA", ""])
def test_a_code_that_is_not_text_is_unknown(db, code):
    db.add_device("Juez 1", "judge")
    with pytest.raises(PairingRefused) as refused:
        db.pair(code)
    assert refused.value.reason == "unknown"
    assert db.device_by_token(code) is None


def test_a_new_code_replaces_the_unused_one_and_re_pairing_replaces_the_token(db):
    device, first = db.add_device("Juez 1", "judge")
    second = db.new_code(device.id)
    with pytest.raises(PairingRefused):
        db.pair(first)
    _, old_token = db.pair(second)
    _, new_token = db.pair(db.new_code(device.id))
    assert db.device_by_token(old_token) is None
    assert db.device_by_token(new_token).id == device.id


def test_a_revoked_device_is_known_by_its_token_but_inactive_and_cannot_pair(db, clock):
    device, code = db.add_device("Mesa 12", "table", "12")
    _, token = db.pair(code)
    clock.advance(minutes=1)
    revoked = db.revoke(device.id)
    assert revoked.revoked is not None and not revoked.active
    assert db.device_by_token(token) == revoked  # so its page can say it is no longer paired
    assert db.revoke(device.id) == revoked  # twice changes nothing
    with pytest.raises(PairingRefused) as refused:
        db.new_code(device.id)
    assert refused.value.reason == "revoked"


def test_a_pending_code_of_a_revoked_device_is_refused(db):
    device, code = db.add_device("Mesa 12", "table", "12")
    db.revoke(device.id)
    with pytest.raises(PairingRefused):
        db.pair(code)


@pytest.mark.parametrize(
    "name, role, table, message",
    [
        ("", "judge", None, "name"),
        ("Juez\n1", "judge", None, "name"),
        ("x" * 61, "judge", None, "name"),
        ("Juez 1", "director", None, "role"),
        ("Mesa", "table", None, "needs its table .*: none was given$"),
        ("Mesa", "table", " ", "needs its table .*: not ' '$"),
        ("Juez 1", "judge", "4", "only a table device"),
    ],
)
def test_bad_device_fields_are_refused_quoting_them(db, name, role, table, message):
    with pytest.raises(ValueError, match=message):
        db.add_device(name, role, table)
    assert db.devices() == []


def test_devices_are_listed_and_an_unknown_one_is_named(db):
    db.add_device("Juez 1", "judge")
    db.add_device("Kiosco", "lookup")
    assert [(d.id, d.name, d.role) for d in db.devices()] == [(1, "Juez 1", "judge"), (2, "Kiosco", "lookup")]
    with pytest.raises(UnknownDevice, match="no device 9"):
        db.revoke(9)


def test_a_code_that_cannot_pair_never_takes_the_write_lock(db, clock, monkeypatch):
    """Pairing needs no login: a phone sending codes at random must not queue with the verdicts."""
    _, used = db.add_device("Juez 2", "judge")
    db.pair(used)
    _, old = db.add_device("Juez 3", "judge")
    clock.advance(minutes=11)
    writes = []
    write = type(db)._write
    monkeypatch.setattr(type(db), "_write", lambda self: writes.append(1) or write(self))
    for wrong in ("ZZZZ-ZZZZ", used, old):
        with pytest.raises(PairingRefused):
            db.pair(wrong)
    assert writes == []
    _, fresh = db.add_device("Juez 4", "judge")
    writes.clear()
    assert db.pair(fresh)[0].name == "Juez 4" and writes == [1]


@pytest.mark.parametrize("again", ["Mesa 7", " mesa 7 ", "MESA 7", "  Mesa 7", "Mesa  7", "Ｍｅｓａ ７"])
def test_a_name_taken_by_a_device_not_revoked_is_refused_without_case_or_spaces(db, again):
    """The console's list and the record's "device" column must tell two devices apart."""
    first, code = db.add_device("Mesa 7", "table", "7")
    db.pair(code)
    with pytest.raises(DeviceNameTaken, match=re.escape(repr(again.strip()))) as taken:  # as typed
        db.add_device(again, "judge")
    assert taken.value.existing == first.id and taken.value.name == again.strip()
    assert "another name" in str(taken.value) and "new code" in str(taken.value) and "revoke" in str(taken.value)
    assert [d.name for d in db.devices()] == ["Mesa 7"]


def test_a_name_is_compared_beyond_ascii_case(db):
    db.add_device("Àrbitre Ñ", "judge")
    with pytest.raises(DeviceNameTaken):
        db.add_device("àrbitre ñ", "judge")
    db.add_device("Arbitre N", "judge")  # other letters, another name
    assert [d.name for d in db.devices()] == ["Àrbitre Ñ", "Arbitre N"]


def test_a_revoked_devices_name_may_be_used_again(db):
    old, _ = db.add_device("Juez 1", "judge")
    db.revoke(old.id)
    new, code = db.add_device(" juez 1", "judge")
    assert new.id != old.id and new.name == "juez 1" and db.pair(code)[0].id == new.id
    with pytest.raises(DeviceNameTaken) as taken:  # only the revoked one was free to take
        db.add_device("Juez 1", "judge")
    assert taken.value.existing == new.id


def test_a_name_is_checked_inside_the_write_lock(db, location, monkeypatch):
    """Another worker (another store on the file) adds the name between this one's request and its
    lock: the name read under the lock is the one refused, never a second device of that name."""
    other = open_event(location)
    write = type(db)._write

    def late(self):
        if self is db and not other.devices():
            other.add_device("Mesa 7", "table", "7")
        return write(self)

    monkeypatch.setattr(type(db), "_write", late)
    try:
        with pytest.raises(DeviceNameTaken):
            db.add_device("mesa 7", "table", "7")
        assert [d.name for d in db.devices()] == ["Mesa 7"]
    finally:
        other.close()


def test_a_device_revoked_or_paired_again_by_another_worker_is_known_so_at_once(db, location, clock):
    """Every request of a device reads it by its token (one statement, no transaction of its own:
    storage.Storage.device_by_token_hash): another worker (another store of the event) that read
    it before, and has written since, sees the director's revocation and a new pairing at its
    very next read, whatever it read or wrote in between."""
    other = open_event(location, clock=clock)
    try:
        judge, code = db.add_device("Juez 1", "judge")
        _, old = db.pair(code)
        table, table_code = db.add_device("Mesa 4", "table", "4")
        _, table_token = db.pair(table_code)
        assert other.device_by_token(old).active and other.device_by_token(table_token).active
        other.append(
            entry(device_id=judge.id, device_name=judge.name, role=judge.role, idempotency_key="k-1")
        )  # the other worker writes, and reads, between the director's changes
        _, new = db.pair(db.new_code(judge.id))
        assert other.device_by_token(old) is None and other.device_by_token(new).active
        db.revoke(table.id)
        assert not other.device_by_token(table_token).active
        assert other.device_by_token(new).active  # the revocation of another device changes nothing here
        db.revoke(judge.id)
        assert other.device_by_token(new).revoked is not None and not other.device_by_token(new).active
    finally:
        other.close()


def of(device) -> dict:
    """An entry's device fields, as Entry.for_device gives them."""
    return dict(device_id=device.id, device_name=device.name, role=device.role)


def test_the_write_refuses_a_device_revoked_or_paired_again_since_it_was_read_and_writes_nothing(db, location, clock):
    """A verdict whose device was read before the write (a worker's cache of live devices:
    service/event/live_devices.py) names it with the hash of its token (`holder`): the write checks
    inside the write lock that the device still holds that token and is not revoked, before
    anything else, and writes nothing otherwise, whichever worker changed the device."""
    other = open_event(location, clock=clock)  # the worker that read the device, and writes its verdicts
    try:
        judge, code = db.add_device("Juez 1", "judge")
        _, old = db.pair(code)
        cached = (judge.id, token_hash(old))
        assert [r.seq for r in other.append_many([entry(**of(judge), idempotency_key="k-1")], holder=cached)] == [1]
        _, new = db.pair(db.new_code(judge.id))  # paired again: the old token is no device's
        with pytest.raises(DeviceGone) as gone:
            other.append_many([entry(**of(judge), idempotency_key="k-1")], holder=cached)  # not even a replay
        assert (gone.value.device_id, gone.value.revoked) == (judge.id, False)
        live = (judge.id, token_hash(new))
        assert [r.seq for r in other.append_many([entry(**of(judge), idempotency_key="k-2")], holder=live)] == [2]
        db.revoke(judge.id)
        with pytest.raises(DeviceGone) as gone:
            other.append_many([entry(**of(judge), idempotency_key="k-3")], 10, holder=live)  # before its rate limit
        assert gone.value.revoked
        with pytest.raises(DeviceGone) as gone:
            other.append_many([entry(idempotency_key="k-4")], holder=(judge.id + 1, token_hash(new)))  # no such device
        assert not gone.value.revoked
        assert [r.seq for r in db.records()] == [1, 2]
    finally:
        other.close()


@pytest.mark.parametrize(
    "refusal, more",
    [
        (RoundRefused, dict(round_open=True)),  # no round is open
        (LastKeyMissing, dict(last_key="never-recorded")),
        (PlaysLimited, dict(budget=(("203.0.113.7", 1),))),  # the address's play of the minute is spent
    ],
    ids=["round", "last-key", "budget"],
)
def test_a_gone_holder_is_refused_before_the_round_the_last_key_and_the_budget(db, refusal, more):
    """The holder is checked first (record.py, `_append_in`): a revoked device is told it is
    gone (the service's 401, which unpairs its page), never what else would refuse it, and
    nothing is written; the same append from a live device meets that other refusal."""
    db.append_many([entry(idempotency_key="spent")], budget=(("203.0.113.7", 1),))
    held = []
    for name in ("Juez 1", "Juez 2"):
        judge, code = db.add_device(name, "judge")
        held.append((judge, (judge.id, token_hash(db.pair(code)[1]))))
    (gone, gone_holder), (live, live_holder) = held
    db.revoke(gone.id)
    with pytest.raises(DeviceGone) as refused:
        db.append_many([entry(**of(gone), idempotency_key="k-1")], holder=gone_holder, **more)
    assert (refused.value.device_id, refused.value.revoked) == (gone.id, True)
    with pytest.raises(refusal):
        db.append_many([entry(**of(live), idempotency_key="k-2")], holder=live_holder, **more)
    assert [r.entry.idempotency_key for r in db.records()] == ["spent"]


def test_a_group_commit_refuses_only_its_gone_devices_appends(db, monkeypatch):
    """The devices of a group commit's appends are read in one query with the transaction
    (record.py's _Group): an append whose device was revoked gets DeviceGone as its outcome and
    writes nothing; the others' rows chain on without a gap."""
    from contextlib import contextmanager

    from tournament.group_commit import Append

    asked, write = [], db._storage.write

    class Counted:
        def __init__(self, tx):
            self.tx = tx

        def __getattr__(self, name):
            return getattr(self.tx, name)

        def keys_and_holders(self, keys, device_ids):
            asked.append(sorted(device_ids))
            return self.tx.keys_and_holders(keys, device_ids)

    @contextmanager
    def counted():
        with write() as tx:
            yield Counted(tx)

    judges = []
    for name in ("Juez 1", "Juez 2"):
        device, code = db.add_device(name, "judge")
        judges.append((device, db.pair(code)[1]))
    (first, first_token), (second, second_token) = judges
    db.revoke(second.id)
    live = Append([entry(**of(first), words=("CASA",), tiles=("CASA",))], holder=(first.id, token_hash(first_token)))
    gone = Append([entry(**of(second), words=("MESA",), tiles=("MESA",))], holder=(second.id, token_hash(second_token)))
    nobody = Append([entry(words=("GAT",), tiles=("GAT",)), entry(words=("GOS",), tiles=("GOS",))])
    monkeypatch.setattr(db._storage, "write", counted)
    db._commit([live, gone, nobody])
    assert asked == [sorted((first.id, second.id))]  # one query for the group's keys and devices
    assert isinstance(gone.outcome, DeviceGone) and gone.outcome.revoked
    assert [row.seq for row in live.outcome + nobody.outcome] == [1, 2, 3]
    assert [row.entry.words for row in db.records()] == [("CASA",), ("GAT",), ("GOS",)]
    assert db.verify() is None


def test_a_contact_older_than_the_one_stored_is_not_written_over_it(db, clock):
    """Each worker writes the last requests it saw (`touch`); another worker may have written a
    later one for the same device already: the later time stays, whichever is written last. A
    time for a device that does not exist is dropped."""
    _, code = db.add_device("Juez 1", "judge")
    phone = db.pair(code)[0]
    earlier = stamp(clock())
    clock.advance(seconds=20)
    later = stamp(clock())
    db.touch({phone.id: later})  # one worker's
    db.touch({phone.id: earlier, phone.id + 1: later})  # another's, which saw the phone before
    assert db.contacts() == {phone.id: later}
    clock.advance(seconds=20)
    db.touch({phone.id: stamp(clock())})
    assert db.contacts() == {phone.id: stamp(clock())}
