"""Auditing a game (docs/AUDIT.md): the public record of a finished game, its verification, the state at any
event number, and the replay page for people. Nothing of a running game leaks: the record, the verification
and the replay answer 409 ``game_not_over`` while it runs, and the state at an event is then only the caller's
own view (the ruleset's ``view_for``)."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from critters_api import throttling
from critters_api.celery import redis_health
from critters_api.problems import Problem, as_problem, problem_http_response
from games.audit import export, replay, signature
from games.audit.verify import CHECKPOINT_PATTERN, FORMAT, FORMAT_VERSION, parse_checkpoint, verify_record
from games.errors import Refused
from games.models import Game
from games.rules.registry import RULESETS
from players.models import Player

from . import examples
from .serializers import EventField, OptionsOutputField, QuerySerializer, RecordedCommandField, ViewField
from .views import ETAG, GAME_ID, GameView, may_know_of
from .views import _with_etag as with_etag

logger = logging.getLogger(__name__)

MAX_STATES = 100  # positions per page of `/states`
SEQ = OpenApiParameter(
    "seq", OpenApiTypes.INT, OpenApiParameter.PATH, description="An event number (1 to the game's version)."
)


# --------------------------------------------------------------------------------------------------
# serializers (documentation of the responses)
# --------------------------------------------------------------------------------------------------
class RecordGameOutput(serializers.Serializer):
    id = serializers.IntegerField(help_text="The game's id (part of every event's hash).")
    name = serializers.CharField(allow_blank=True)
    ruleset = serializers.CharField(
        help_text="The ruleset's slug (`goodcritters`, ...): the game the record is of."
    )
    ruleset_version = serializers.CharField(help_text="The rules' version the game was played under.")
    options = OptionsOutputField(help_text="Every option, in full JSON form.")
    fair = serializers.BooleanField(help_text="False when an operator fixed the seed, deck or seats.")
    status = serializers.CharField(help_text="Always `over` in a record.")
    created_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)


class RecordHolderOutput(serializers.Serializer):
    from_seq = serializers.IntegerField(
        help_text="The event from which on this holder has the seat: 1 (`GameStarted`), or the seq of the "
        "`SeatHandedOver` event that gave it to them."
    )
    uid = serializers.CharField(
        help_text="The opaque player id the rules know (`p{player id}`, `bot{index}`)."
    )
    player_id = serializers.IntegerField(
        allow_null=True, help_text="The account's id (as `actor`); null: a bot."
    )
    player = serializers.CharField(allow_null=True, help_text="The username; null for a bot.")
    display_name = serializers.CharField()
    bot = serializers.CharField(allow_null=True, help_text="The bot's strategy; null for a person.")


class RecordSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField(help_text="The seat number (0 to n-1, clockwise).")
    uid = serializers.CharField(help_text="The last holder's opaque player id.")
    player_id = serializers.IntegerField(
        allow_null=True, help_text="The last holder's account id; null: a bot."
    )
    player = serializers.CharField(allow_null=True, help_text="The last holder's username; null for a bot.")
    display_name = serializers.CharField()
    bot = serializers.CharField(
        allow_null=True, help_text="The last holder's bot strategy; null for a person."
    )
    holders = RecordHolderOutput(
        many=True, help_text="Who held the seat, in order, each from an event on (docs/AUDIT.md)."
    )


class RecordSignatureOutput(serializers.Serializer):
    alg = serializers.ChoiceField(choices=["Ed25519"])
    key_id = serializers.CharField(help_text="The first 16 hex digits of SHA-256 of the raw public key.")
    value = serializers.CharField(
        help_text="The hex Ed25519 signature of the canonical JSON of the record without `signature`."
    )


class RecordEventOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="1, 2, 3, ... without gaps.")
    type = serializers.CharField()
    schema_version = serializers.IntegerField()
    data = EventField(  # type: ignore[assignment]  # a record field, not Serializer.data
        help_text="The event, unredacted (`{type, v, ...fields}`: the record's game's `{Name}Event`)."
    )
    created_at = serializers.CharField(help_text="ISO-8601 UTC: the time the command was decided at.")
    command_id = serializers.CharField()
    actor = serializers.IntegerField(
        allow_null=True, help_text="The acting player's id; null: system or bot."
    )
    command = RecordedCommandField(
        allow_null=True,
        help_text="On the first event of a command's batch: the command (`type`, fields, `seat`); else null.",
    )
    prev_hash = serializers.CharField(help_text="The previous event's hash (64 zeros for the first).")
    hash = serializers.CharField(
        help_text="SHA-256 of the canonical JSON of the stored fields (docs/AUDIT.md)."
    )
    public_hash = serializers.CharField(
        help_text="The public chain's hash: over the event as a spectator saw it, chained (docs/AUDIT.md)."
    )
    salt = serializers.CharField(
        required=False,
        help_text="Format version 3 (public chain 2): the 16 random bytes (hex) the event's seal was salted "
        "with, revealed now the game is over; absent in format version 2.",
    )


class RecordOutput(serializers.Serializer):
    ruleset = serializers.ChoiceField(
        choices=sorted(RULESETS),
        help_text="A copy of `game.ruleset`: the discriminator a typed client narrows the record's events "
        "and commands by (docs/AUDIT.md; absent from records made before it was added).",
    )
    format = serializers.ChoiceField(choices=[FORMAT])
    format_version = serializers.IntegerField(
        help_text=f"{FORMAT_VERSION} (this format; 2 for a game created before public chain 2)."
    )
    game = RecordGameOutput()
    seats = RecordSeatOutput(many=True)
    seed = serializers.CharField(help_text="The game's 32-byte seed (hex), revealed now the game is over.")
    seed_commitment = serializers.CharField(help_text="SHA-256(seed) (hex), published at the start (R8.2).")
    head_hash = serializers.CharField(help_text="The last event's hash.")
    public_head_hash = serializers.CharField(help_text="The last event's public hash.")
    events = RecordEventOutput(many=True)
    signature = RecordSignatureOutput(
        help_text="The server's Ed25519 signature (key: `/.well-known/goodcritters-record-key`)."
    )


class FindingOutput(serializers.Serializer):
    seq = serializers.IntegerField(allow_null=True, help_text="The first bad event; null: the record itself.")
    type = serializers.CharField(allow_null=True)
    check = serializers.ChoiceField(
        choices=["format", "signature", "chain", "public", "seed", "seats", "commitment", "random", "rules"]
    )
    message = serializers.CharField()


class VerdictOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    format = serializers.CharField()
    format_version = serializers.IntegerField(allow_null=True, help_text="The record's format version.")
    game = serializers.IntegerField(allow_null=True)
    events = serializers.IntegerField()
    commands = serializers.IntegerField(help_text="Commands re-decided by the rules.")
    commitments_opened = serializers.IntegerField()
    random_picks = serializers.IntegerField(
        help_text="Random outcomes re-derived from the seed by the ruleset's own check (GoodCritters: robbed "
        "or guarded cards); 0 for a ruleset whose randomness only the rules' re-decision checks."
    )
    head_hash = serializers.CharField(allow_null=True)
    public_head_hash = serializers.CharField(allow_null=True, help_text="The public chain's head.")
    fair = serializers.BooleanField(
        allow_null=True,
        help_text="False: an operator fixed the seed, deck, seats or first Boss; the setup is then theirs, "
        "not chance's (docs/AUDIT.md, check 5).",
    )
    checkpoints = serializers.IntegerField(help_text="Watchers' checkpoints checked (`?checkpoint=`).")
    signed_by = serializers.CharField(allow_null=True, help_text="The key id whose signature was checked.")
    checks = serializers.ListField(child=serializers.CharField(), help_text="The checks that passed.")
    error = FindingOutput(allow_null=True)


class StateAtOutput(serializers.Serializer):
    ruleset = serializers.ChoiceField(
        choices=sorted(RULESETS),
        help_text="The game's ruleset: the discriminator a typed client narrows `event` and `state` by.",
    )
    game = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="The state is the one just after this event.")
    version = serializers.IntegerField(help_text="The game's current version (last seq).")
    game_over = serializers.BooleanField()
    full = serializers.BooleanField(help_text="True once the game is over: nothing is hidden.")
    viewer = serializers.IntegerField(
        allow_null=True, help_text="Whose view this is (null: full or spectator)."
    )
    event = EventField(help_text="Event `seq` as the viewer may see it.")
    state = ViewField(help_text="The ruleset's view at that point.")


class StatesQuery(QuerySerializer):
    after = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=MAX_STATES)


class StateItemOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The state is the one just after this event.")
    event = EventField(help_text="Event `seq` as the viewer may see it.")
    state = ViewField(help_text="The ruleset's view at that point.")


class StatesOutput(serializers.Serializer):
    ruleset = serializers.ChoiceField(
        choices=sorted(RULESETS),
        help_text="The game's ruleset: the discriminator a typed client narrows each `event` and `state` by.",
    )
    game = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The game's current version (last seq).")
    game_over = serializers.BooleanField()
    full = serializers.BooleanField(help_text="True once the game is over: nothing is hidden.")
    viewer = serializers.IntegerField(
        allow_null=True, help_text="Whose view these are (null: full or spectator)."
    )
    states = StateItemOutput(
        many=True, help_text="The positions after events `after + 1` to `after + limit`, in order, no gaps."
    )
    next_after = serializers.IntegerField(
        allow_null=True, help_text="The `after` of the next page; null: this page reaches the last event."
    )


class ChartOutput(serializers.Serializer):
    label = serializers.CharField(  # type: ignore[assignment]  # the chart's label, not Field.label
        allow_null=True,
        help_text="What is plotted: `Stash value` (GoodCritters), `Loot value` (Loose Triggers), "
        "`Points` (Were-cats).",
    )
    names = serializers.ListField(child=serializers.CharField(), help_text="Each seat's name, by seat.")
    seqs = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The event numbers sampled: after a command's batch where a value changed, and the last.",
    )
    series = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="One row per sampled event (same order as `seqs`): each seat's value then, by seat.",
    )


_HASH = "4f1c2a0d5e1b9c8a7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"
_PUBLIC = "7a1c0e5d9b3f2a8c6d4e1f0b9a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c"
RECORD_EXAMPLE = OpenApiExample(
    "a record (one event shown)",
    response_only=True,
    value={
        "ruleset": "goodcritters",
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {
            "id": 12,
            "name": "Friday game",
            "ruleset": "goodcritters",
            "ruleset_version": "1",
            "options": examples.recorded_start_command()["options"],
            "fair": True,
            "status": "over",
            "created_at": "2026-11-20T18:00:00+00:00",
            "started_at": "2026-11-20T18:02:00+00:00",
            "ended_at": "2026-11-20T19:10:00+00:00",
        },
        "seats": [
            {
                "seat": 0,
                "uid": "p3",
                "player_id": 3,
                "player": "alice",
                "display_name": "Alice",
                "bot": None,
                "holders": [
                    {
                        "from_seq": 1,
                        "uid": "p3",
                        "player_id": 3,
                        "player": "alice",
                        "display_name": "Alice",
                        "bot": None,
                    }
                ],
            }
        ],
        "seed": "00" * 32,
        "seed_commitment": "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
        "head_hash": _HASH,
        "public_head_hash": _PUBLIC,
        "events": [
            {**examples.record_event(1), "command": examples.recorded_start_command(), "public_hash": _PUBLIC}
        ],
        "signature": {"alg": "Ed25519", "key_id": "3f9a0c51d2e4b786", "value": "9b2f" + "0" * 124},
    },
)
VERDICT_OK = OpenApiExample(
    "the record holds",
    response_only=True,
    value={
        "ok": True,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": 12,
        "events": 283,
        "commands": 129,
        "commitments_opened": 44,
        "random_picks": 3,
        "head_hash": _HASH,
        "public_head_hash": _PUBLIC,
        "fair": True,
        "checkpoints": 1,
        "signed_by": "3f9a0c51d2e4b786",
        "checks": ["signature", "chain", "public", "seed", "seats", "commitment", "random", "rules"],
        "error": None,
    },
)
VERDICT_BAD = OpenApiExample(
    "tampered",
    response_only=True,
    value={
        "ok": False,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": 12,
        "events": 283,
        "commands": 0,
        "commitments_opened": 0,
        "random_picks": 0,
        "head_hash": None,
        "public_head_hash": None,
        "fair": None,
        "checkpoints": 0,
        "signed_by": None,
        "checks": [],
        "error": {
            "seq": 57,
            "type": "RobSucceeded",
            "check": "chain",
            "message": "the hash of the stored fields is 9e1..., the record says 4f1...",
        },
    },
)
STATE_AT_EXAMPLE = OpenApiExample(
    "a seat's own view during the game",
    response_only=True,
    value={
        "ruleset": "goodcritters",
        "game": 12,
        "seq": 40,
        "version": 118,
        "game_over": False,
        "full": False,
        "viewer": 2,
        "event": examples.feed_items(viewer=2, last=1)[0]["event"],
        "state": examples.viewer_state_value(viewer=2)["state"],
    },
)
STATES_EXAMPLE = OpenApiExample(
    "a page of positions of a seat's own view during the game",
    response_only=True,
    value={
        "ruleset": "goodcritters",
        "game": 12,
        "version": 118,
        "game_over": False,
        "full": False,
        "viewer": 2,
        "states": [
            {
                "seq": 40,
                "event": examples.feed_items(viewer=2, last=1)[0]["event"],
                "state": examples.viewer_state_value(viewer=2)["state"],
            }
        ],
        "next_after": 40,
    },
)
CHART_EXAMPLE = OpenApiExample(
    "a GoodCritters chart",
    response_only=True,
    value={
        "label": "Stash value",
        "names": ["Alice", "Bob", "Bot 2 (sensible)", "Bot 3 (random)"],
        "seqs": [1, 9, 40, 118],
        "series": [
            [14000, 14000, 14000, 14000],
            [21000, 14000, 17000, 14000],
            [21000, 16000, 17000, 12000],
            [30000, 16000, 25000, 12000],
        ],
    },
)


# --------------------------------------------------------------------------------------------------
# API
# --------------------------------------------------------------------------------------------------
class RecordView(GameView):
    problem_statuses = {"GET": (409,)}
    problem_examples = {409: ("game_not_over", "The game is running: its record is public once it is over.")}

    @extend_schema(
        operation_id="games_record_retrieve",
        summary="The record of a finished game",
        description="The whole log of a finished game, unredacted, with its seed, options, seats and "
        "every event's hash (format `goodcritters.record` version 2, for every ruleset, specified in "
        "docs/AUDIT.md): "
        "everything needed to check the game offline, e.g. with `python -m games.audit.verify RECORD.json`. "
        "409 `game_not_over` while the game runs (nothing of it is public before its end).",
        parameters=[GAME_ID],
        responses={
            200: OpenApiResponse(RecordOutput, description="The record."),
        },
        examples=[RECORD_EXAMPLE],
        tags=["audit"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, _viewer = self.game_and_viewer(request, game_id)
        return Response(export.game_record(game))


MAX_CHECKPOINTS = 16  # up to ~100 characters each in the query string: 100 overflowed the 4 KiB request line
CHECKPOINT = OpenApiParameter(
    "checkpoint",
    {
        "type": "array",
        "items": {"type": "string", "pattern": f"^{CHECKPOINT_PATTERN.pattern}$"},
        "maxItems": MAX_CHECKPOINTS,
    },
    OpenApiParameter.QUERY,
    explode=True,
    description="A public chain head you saved while the game ran, as `SEQ:HASH` (the `public_head` of any "
    "state response): the record must have that public hash at event SEQ. Repeatable (at most 16, so that "
    "the URL stays within what servers and proxies accept).",
)


def _checkpoints(request: Request) -> list[tuple[int, str]]:
    raw = request.query_params.getlist("checkpoint")
    if len(raw) > MAX_CHECKPOINTS:
        raise Problem(400, "invalid_checkpoint", f"At most {MAX_CHECKPOINTS} checkpoints.")
    try:
        return [parse_checkpoint(text) for text in raw]
    except ValueError as exc:
        raise Problem(400, "invalid_checkpoint", str(exc)) from None


class VerifyView(GameView):
    problem_statuses = {"GET": (400, 409)}
    problem_examples = {
        409: ("game_not_over", "The game is running: its record is public once it is over."),
        400: ("invalid_checkpoint", "a checkpoint is SEQ:HEAD (an event number and 64 lowercase hex digits)"),
    }

    @extend_schema(
        operation_id="games_verify_retrieve",
        summary="Verify a finished game",
        description="Runs the independent verifier (the same as `python manage.py verify_game`) on the "
        "game's record: the server's signature, the hash chain, the public chain (and your `checkpoint`s), "
        "the seed against its commitment, who held each seat, every commitment against its opening, every "
        "random pick against the seed, and every batch of events against what the rules decide for its "
        "command. `ok` false names the first bad event. 409 `game_not_over` while the game runs; 400 "
        "`invalid_checkpoint` for a checkpoint that is not `SEQ:HASH`.",
        parameters=[GAME_ID, CHECKPOINT],
        responses={
            200: OpenApiResponse(VerdictOutput, description="The verdict."),
        },
        examples=[VERDICT_OK, VERDICT_BAD],
        tags=["audit"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, _viewer = self.game_and_viewer(request, game_id)
        checkpoints = _checkpoints(request)
        record = export.game_record(game)
        keys = [export.signing_key().public_key()]
        return Response(verify_record(record, checkpoints=checkpoints, keys=keys).to_json())


class StateAtView(GameView):
    problem_examples = {404: ("no_such_event", "The game has no event 900 (its events are 1 to 212).")}

    @extend_schema(
        operation_id="games_states_retrieve",
        summary="The game as it was after an event",
        description="The state just after event `seq` and that event. While the game runs: only as you may "
        "see it (your seat's view; a spectator's if you have no seat), exactly as the state read showed it "
        "then. Once the game is over: everything (`full`: true), for anyone who may see the game. 404 "
        "`no_such_event` when `seq` is not between 1 and the game's version.",
        parameters=[GAME_ID, SEQ],
        responses={200: OpenApiResponse(StateAtOutput, description="The state after event `seq`.")},
        examples=[STATE_AT_EXAMPLE],
        tags=["audit"],
    )
    def get(self, request: Request, game_id: int, seq: int) -> Response:
        game, viewer = self.game_and_viewer(request, game_id)
        return Response(export.state_at(game, seq, viewer))


class StatesView(GameView):
    access_checked_by_handler = True  # game_and_viewer
    query_params_documented = True

    @extend_schema(
        operation_id="games_states_list",
        summary="The game as it was after each of a run of events",
        description="A page of positions for stepping through a game (the replay page's step-through): the "
        "state just after each event from `after + 1` to `after + limit` (at most 100), with that event, "
        "exactly as `GET /games/{id}/states/{seq}` gives each one: while the game runs only as you may see "
        "it (your seat's view; a spectator's if you have no seat), everything once it is over (`full`). "
        "Continue with `after=next_after` (null: the last event is in this page). A game not started has "
        "no positions (an empty page).",
        parameters=[GAME_ID, StatesQuery, ETAG],
        responses={200: OpenApiResponse(StatesOutput, description="A page of positions.")},
        examples=[STATES_EXAMPLE],
        tags=["audit"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = StatesQuery(data=request.query_params)
        if not query.is_valid():
            raise Problem(400, "invalid_query", "Invalid query parameters.", errors=query.errors)
        game, viewer = self.game_and_viewer(request, game_id)
        q = query.validated_data
        return with_etag(Response(export.states_after(game, q["after"], q["limit"], viewer)), game)


class ChartView(GameView):
    problem_statuses = {"GET": (409,)}
    problem_examples = {409: ("game_not_over", "The game is running: its record is public once it is over.")}

    @extend_schema(
        operation_id="games_chart_retrieve",
        summary="The chart of a finished game",
        description="What the game's replay plots per seat over the game (GoodCritters: each Stash's value; "
        "Loose Triggers: each Loot stack's value, cash plus relic sets; Were-cats: each seat's points), "
        "computed from the record: one row of values per sampled event. 409 `game_not_over` while the game "
        "runs (the values are secrets until the end). A ruleset that plots nothing has a null `label`.",
        parameters=[GAME_ID],
        responses={200: OpenApiResponse(ChartOutput, description="The chart's data.")},
        examples=[CHART_EXAMPLE],
        tags=["audit"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, _viewer = self.game_and_viewer(request, game_id)
        record = export.game_record(game)
        built = replay.chart_points(record) or {"label": None, "seqs": [], "series": []}
        return Response({"names": replay.seat_names(record), **built})


# --------------------------------------------------------------------------------------------------
# the replay page (HTML, public once the game is over)
# --------------------------------------------------------------------------------------------------
def replay_verdict(game_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """The verifier's verdict on a finished game's record, as the replay page shows it (``ok``, ``text``).
    A finished record never changes, so it is verified once and its verdict kept in the shared cache for
    ``REPLAY_VERDICT_CACHE_SECONDS``, keyed by the game and a digest of the whole record (a record that
    differed in anything would be verified afresh). Without the cache (Redis down), verified each time."""
    digest = hashlib.sha256(
        json.dumps(record, sort_keys=True, separators=(",", ":"), default=str).encode()
    ).hexdigest()
    key = f"replay-verdict:{FORMAT_VERSION}:{game_id}:{digest}"
    cached: dict[str, Any] | None = None
    if not redis_health.down():
        try:
            cached = cache.get(key)
        except Exception:  # the cache is an optimisation: its failure costs a verification
            logger.warning("replay verdict cache unavailable")
    if isinstance(cached, dict):
        return cached
    verdict = verify_record(record)
    found = {"ok": verdict.ok, "text": verdict.text()}
    if not redis_health.down():
        try:
            cache.set(key, found, timeout=settings.REPLAY_VERDICT_CACHE_SECONDS)
        except Exception:
            logger.warning("replay verdict cache unavailable")
    return found


def replay_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game step by step (the ruleset's sections), with the chart its ruleset plots (no script or
    style from elsewhere: everything is in the page)."""
    if request.method not in ("GET", "HEAD"):
        return problem_http_response(405, "method_not_allowed", "Only GET is allowed here.", request)
    throttled = throttling.throttle_page(request)  # the API's limits: anyone may ask, nobody without end
    if throttled is not None:
        return throttled
    game = Game.objects.filter(pk=game_id).first()
    user = request.user if isinstance(request.user, Player) else None
    if game is None or not may_know_of(game, user):  # a hidden game answers as a missing one (R8.3)
        return problem_http_response(404, "game_not_found", "No such game.", request)
    try:
        record = export.game_record(game)
    except Refused as refused:
        problem = as_problem(refused)
        return problem_http_response(problem.status_code, problem.code, str(problem.detail), request)
    steps = replay.build(record)
    verdict = replay_verdict(game.pk, record)
    plot = steps["chart"]
    context: dict[str, Any] = {
        "game": record["game"],
        "seats": record["seats"],
        "seed": record["seed"],
        "seed_commitment": record["seed_commitment"],
        "head_hash": record["head_hash"],
        "events": len(record["events"]),
        "sections": steps["sections"],
        "chart": replay.chart(plot["label"], plot["seqs"], plot["series"], steps["names"]) if plot else None,
        "verdict": verdict,
        "record_url": f"/api/v1/games/{game.pk}/record",
    }
    response = render(request, "games/replay.html", context)
    response["Content-Security-Policy"] = (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return response


# --------------------------------------------------------------------------------------------------
# the server's record-signing key (public), at a well-known URL
# --------------------------------------------------------------------------------------------------
def record_key(request: HttpRequest) -> HttpResponse:
    """``/.well-known/goodcritters-record-key``: the Ed25519 public key that signs finished games' records,
    as a JWK set (RFC 7517, RFC 8037). No login: a key to check signatures with is public."""
    if request.method not in ("GET", "HEAD"):
        return problem_http_response(405, "method_not_allowed", "Only GET is allowed here.", request)
    response = JsonResponse(signature.jwks(export.signing_key().public_key()))
    response["Cache-Control"] = "public, max-age=3600"
    response["Access-Control-Allow-Origin"] = "*"
    return response


__all__ = ["ChartView", "RecordView", "StateAtView", "StatesView", "VerifyView", "record_key", "replay_page"]
