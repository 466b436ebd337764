"""A third party's view: generate a Python client from the SERVED OpenAPI schema with openapi-python-client
(warnings or errors fail the test), import it, and play complete games for 4 to 8 seats through that client
alone. Every seat is a player who signed up and logged in through the client, with its own token; what it
sends is chosen only from its own served state and the ``legal_commands`` the API lists (no server
internals), like an outside bot would."""

from __future__ import annotations

import hashlib
import importlib
import random
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from games.rules.core import Sample
from games.rules.registry import get_ruleset

from .conftest import PASSWORD
from .driver import next_command
from .live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
RULESET = get_ruleset("goodcritters")
OPTIONS: dict[int, dict[str, Any]] = {
    4: {"payoffs": True},
    5: {"fuzz_depth": "short"},
    6: {"no_vote_rule": "russian", "boss_term_limit": 3, "fuzz_depth": "short"},
    7: {"fuzz_depth": "short", "shuffle_seats": True},
    8: {"payoffs": True, "fuzz_depth": "short"},
}


def generate_client(base_url: str, workdir: Path) -> ModuleType:
    """Fetch the served schema, generate a client package from it, import it (fails on any warning)."""
    schema = httpx.get(f"{base_url}/api/schema/", timeout=30)
    assert schema.status_code == 200, schema.text[:500]
    spec = workdir / "openapi.yaml"
    spec.write_bytes(schema.content)
    config = workdir / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter needed (and none may be on PATH)
    package = f"critters_client_{uuid.uuid4().hex[:8]}"
    out = workdir / package
    proc = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(spec),
            "--output-path",
            str(out),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "warning" not in output.lower(), output
    assert "error" not in output.lower(), output
    sys.path.insert(0, str(workdir))
    try:
        return importlib.import_module(package)
    finally:
        sys.path.remove(str(workdir))


@pytest.fixture(scope="module")
def client_package(service: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return generate_client(service.url, tmp_path_factory.mktemp("generated"))


def sub(pkg: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{pkg.__name__}.{name}")


class Seat:
    """One player, driven through the generated client only."""

    def __init__(self, pkg: ModuleType, base_url: str, rnd: random.Random) -> None:
        self.pkg = pkg
        self.rnd = rnd
        models = sub(pkg, "models")
        anon = pkg.Client(base_url=base_url, raise_on_unexpected_status=True)
        self.username = f"gen{uuid.uuid4().hex[:10]}"
        signed = sub(pkg, "api.players.players_sign_up").sync_detailed(
            client=anon,
            body=models.SignUpInputRequest(username=self.username, password=PASSWORD),
        )
        assert signed.status_code == 201, signed.content
        login = sub(pkg, "api.players.auth_tokens_create").sync_detailed(
            client=anon,
            body=models.LoginTokenInputRequest(username=self.username, password=PASSWORD, name="generated"),
        )
        assert login.status_code == 201, login.content
        assert isinstance(login.parsed, models.TokenCreatedOutput)
        self.client = pkg.AuthenticatedClient(
            base_url=base_url, token=login.parsed.token, raise_on_unexpected_status=True
        )
        me = sub(pkg, "api.players.me_retrieve").sync(client=self.client)
        assert me is not None
        assert me.username == self.username

    def state(self, game_id: int) -> tuple[dict[str, Any], str]:
        r = sub(self.pkg, "api.play.games_state_retrieve").sync_detailed(game_id, client=self.client)
        assert r.status_code == 200, r.content
        models = sub(self.pkg, "models")
        assert isinstance(r.parsed, models.ViewerStateOutput)
        return r.parsed.to_dict(), r.headers["ETag"]

    def send(self, game_id: int, type_name: str, body: dict[str, Any], **headers: str) -> Any:
        snake = RULESET_SNAKE[type_name]
        module = sub(self.pkg, f"api.commands.games_commands_{snake}")
        models = sub(self.pkg, "models")
        # a command name with a shape per ruleset (ChooseAction) is a union: GoodCritters' model is named so
        request_model = getattr(models, f"GoodCritters{type_name}CommandRequest", None) or getattr(
            models, f"{type_name}CommandRequest"
        )
        return module.sync_detailed(
            game_id, client=self.client, body=request_model.from_dict(body), **headers
        )

    def send_typed(self, game_id: int, type_name: str, body: Any) -> Any:
        module = sub(self.pkg, f"api.commands.games_commands_{snake_case(type_name)}")
        return module.sync_detailed(game_id, client=self.client, body=body, idempotency_key=uuid.uuid4().hex)


def snake_case(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


RULESET_SNAKE = {
    "DistributeLoot": "distribute_loot",
    "ChooseAction": "choose_action",
    "PlaceThreat": "place_threat",
    "SetReady": "set_ready",
    "SendMessage": "send_message",
}


def play(seats: list[Seat], game_id: int, *, max_commands: int = 3000) -> int:
    sent = 0
    stale_checked = False
    while sent < max_commands:
        progressed = False
        for seat in seats:
            view, etag = seat.state(game_id)
            if view["over"]:
                return sent
            step = next_command(view, seat.rnd)
            if step is None:
                continue
            type_name, body = step
            if not stale_checked and type_name == "ChooseAction":
                # an outdated ETag in If-Match is refused with a typed 412 problem, nothing applied
                r = seat.send(game_id, type_name, body, if_match='"0.0"')
                assert r.status_code == 412, r.content
                assert r.parsed.code == "precondition_failed"
                stale_checked = True
            r = seat.send(game_id, type_name, body, if_match=etag, idempotency_key=uuid.uuid4().hex)
            assert r.status_code == 200, (type_name, body, r.content[:500])
            assert r.parsed.viewer == view["viewer"]
            assert r.headers["ETag"] != etag
            sent += 1
            progressed = True
        assert progressed, "the game is not over but no seat has anything to do"
    raise AssertionError("the game did not end")


def feed_all(seat: Seat, game_id: int) -> list[dict[str, Any]]:
    events_list = sub(seat.pkg, "api.play.games_events_list")
    items: list[dict[str, Any]] = []
    after = 0
    while True:
        r = events_list.sync_detailed(game_id, client=seat.client, after=after, limit=500)
        assert r.status_code == 200, r.content
        page = r.parsed.to_dict()
        items += page["events"]
        after = page["next_after"]
        if not page["more"]:
            return items


@pytest.mark.parametrize(
    "players",
    [
        4,
        pytest.param(5, marks=pytest.mark.slow),
        pytest.param(6, marks=pytest.mark.slow),
        pytest.param(7, marks=pytest.mark.slow),
        8,
    ],
)
def test_a_generated_client_plays_a_complete_game(
    live: LiveServer, client_package: ModuleType, players: int
) -> None:
    pkg = client_package
    models = sub(pkg, "models")
    rnd = random.Random(players)
    seats = [Seat(pkg, live.url, rnd) for _ in range(players)]
    creator = seats[0]
    created = sub(pkg, "api.lobby.games_create").sync_detailed(
        client=creator.client,
        body=models.GameCreateInputRequest.from_dict(
            {"seats": players, "options": OPTIONS[players], "name": f"generated {players}"}
        ),
    )
    assert created.status_code == 201, created.content
    game_id = created.parsed.id
    join = sub(pkg, "api.lobby.games_join")
    for seat in seats[1:]:
        joined = join.sync_detailed(game_id, client=seat.client, body=models.JoinInputRequest())
        assert joined.status_code == 200, joined.content
    assert joined.parsed.status == models.GameStatusEnum.RUNNING

    # a seat's own listing says where it sits; nobody names their seat in a command
    seats.sort(key=lambda s: s.state(game_id)[0]["viewer"])
    assert [s.state(game_id)[0]["viewer"] for s in seats] == list(range(players))

    sent = play(seats, game_id)
    assert sent > players

    final, _ = creator.state(game_id)
    assert final["over"] is True
    assert len(final["scores"]) == players
    seed = final["state"]["seed"]
    # R8.2: the seed revealed at the end matches the commitment published at the start
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == final["state"]["seed_commitment"]
    items = feed_all(creator, game_id)
    assert [i["seq"] for i in items] == list(range(1, final["version"] + 1))
    replay = RULESET.fold(RULESET.event_from_json(i["event"]) for i in items)
    assert RULESET.view_for(replay, final["viewer"]) == final["state"]

    # the game is listed among each player's games, typed
    mine = sub(pkg, "api.play.me_games_list").sync(client=seats[-1].client)
    assert game_id in [g.id for g in mine.results]


# --------------------------------------------------------------------------------------------------
# the typed client: state, commands, problems, the record's events and commands are classes, not dicts
# --------------------------------------------------------------------------------------------------
def typed_next(
    models: ModuleType, view: Any, rnd: random.Random, offered: set[int]
) -> tuple[str, Any] | None:
    """The next command of the viewing seat from its TYPED view (``ViewerStateOutput`` whose ``state`` is a
    ``GoodCrittersView``), as a typed request model; payoffs and gifts when the rules allow them."""
    legal = {c.value for c in view.legal_commands}
    if view.waiting is None or not view.waiting.you:
        return None
    state = view.state
    assert isinstance(state, models.GoodCrittersView)
    me = view.viewer
    mine = state.seats[me]
    assert isinstance(mine, models.GoodCrittersSeatView)
    others = [s.seat for s in state.seats if s.seat != me]
    if "DistributeLoot" in legal:
        shares: list[list[int]] = [[] for _ in state.seats]
        for card in state.table:
            assert isinstance(card, models.GoodCrittersCardView)
            shares[rnd.randrange(len(shares))].append(card.id)
        return "DistributeLoot", models.DistributeLootCommandRequest(shares=shares)
    if not mine.chosen:
        stash = mine.stash if isinstance(mine.stash, list) else []
        if "OfferPayoff" in legal and me not in offered and stash:
            offered.add(me)
            return "OfferPayoff", models.OfferPayoffCommandRequest(
                token=0,
                side=models.SideEnum.YES,
                target=rnd.choice(others),
                loot=[stash[0].id],
                visibility=rnd.choice(list(models.VisibilityEnum)),
            )
        if "GiveGift" in legal and mine.payoff_cards > 0 and rnd.random() < 0.2:
            return "GiveGift", models.GiveGiftCommandRequest(to=rnd.choice(others), payoff_cards=1)
        return "ChooseAction", models.GoodCrittersChooseActionCommandRequest(
            action=rnd.choice(list(models.ActionEnum))
        )
    if "SetReady" in legal and not mine.ready:
        return "SetReady", models.SetReadyCommandRequest(ready=True)
    return None


def test_a_typed_client_plays_a_game_with_payoffs(live: LiveServer, client_package: ModuleType) -> None:
    pkg = client_package
    models = sub(pkg, "models")
    rnd = random.Random(44)
    seats = [Seat(pkg, live.url, rnd) for _ in range(4)]
    created = sub(pkg, "api.lobby.games_create").sync_detailed(
        client=seats[0].client,
        body=models.GameCreateInputRequest(
            seats=4, name="typed", options=models.GoodCrittersOptionsRequest(payoffs=True)
        ),
    )
    assert created.status_code == 201, created.content
    assert isinstance(created.parsed.options, models.GoodCrittersOptions)
    assert created.parsed.options.payoffs is True
    game_id = created.parsed.id
    for seat in seats[1:]:
        assert (
            sub(pkg, "api.lobby.games_join")
            .sync_detailed(game_id, client=seat.client, body=models.JoinInputRequest())
            .status_code
            == 200
        )
    state_op = sub(pkg, "api.play.games_state_retrieve")

    def view_of(seat: Seat) -> Any:
        parsed = state_op.sync(game_id, client=seat.client)
        assert isinstance(parsed, models.ViewerStateOutput)
        return parsed

    seats.sort(key=lambda s: view_of(s).viewer)

    # a rule error is a typed problem, with the request path as its instance
    me = view_of(seats[0]).viewer
    bad = seats[0].send_typed(game_id, "PlaceThreat", models.PlaceThreatCommandRequest(target=me))
    assert bad.status_code in (409, 422), bad.content
    assert isinstance(bad.parsed, models.Problem)
    assert bad.parsed.code in ("cannot_threaten_self", "wrong_step")
    assert bad.parsed.instance == f"/api/v1/games/{game_id}/commands/place-threat"

    offered: set[int] = set()
    sent = 0
    while sent < 3000:
        views = [view_of(s) for s in seats]
        if views[0].over:
            break
        progressed = False
        for seat, view in zip(seats, views, strict=True):
            step = typed_next(models, view, rnd, offered)
            if step is None:
                continue
            type_name, body = step
            r = seat.send_typed(game_id, type_name, body)
            assert r.status_code == 200, (type_name, r.content[:500])
            assert isinstance(r.parsed, models.ViewerStateOutput)
            sent += 1
            progressed = True
            break  # the others' views changed: read them again
        assert progressed, "the game is not over but no seat has anything to do"
    final = view_of(seats[0])
    assert final.over is True
    assert isinstance(final.state.scores, list)
    assert offered, "no payoff was offered"

    # the record: every event and command a typed class (the union parsed by its `type`)
    record = sub(pkg, "api.audit.games_record_retrieve").sync(game_id, client=seats[0].client)
    assert isinstance(record, models.GoodCrittersRecord)  # the record's union, narrowed by `ruleset`
    event_classes = tuple(getattr(models, n) for n in dir(models) if n.endswith("Event") and n != "Event")
    command_classes = tuple(getattr(models, n) for n in dir(models) if n.endswith("CommandRecord"))
    kinds = set()
    for entry in record.events:
        assert isinstance(entry.data, event_classes), type(entry.data)
        assert type(entry.data).__name__ == f"{entry.type_}Event"
        kinds.add(entry.type_)
        if entry.command is not None:
            assert isinstance(entry.command, command_classes), type(entry.command)
    started = record.events[0].data
    assert isinstance(started, models.GameStartedEvent)
    assert isinstance(started.options, models.GoodCrittersOptions)
    assert started.options.payoffs is True
    assert isinstance(record.events[0].command, models.StartGameCommandRecord)
    assert {"PayoffOffered", "PayoffResolved", "GameEnded"} <= kinds, kinds
    # the feed's events are typed the same way
    feed = sub(pkg, "api.play.games_events_list").sync(game_id, client=seats[1].client, after=0, limit=1000)
    assert all(isinstance(item.event, event_classes) for item in feed.events)


# --------------------------------------------------------------------------------------------------
# the games on the table: Loose Triggers and Were-cats through the same generated client
# --------------------------------------------------------------------------------------------------
def table_next(models: ModuleType, slug: str, view: Any, memo: dict[str, int]) -> tuple[str, Any] | None:
    """A simple command the viewing seat may send now, chosen from its TYPED view alone (else None: the
    deadline's default plays for it)."""
    legal = {c.value for c in view.legal_commands}
    state = view.state
    me = view.viewer
    if "SendMessage" in legal and not memo.get("said"):
        memo["said"] = 1
        return "SendMessage", models.SendMessageCommandRequest(text="howdy")
    if slug == "loose_triggers" and "Aim" in legal:  # open or join a Discussion (LT3.1): no step waits on it
        state = view.state
        mine = state.seats[me]
        others = [s.seat for s in state.seats if s.alive and not s.resigned and s.seat != me]
        if mine.target is None and others and memo.get("aimed", 0) < 3:  # a few Discussions; bots end it
            memo["aimed"] = memo.get("aimed", 0) + 1
            return "Aim", models.AimCommandRequest(target=others[0])
    if view.waiting is None or not view.waiting.you:
        return None
    if slug == "were_cats":
        assert isinstance(state, models.WereCatsView)
        supply = state.supply.to_dict()
        if "ChooseStartingCoins" in legal:
            kind = next((k for k in ("dime", "nickel", "penny") if supply[k] >= 2), None)
            if kind is not None:
                return "ChooseStartingCoins", models.ChooseStartingCoinsCommandRequest(
                    kind=models.CoinKindEnum(kind)
                )
        if "FinishPlacing" in legal:
            return "FinishPlacing", models.FinishPlacingCommandRequest()
        if "PopulateCity" in legal:
            kind = next((k for k in ("penny", "nickel", "dime") if supply[k] > 0), None)
            if kind is not None:
                return "PopulateCity", models.PopulateCityCommandRequest(kind=models.CoinKindEnum(kind))
        if "Pass" in legal:
            return "Pass", models.PassCommandRequest()
        return None
    assert isinstance(state, models.LooseTriggersView)
    mine = state.seats[me]
    assert isinstance(mine, models.LooseTriggersSeatView)
    alive = [s.seat for s in state.seats if s.alive and not s.resigned]
    if "GiveLoot" in legal and state.display:
        to = next((s for s in alive if s != me), me)
        return "GiveLoot", models.GiveLootCommandRequest(slot=state.display[0].slot, to=to)
    if "ChooseAction" in legal and not mine.chose:
        # no card (-1): a GRAB! played needs a Grab this seat does not send, and this test's clock jumps
        # from deadline to deadline, which the sweeper reads as timer outages: it extends the Grab forever
        return "ChooseAction", models.LooseTriggersChooseActionCommandRequest(card=-1)
    if "PickLoot" in legal:
        return "PickLoot", models.PickLootCommandRequest(card=-1)  # a random one
    if "ElectBagman" in legal and alive:
        return "ElectBagman", models.ElectBagmanCommandRequest(candidate=alive[0])
    if "SetReady" in legal and isinstance(state.play, models.TablePlay):
        seat = state.play.seats[me]
        if not seat.ready:
            return "SetReady", models.SetReadyCommandRequest(ready=True)
    return None


@pytest.mark.parametrize(("slug", "seats"), [("loose_triggers", 5), ("were_cats", 3)])
def test_a_generated_client_plays_a_table_game(
    live: LiveServer, client_package: ModuleType, slug: str, seats: int
) -> None:
    """A Loose Triggers or a Were-cats game: the creator's seat is played through the generated client (typed
    options, state, commands), the others by bots; the record and the feed parse into the game's own event
    and command classes (rulesets reuse type names: the client must not take one for GoodCritters')."""
    from games import deadlines
    from games.api.bindings import ruleset_types
    from games.models import Game, GameStatus
    from games.services import bots

    pkg = client_package
    models = sub(pkg, "models")
    rt = ruleset_types(slug)
    assert rt is not None
    me = Seat(pkg, live.url, random.Random(seats))
    sample: Sample = get_ruleset(slug).sample  # type: ignore[attr-defined]
    options = getattr(models, f"{rt.name}OptionsRequest").from_dict(
        {**sample.options, "absence": {"extensions": 0, "autopilot_after": None}}
    )
    created = sub(pkg, "api.lobby.games_create").sync_detailed(
        client=me.client,
        body=models.GameCreateInputRequest(
            ruleset=models.RulesetEnum(slug),
            seats=seats,
            options=options,
            bots=[models.BotStrategyEnum.SENSIBLE] * (seats - 1),
        ),
    )
    assert created.status_code == 201, created.content
    assert isinstance(created.parsed.options, getattr(models, f"{rt.name}Options"))
    game_id = created.parsed.id
    state_op = sub(pkg, "api.play.games_state_retrieve")
    memo: dict[str, int] = {}
    tried: set[tuple[str, int]] = set()
    log: list[Any] = []
    sent = refused = 0
    for _ in range(5_000):
        view = state_op.sync(game_id, client=me.client)
        assert isinstance(view, models.ViewerStateOutput)
        assert isinstance(view.state, getattr(models, f"{rt.name}View"))
        if view.over:
            break
        step = table_next(models, slug, view, memo)
        if step is not None and (step[0], view.version) in tried:
            step = None  # sent at this version already (accepted or not): let the game move on
        if step is not None:
            tried.add((step[0], view.version))
            r = me.send_typed(game_id, *step)
            if r.status_code == 200:
                assert isinstance(r.parsed, models.ViewerStateOutput)
                sent += 1
                continue
            assert isinstance(r.parsed, models.Problem), r.content  # the rules refused: a typed problem
            refused += 1
        log.append((view.version, step and step[0], view.waiting and view.waiting.step))
        if bots.bots_play(game_id, max_steps=1):  # one bot move: the seat may answer it
            log.append("bot")
            continue
        game = Game.objects.get(pk=game_id)
        if game.status != GameStatus.OVER:
            assert game.deadline_at is not None, "nobody can move and no deadline runs"
            deadlines.sweep(now=game.deadline_at + timedelta(seconds=1))
            log.append(("sweep", game.deadline_at))
    else:
        raise AssertionError(f"the game did not end {log[-40:]}")
    assert sent > 3, (sent, refused)
    assert isinstance(view.state.scores, list)

    # each event and command parses into the class the spec gives its type in this ruleset
    schemas = httpx.get(f"{live.url}/api/schema/?format=json", timeout=30).json()["components"]["schemas"]
    event_class = {
        t: r.rsplit("/", 1)[1] for t, r in schemas[f"{rt.name}Event"]["discriminator"]["mapping"].items()
    }
    command_class = {
        t: r.rsplit("/", 1)[1]
        for t, r in schemas[f"{rt.name}RecordedCommand"]["discriminator"]["mapping"].items()
    }
    record = sub(pkg, "api.audit.games_record_retrieve").sync(game_id, client=me.client)
    assert isinstance(record, getattr(models, f"{rt.name}Record"))  # narrowed by `ruleset`
    kinds = set()
    for entry in record.events:
        assert type(entry.data).__name__ == event_class[entry.type_], (entry.type_, type(entry.data))
        kinds.add(entry.type_)
        if entry.command is not None:
            name = type(entry.command).__name__
            assert name == command_class[entry.command.type_], name
    assert {"GameStarted", "TableOpened", "MessageSent", "GameEnded"} <= kinds, kinds
    assert isinstance(record.events[0].data.options, getattr(models, f"{rt.name}GameOptions"))
    feed = sub(pkg, "api.play.games_events_list").sync(game_id, client=me.client, after=0, limit=1000)
    for item in feed.events:
        assert type(item.event).__name__ == event_class[item.event.type_], type(item.event)
