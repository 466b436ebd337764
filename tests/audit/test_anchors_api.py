"""A record is anchored to the game people watched (issue 13, item 3), through the public HTTP API.

A forger holding a finished record changes a face-down vote, recomputes its commitment (the salt derives from
the seed, public at the end), the command, and both hash chains: the verifier alone says ok (nothing in the
record contradicts it). Checked against a public chain head a watcher saved while the game ran, at or after
that vote, it fails; the server's signature fails too. The public head is in every state response (state
read, command response, event feed) and a spectator can recompute it from the feed alone."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from games.audit import public, signature
from games.audit.verify import main as verify_main
from games.audit.verify import verify_record
from games.rules import rng
from tests.audit.helpers import rechain
from tests.audit.play import play_to_end
from tests.conftest import Table, assert_problem, make_api, start_table

pytestmark = pytest.mark.django_db


def _spectator_chain(spectator: Any, game_id: int) -> list[str]:
    """The public chain recomputed from the event feed (no secret needed). The game is over, so the feed shows
    everything: the spectator's redaction (docs/AUDIT.md's table) gives back what was shown during play."""
    body = spectator.get(f"/api/v1/games/{game_id}/events", after=0, limit=1000).json()
    prev, out = public.GENESIS, []
    for item in body["events"]:
        event = item["event"]
        created = item["created_at"].replace("Z", "+00:00")
        prev = public.public_hash(
            game_id=game_id,
            seq=item["seq"],
            type=event["type"],
            schema_version=event["v"],
            public_data=public.spectator_data("goodcritters", event),
            created_at=created,
            prev_public_hash=prev,
            seal=item["seal"],
        )
        assert item["public_hash"] == prev
        out.append(prev)
    assert body["public_head"] == {"seq": len(out), "hash": out[-1]}
    return out


def _running_feed_chain(spectator: Any, game_id: int) -> dict[str, Any]:
    """While the game runs the feed is redacted for the spectator: its bytes, hashed as they are, give the
    served head."""
    body = spectator.get(f"/api/v1/games/{game_id}/events", after=0, limit=1000).json()
    assert body["over"] is False
    prev = public.GENESIS
    for item in body["events"]:
        event = item["event"]
        assert item["hash"] is None  # the private chain is not served while the game runs
        prev = public.public_hash(
            game_id=game_id,
            seq=item["seq"],
            type=event["type"],
            schema_version=event["v"],
            public_data=event,
            created_at=item["created_at"].replace("Z", "+00:00"),
            prev_public_hash=prev,
            seal=item["seal"],
        )
        assert item["public_hash"] == prev
    head: dict[str, Any] = body["public_head"]
    assert head == {"seq": body["events"][-1]["seq"], "hash": prev}
    return head


def _play_with_a_change_of_mind(table: Table) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """Seat 1 first chooses vote_yes, then changes its mind; returns the seq of its first choice and the
    public heads a watcher saved just before and just after it."""
    gid = table.game_id
    state = table.state(0)
    before = state["public_head"]
    shares: list[list[int]] = [[] for _ in state["state"]["seats"]]
    boss = state["state"]["boss"]
    shares[boss] = [c["id"] for c in state["state"]["table"]]
    voter = 1 if boss != 1 else 2
    r = table.apis[boss].command(gid, "distribute-loot", {"shares": shares})
    assert r.status_code == 200
    before = r.json()["public_head"]  # the command response carries the head
    r = table.apis[voter].command(gid, "choose-action", {"action": "vote_yes"})
    assert r.status_code == 200
    after = r.json()["public_head"]
    assert after["seq"] == before["seq"] + 1
    assert table.state(voter)["public_head"] == after  # the state read too
    assert _running_feed_chain(make_api(), gid) == after  # a spectator recomputes it from what it saw
    assert table.apis[voter].command(gid, "choose-action", {"action": "vote_no"}).status_code == 200
    play_to_end(gid, {a.player.pk: a for a in table.apis})
    return after["seq"], before, after


def _forge(record: dict[str, Any], seq: int) -> dict[str, Any]:
    """Change the face-down choice at event ``seq`` to ``guard``, with its commitment, command and chains."""
    forged = copy.deepcopy(record)
    event = forged["events"][seq - 1]
    assert event["type"] == "ActionChosen"
    assert event["data"]["action"] == "vote_yes"
    salt = rng.salt(bytes.fromhex(forged["seed"]), f"salt/{event['data']['commit_no']}")
    event["data"]["action"] = "guard"
    event["data"]["commitment"] = rng.commitment(salt, {"action": "guard"})
    event["command"]["action"] = "guard"
    return rechain(forged)


def test_a_forged_vote_is_caught_by_any_checkpoint_saved_after_it(tmp_path: Path) -> None:
    table = start_table(4)
    gid = table.game_id
    spectator = make_api("watcher")
    seq, before, after = _play_with_a_change_of_mind(table)
    record = table.apis[0].get(f"/api/v1/games/{gid}/record").json()
    chain = _spectator_chain(spectator, gid)
    assert record["public_head_hash"] == chain[-1]
    assert [e["public_hash"] for e in record["events"]] == chain
    final: dict[str, Any] = {"seq": len(chain), "hash": chain[-1]}

    forged = _forge(record, seq)
    alone = verify_record(forged)
    assert alone.ok, alone.text()  # the hole: nothing inside the record contradicts the forgery
    later: dict[str, Any] = {"seq": seq + 3, "hash": chain[seq + 2]}
    for head in (after, final, later):
        verdict = verify_record(forged, checkpoints=[(head["seq"], head["hash"])])
        assert not verdict.ok
        assert verdict.error is not None
        assert (verdict.error.check, verdict.error.seq) == ("public", head["seq"])
    # a checkpoint saved before the vote cannot tell (the doc says so)
    assert verify_record(forged, checkpoints=[(before["seq"], before["hash"])]).ok
    # the true record matches every checkpoint
    assert verify_record(record, checkpoints=[(p["seq"], p["hash"]) for p in (before, after, final)]).ok

    # the server's signature: the forgery keeps the old signature, which no longer matches
    jwks = spectator.client.get("/.well-known/goodcritters-record-key")
    assert jwks.status_code == 200
    assert jwks["Content-Type"] == "application/json"
    keys = signature.public_keys_from(jwks.content.decode())
    assert verify_record(record, keys=keys).ok
    bad = verify_record(forged, keys=keys)
    assert bad.error is not None
    assert bad.error.check == "signature"

    # the command line: checkpoints and the key file
    path, key_file = tmp_path / "forged.json", tmp_path / "key.json"
    path.write_text(json.dumps(forged))
    key_file.write_text(jwks.content.decode())
    assert verify_main([str(path)]) == 0
    assert verify_main([str(path), "--checkpoint", f"{after['seq']}:{after['hash']}"]) == 1
    assert verify_main([str(path), "--key", str(key_file)]) == 1
    assert verify_main([str(path), "--checkpoint", "12:nothex"]) == 2

    # the endpoint checks checkpoints against the server's record
    url = f"/api/v1/games/{gid}/verify"
    ok = spectator.client.get(
        url,
        {"checkpoint": [f"{after['seq']}:{after['hash']}", f"{final['seq']}:{final['hash']}"]},
        headers={"Authorization": f"Bearer {spectator.token}"},
    )
    assert ok.status_code == 200
    assert ok.json()["ok"] is True
    assert ok.json()["checkpoints"] == 2
    wrong = spectator.get(url, checkpoint=f"{after['seq']}:{'0' * 64}").json()
    assert wrong["ok"] is False
    assert wrong["error"]["check"] == "public"
    assert_problem(spectator.get(url, checkpoint="seven"), 400, "invalid_checkpoint")
    assert_problem(spectator.get(url, checkpoint=f"0:{'0' * 64}"), 400, "invalid_checkpoint")


def test_a_record_with_a_wrong_signature_is_refused() -> None:
    table = start_table(4)
    play_to_end(table.game_id, {a.player.pk: a for a in table.apis})
    api = table.apis[0]
    record = api.get(f"/api/v1/games/{table.game_id}/record").json()
    keys = signature.public_keys_from(api.client.get("/.well-known/goodcritters-record-key").content.decode())
    assert verify_record(record, keys=keys).ok
    # any byte of the record changed (here a display name, which no hash covers)
    renamed = copy.deepcopy(record)
    renamed["seats"][0]["display_name"] = "Mallory"
    assert verify_record(renamed).ok
    assert verify_record(renamed, keys=keys).error.check == "signature"  # type: ignore[union-attr]
    # a signature made with another key
    other = Ed25519PrivateKey.generate()
    resigned = signature.sign(record, other)
    assert verify_record(resigned, keys=keys).error.check == "signature"  # type: ignore[union-attr]
    assert verify_record(resigned, keys=[other.public_key()]).ok
    # a flipped signature, and none
    flipped = copy.deepcopy(record)
    value = flipped["signature"]["value"]
    flipped["signature"]["value"] = ("0" if value[0] != "0" else "1") + value[1:]
    assert verify_record(flipped, keys=keys).error.check == "signature"  # type: ignore[union-attr]
    unsigned = {k: v for k, v in record.items() if k != "signature"}
    assert verify_record(unsigned, keys=keys).error.check == "signature"  # type: ignore[union-attr]


def test_the_key_is_derived_from_the_secret_key_unless_one_is_configured(settings: Any) -> None:
    api = make_api()
    served = api.client.get("/.well-known/goodcritters-record-key").json()
    derived = signature.derive_private_key(settings.SECRET_KEY).public_key()
    assert served == signature.jwks(derived)
    seed = hashlib.sha256(b"a configured key").hexdigest()
    settings.RECORD_SIGNING_KEY = seed
    served = api.client.get("/.well-known/goodcritters-record-key").json()
    assert served == signature.jwks(signature.private_key_from_hex(seed).public_key())
    assert served["keys"][0]["kid"] != signature.key_id(derived)
