"""docs/AUDIT.md's test vectors are what the code computes (so the page a verifier in another language is
written from cannot drift): canonical JSON, the public chain's redaction and hash, the signature and the
default key's derivation. Also: the swaps ``commit_no`` catches."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from games.audit import public, signature
from games.audit.record import simulated_record
from games.audit.verify import verify_record
from games.rules import rng
from games.rules.registry import get_ruleset
from games.rules.simulate import game_seed
from tests.audit.helpers import rechain, sim_record, tampered

DOC = Path(__file__).resolve().parents[2] / "docs" / "AUDIT.md"


def _vectors(name: str) -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- vector: {name} -->\n```text\n(.*?)\n```", text, re.S)
    assert match, f"docs/AUDIT.md lost its {name!r} test vector"
    lines = []
    for line in match.group(1).splitlines():
        key, _sep, value = line.partition(":")
        lines.append((key.strip(), value.strip()))
    return lines


def _one(name: str) -> dict[str, str]:
    return dict(_vectors(name))


def test_the_canonical_json_vectors() -> None:
    pairs = _vectors("canonical")
    assert [k for k, _v in pairs] == ["input", "output"] * (len(pairs) // 2)
    assert len(pairs) >= 4
    for (_i, given), (_o, written) in zip(pairs[::2], pairs[1::2], strict=True):
        expected = written.replace("\\u2028", "\u2028").encode("utf-8")  # the doc shows U+2028 escaped
        assert public.canonical_json(json.loads(given)) == expected


def test_the_public_chain_vector() -> None:
    v = _one("public")
    event: dict[str, Any] = json.loads(v["event"])
    assert public.spectator_data("goodcritters", event["data"]) == json.loads(v["spectator"])
    assert public.chain_hash("goodcritters", int(v["game"]), event, v["prev"]) == v["public_hash"]


def test_the_signature_vector() -> None:
    v = _one("signature")
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private key seed"]))
    assert signature.raw_public(key.public_key()).hex() == v["public key"]
    raw = base64.urlsafe_b64decode(v["x"] + "=" * (-len(v["x"]) % 4))
    assert raw.hex() == v["public key"]
    assert signature.key_id(key.public_key()) == v["key_id"]
    signed = signature.sign(json.loads(v["record"]), key)
    assert signed["signature"] == {"alg": "Ed25519", "key_id": v["key_id"], "value": v["value"]}
    assert signature.check(signed, [key.public_key()]) is None
    derived = signature.derive_private_key(v["SECRET_KEY"]).public_key()
    assert signature.raw_public(derived).hex() == v["derived public key"]


def test_every_check_the_doc_lists_is_the_verifiers() -> None:
    text = DOC.read_text(encoding="utf-8")
    verdict = verify_record(sim_record(4, {"payoffs": True}))
    assert verdict.ok
    for number, check in enumerate(
        ["Format", "Signature", "Chain", "Public chain and checkpoints", "Seed", "Seats", "Commitments"],
        start=1,
    ):
        assert f"{number}. **{check}" in text
    assert verdict.checks == ["chain", "public", "seed", "seats", "commitment", "random", "rules"]


def test_swapped_commitment_numbers_are_caught() -> None:
    """Two face-down choices with their commit_no swapped (commitments recomputed, chains recomputed): each
    commitment opens, but commit_no no longer runs 0, 1, 2, ..."""
    record = sim_record(4, {"payoffs": True})
    bad = tampered(record)
    chosen = [e for e in bad["events"] if e["type"] == "ActionChosen"][:2]
    seed = bytes.fromhex(bad["seed"])
    a, b = chosen[0]["data"], chosen[1]["data"]
    a["commit_no"], b["commit_no"] = b["commit_no"], a["commit_no"]
    for data in (a, b):
        data["commitment"] = rng.commitment(
            rng.salt(seed, f"salt/{data['commit_no']}"), {"action": data["action"]}
        )
    verdict = verify_record(rechain(bad))
    assert verdict.error is not None
    assert (verdict.error.check, verdict.error.seq) == ("commitment", min(chosen[0]["seq"], chosen[1]["seq"]))


def test_the_public_chain_2_vector() -> None:
    """Issue 28 item 15: the seal and the public hash of public chain 2, as docs/AUDIT.md writes them."""
    v = _one("public2")
    event: dict[str, Any] = json.loads(v["event"])
    data = event["data"]
    assert public.spectator_data(v["ruleset"], data) == json.loads(v["spectator"])
    assert public.event_seal(event) == v["seal"]
    facts = {k: event[k] for k in ("data", "command", "command_id", "actor")}
    assert (
        hashlib.sha256(bytes.fromhex(event["salt"]) + public.canonical_json(facts)).hexdigest() == v["seal"]
    )
    assert public.chain_hash(v["ruleset"], int(v["game"]), event, v["prev"]) == v["public_hash"]
    without = {k: val for k, val in event.items() if k != "salt"}  # public chain 1: no seal
    assert public.chain_hash(v["ruleset"], int(v["game"]), without, v["prev"]) != v["public_hash"]


def test_the_canonical_ascii_vector() -> None:
    """Issue 28 item 16: commitments' canonical JSON escapes every character outside U+0020..U+007E, U+007F
    included; the hashes' canonical JSON does not."""
    (_i, given), (_o, written) = _vectors("canonical_ascii")
    value = json.loads(given)
    assert rng.canonical_ascii_json(value) == written.encode("ascii")
    assert "\\u007f" in written
    assert b"\x7f" in public.canonical_json(value)


def test_the_loose_triggers_counters_are_numbered_as_the_doc_says() -> None:
    """Issue 28 item 20: docs/AUDIT.md numbers ``random/{k}`` by the game's earlier ``LootTaken`` events with
    ``chosen: false`` and ``remake/{k}`` by its earlier ``ActionDeckRemade`` events, from 0; recomputed here
    from the state folded just before each such event of simulated Loose Triggers games (LT4.1, LT4.6)."""
    text = DOC.read_text(encoding="utf-8")
    assert "`k` counts the game's earlier `LootTaken` events with `chosen: false`: `0` for the first" in text
    assert "`k` counts the game's earlier `ActionDeckRemade` events: `0` for the first remake" in text
    rs = get_ruleset("loose_triggers")
    seen = {"random": 0, "remake": 0}
    for game_no in range(12):
        record = simulated_record(
            players=4 + game_no % 3, seed=game_seed("doc-counters", game_no), salt=game_no, ruleset=rs.slug
        )
        seed = bytes.fromhex(record["seed"])
        state = rs.initial_state()
        taken = remade = 0
        for event in record["events"]:
            data = event["data"]
            inner = getattr(state, "game", state)
            if data["type"] == "LootTaken" and not data["chosen"]:
                stack = sorted(inner.stacks[data["victim"]])
                assert list(inner.stacks[data["victim"]]) == stack
                assert data["card"] == stack[rng.Stream(seed, f"random/{taken}").below(len(stack))]
                taken += 1
            if data["type"] == "ActionDeckRemade":
                shuffled = rng.Stream(seed, f"remake/{remade}").shuffle(list(inner.action_discard))
                assert data["deck"] == shuffled
                remade += 1
            state = rs.fold([rs.event_from_json(data)], state)
        seen["random"] += taken
        seen["remake"] += remade
    assert seen["random"] >= 2
    assert seen["remake"] >= 2


def test_the_loose_triggers_commitment_vector() -> None:
    """Issue 28 item 16 (LT3.3): a Loose Triggers commitment hashes the bare card number after its salt."""
    v = _one("lt_commitment")
    seed = bytes.fromhex(v["seed"])
    salt = rng.salt(seed, "salt/0")
    assert salt.hex() == v["salt/0"]
    for card in (12, -1):
        expected = hashlib.sha256(salt + str(card).encode("ascii")).hexdigest()
        assert rng.commitment(salt, card) == expected == v[f"card {card}"]
