"""Issue 28 item 15: the public chain commits to every fact of the record (public chain 2, record format 3).

Under public chain 1 (what main wrote up to 65d220b) three rewrites were invisible even to a head a watcher
saved after them, because the chain hashed only what a spectator sees: a private message's text (R8.3: a
spectator sees it as null), an event's ``command_id`` and its ``actor`` (a person's move re-attributed to the
system, ``null``). Public chain 2 hashes each event's seal, SHA-256 of a random salt (revealed in the record)
and the event's unredacted data, command, command id and actor: every such rewrite, at or before a saved
head, makes the recomputed chain differ from that head. Checked here for the three games, in pure records and
through the server (the event table's owner switching its append-only trigger off)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from games import store
from games.audit import public
from games.audit.verify import verify_record
from games.models import Event, Game
from tests.audit.helpers import people_record, rechain
from tests.audit.play import play_to_end
from tests.conftest import make_api, start_table

GAMES = [("goodcritters", 4), ("loose_triggers", 4), ("were_cats", 3)]


def _batch(record: dict[str, Any], start: int) -> list[dict[str, Any]]:
    """The events of the batch that starts at event ``start``."""
    events = record["events"]
    out = [events[start - 1]]
    for event in events[start:]:
        if event["command"] is not None:
            break
        out.append(event)
    return out


def _message(record: dict[str, Any]) -> int:
    return next(e["seq"] for e in record["events"] if e["type"] == "MessageSent" and e["data"]["to"])


def _a_persons_move(record: dict[str, Any]) -> int:
    """The first batch, after the private message, of a game command a person sent (actor not null)."""
    after = _message(record)
    return next(
        e["seq"]
        for e in record["events"][after:]
        if e["command"] is not None and e["actor"] is not None and e["command"]["type"] != "SendMessage"
    )


def rewrite_message(record: dict[str, Any]) -> int:
    """A private message's text rewritten, in the event and in the command stored on it."""
    event = record["events"][_message(record) - 1]
    event["data"]["text"] = "meet me at the docks"
    event["command"]["text"] = "meet me at the docks"
    return int(event["seq"])


def rewrite_command_id(record: dict[str, Any]) -> int:
    seq = _a_persons_move(record)
    for event in _batch(record, seq):
        event["command_id"] = "cmd:forged"
    return seq


def rewrite_actor(record: dict[str, Any]) -> int:
    """A person's move re-attributed to the system (the verifier's actor rule allows null)."""
    seq = _a_persons_move(record)
    for event in _batch(record, seq):
        event["actor"] = None
    return seq


REWRITES: list[Callable[[dict[str, Any]], int]] = [rewrite_message, rewrite_command_id, rewrite_actor]


def _forged(record: dict[str, Any], rewrite: Callable[[dict[str, Any]], int]) -> tuple[dict[str, Any], int]:
    forged = copy.deepcopy(record)
    seq = rewrite(forged)
    return rechain(forged), seq


@pytest.fixture(scope="module", params=GAMES, ids=[g[0] for g in GAMES])
def records(request: pytest.FixtureRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    slug, players = request.param
    return people_record(slug, players), people_record(slug, players, public_chain=1)


@pytest.mark.parametrize("rewrite", REWRITES, ids=lambda r: r.__name__)
def test_a_rewrite_is_caught_by_a_head_saved_after_it(
    records: tuple[dict[str, Any], dict[str, Any]], rewrite: Callable[[dict[str, Any]], int]
) -> None:
    """Issue 28 item 15 (R8.3, the private message; the command id; the actor): a head saved after the
    rewritten event (two events later, and at the end) no longer matches the record's public chain."""
    record, _old = records
    assert record["format_version"] == 3
    assert verify_record(record).ok
    forged, seq = _forged(record, rewrite)
    assert forged["events"][seq - 1] != record["events"][seq - 1]
    alone = verify_record(forged)
    assert alone.ok, alone.text()  # nothing inside the record contradicts it: the heads must
    chain = [e["public_hash"] for e in record["events"]]
    for at in (seq, seq + 2, len(chain)):
        verdict = verify_record(forged, checkpoints=[(at, chain[at - 1])])
        assert not verdict.ok, f"a head saved at {at} did not catch {rewrite.__name__} at {seq}"
        assert verdict.error is not None
        assert (verdict.error.check, verdict.error.seq) == ("public", at)
    # a head saved before the rewrite cannot see it (docs/AUDIT.md says so)
    assert verify_record(forged, checkpoints=[(seq - 1, chain[seq - 2])]).ok
    assert verify_record(record, checkpoints=[(len(chain), chain[-1])]).ok


@pytest.mark.parametrize("rewrite", REWRITES, ids=lambda r: r.__name__)
def test_public_chain_1_could_not_see_these_rewrites(
    records: tuple[dict[str, Any], dict[str, Any]], rewrite: Callable[[dict[str, Any]], int]
) -> None:
    """Why public chain 2 exists: under public chain 1 (format 2, records made before) the same rewrite
    keeps every public hash, so even the last head passes it; such records still verify as they are."""
    _record, old = records
    assert old["format_version"] == 2
    assert "salt" not in old["events"][0]
    assert verify_record(old).ok
    forged, _seq = _forged(old, rewrite)
    assert [e["public_hash"] for e in forged["events"]] == [e["public_hash"] for e in old["events"]]
    assert verify_record(forged, checkpoints=[(len(old["events"]), old["public_head_hash"])]).ok


def test_a_salt_is_part_of_the_format(records: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Format 3: every event carries its seal's salt (16 bytes, lowercase hex); a missing or malformed one is
    refused at the format check, and a salt changed (to make a seal come out) breaks the public chain."""
    record, _old = records
    missing = copy.deepcopy(record)
    del missing["events"][4]["salt"]
    verdict = verify_record(missing)
    assert verdict.error is not None
    assert (verdict.error.check, verdict.error.seq) == ("format", 5)
    for bad in ("AB" * 16, "ab" * 15, 7):
        odd = copy.deepcopy(record)
        odd["events"][4]["salt"] = bad
        verdict = verify_record(odd)
        assert verdict.error is not None
        assert (verdict.error.check, verdict.error.seq) == ("format", 5)
    salted = copy.deepcopy(record)
    salted["events"][4]["salt"] = "00" * 16
    verdict = verify_record(salted)
    assert verdict.error is not None
    assert (verdict.error.check, verdict.error.seq) == ("public", 5)


def _forge_in_the_database(game_id: int, seq: int) -> None:
    """What the database's owner can do: switch the append-only trigger off, rewrite the private message at
    ``seq`` (event and command), and recompute both chains and the heads, keeping the salts."""
    game = Game.objects.get(pk=game_id)
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    row = rows[seq - 1]
    row.data = {**row.data, "text": "meet me at the docks"}
    assert row.command is not None
    row.command = {**row.command, "text": "meet me at the docks"}
    prev = prev_public = store.GENESIS_HASH
    updates = []
    for r in rows:
        r.prev_hash = prev
        prev = r.hash = store.event_hash(
            game_id=game_id,
            seq=r.seq,
            type=r.type,
            schema_version=r.schema_version,
            data=r.data,
            created_at=r.created_at,
            command_id=r.command_id,
            actor_id=r.actor_id,
            prev_hash=r.prev_hash,
            command=r.command,
        )
        prev_public = r.public_hash = public.public_hash(
            game_id=game_id,
            seq=r.seq,
            type=r.type,
            schema_version=r.schema_version,
            public_data=public.spectator_data(game.ruleset, r.data),
            created_at=r.created_at.isoformat(),
            prev_public_hash=prev_public,
            seal=public.seal(
                r.salt, data=r.data, command=r.command, command_id=r.command_id, actor=r.actor_id
            ),
        )
        updates.append(r)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete")
    Event.objects.bulk_update(updates, ["data", "command", "prev_hash", "hash", "public_hash"])
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_no_update_delete")
    Game.objects.filter(pk=game_id).update(head_hash=prev, public_head_hash=prev_public)
    assert store.verify_chain(game_id)  # both chains hold again


@pytest.mark.django_db
def test_the_server_no_longer_passes_a_private_message_its_owner_rewrote() -> None:
    """Issue 28 item 15 through the server: seat 1 sends seat 2 a private message; a spectator saves the
    public head served right after it (the feed recomputes it, seals included); the game ends; the database's
    owner rewrites the message and recomputes both chains. ``/verify`` with the saved head now fails at it."""
    table = start_table(4)
    gid = table.game_id
    assert Game.objects.get(pk=gid).public_chain == 2  # a new game: public chain 2
    r = table.apis[1].command(gid, "send-message", {"text": "psst", "to": [2]})
    assert r.status_code == 200, r.content
    head = r.json()["public_head"]
    spectator = make_api("watcher")
    feed = spectator.get(f"/api/v1/games/{gid}/events", after=0, limit=1000).json()
    prev = public.GENESIS
    for item in feed["events"]:  # what the spectator is shown, and each seal, give the served head
        assert item["seal"] is not None
        if item["event"]["type"] == "MessageSent":
            assert item["event"]["text"] is None  # R8.3: the spectator does not read it
        prev = public.public_hash(
            game_id=gid,
            seq=item["seq"],
            type=item["event"]["type"],
            schema_version=item["event"]["v"],
            public_data=item["event"],
            created_at=item["created_at"].replace("Z", "+00:00"),
            prev_public_hash=prev,
            seal=item["seal"],
        )
    assert head == feed["public_head"] == {"seq": len(feed["events"]), "hash": prev}
    play_to_end(gid, {a.player.pk: a for a in table.apis})
    url = f"/api/v1/games/{gid}/verify"
    checkpoint = f"{head['seq']}:{head['hash']}"
    assert spectator.get(url, checkpoint=checkpoint).json()["ok"] is True

    _forge_in_the_database(gid, head["seq"])
    record = spectator.get(f"/api/v1/games/{gid}/record").json()
    message = record["events"][head["seq"] - 1]
    assert (message["type"], message["data"]["text"]) == ("MessageSent", "meet me at the docks")
    assert spectator.get(url).json()["ok"] is True  # without a head, nothing contradicts it
    verdict = spectator.get(url, checkpoint=checkpoint).json()
    assert verdict["ok"] is False
    assert (verdict["error"]["check"], verdict["error"]["seq"]) == ("public", head["seq"])
