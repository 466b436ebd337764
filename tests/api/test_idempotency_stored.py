"""Which answers an Idempotency-Key stores and replays (issue #28 item 17): the docs said a retry "returns
the first response", yet after a 412 the same key with the current ETag runs as a new command. The documented
rule, pinned here: stored is the command's outcome once it reached the rules (the 200, or the rule's refusal);
answers given before that (412 `precondition_failed`, 404, 403 `not_seated`, a bad body...) applied nothing
and are not stored."""

from __future__ import annotations

from games.models import Event
from tests.conftest import Table, assert_problem
from tests.spec_tools import Spec


def _messages(game_id: int) -> int:
    return Event.objects.filter(game_id=game_id, type="MessageSent").count()


def test_issue28_item17_after_a_412_the_same_key_with_the_current_etag_runs(table: Table) -> None:
    api, gid = table.apis[1], table.game_id
    stale = api.get(f"/api/v1/games/{gid}/state")["ETag"]
    assert table.apis[2].command(gid, "send-message", {"text": "moves the game on"}).status_code == 200
    current = api.get(f"/api/v1/games/{gid}/state")["ETag"]
    assert current != stale
    body = {"text": "hello"}
    before = _messages(gid)

    r = api.command(gid, "send-message", body, {"Idempotency-Key": "k-412", "If-Match": stale})
    assert_problem(r, 412, "precondition_failed")
    assert _messages(gid) == before  # nothing applied, nothing stored

    r = api.command(gid, "send-message", body, {"Idempotency-Key": "k-412", "If-Match": current})
    assert r.status_code == 200, r.content  # a new request: applied
    assert "Idempotent-Replayed" not in r
    assert _messages(gid) == before + 1

    again = api.command(gid, "send-message", body, {"Idempotency-Key": "k-412", "If-Match": stale})
    assert again.status_code == 200  # the stored outcome, whatever the If-Match now
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == r.json()
    assert _messages(gid) == before + 1


def test_issue28_item17_a_rules_refusal_is_stored_and_replayed(table: Table) -> None:
    """A rule error is the command's outcome: a retry with the same key gets it again, replayed."""
    api, gid = table.apis[1], table.game_id
    headers = {"Idempotency-Key": "k-rule"}
    first = api.command(gid, "choose-action", {"action": "rob"}, headers)  # not the step for it
    assert first.status_code in (403, 409, 422), first.content
    code = first.json()["code"]
    assert code not in ("validation_error", "precondition_failed", "not_seated")
    again = api.command(gid, "choose-action", {"action": "rob"}, headers)
    assert again.status_code == first.status_code
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["code"] == code


def test_issue28_item17_the_spec_says_which_answers_are_stored(spec: Spec) -> None:
    """The spec's Idempotency-Key description names what is stored and what is not (a 412 is not)."""
    described = {
        p["description"]
        for _path, _method, op in spec.operations()
        for p in op.get("parameters", [])
        if p.get("name") == "Idempotency-Key" and p.get("in") == "header"
    }
    assert len(described) == 1, described
    text = described.pop()
    assert "not stored" in text
    assert "412 `precondition_failed`" in text
    assert "current ETag" in text
