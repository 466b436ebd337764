"""What a game supplies to the table (:class:`Game`), and the step it waits on (:class:`Step`).

A game is pure rules: its own commands and events, its steps, who each step waits on, what a seat that timed
out or resigned plays (``default_command``), its views and its bots. It holds no deadline, pause, autopilot,
hand-over, warning or message: those are the table's (:mod:`games.rules.table.ruleset`), written once for
every game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from games.rules.core import JSON, Context, RulesetTypes, Viewer

GameState = TypeVar("GameState")


@dataclass(frozen=True, slots=True)
class Step:
    """The step a game waits on.

    ``step_no`` is new for each step that opens (the table keys its deadline on it). ``seats`` are the seats
    that may still act in it (for a step the table closes, every seat taking part). ``deadline`` names the
    table option (``deadlines.<deadline>``) that sets its duration, unless ``seconds`` (the game's own
    duration, e.g. Loose Triggers' Countdown) is given. ``closes``: the table closes the step with the game's
    ``close_command`` when its time is up (after playing the defaults) or, with ``ready``, when every seat in
    it is ready (ready flags, as GoodCritters R2.4); otherwise the step closes by the game's own rules.
    """

    step_no: int
    step: str
    seats: frozenset[int]
    deadline: str
    seconds: int | None = None
    closes: bool = False
    ready: bool = False


class Game(Protocol[GameState]):
    """A game's pure rules, as the table hosts them."""

    slug: str
    version: str  # changes whenever folding the same events could give another state
    name: str  # for people: "Loose Triggers"
    deadline_steps: tuple[str, ...]  # the keys of the table option ``deadlines`` (each step's duration)
    player_commands: tuple[type[Any], ...]  # what a seat may send (the table adds its own)
    event_classes: tuple[type[Any], ...]
    types: RulesetTypes  # the game's own JSON shapes (view, options, errors); the table adds its own

    def seat_range(self) -> tuple[int, int]: ...

    def parse_options(self, raw: Mapping[str, Any]) -> Any: ...

    def options_to_json(self, options: Any) -> JSON: ...

    def start_command(
        self,
        players: Sequence[str],
        options: Any,
        seed: bytes,
        setup: Mapping[str, Any] | None,
        *,
        fixed_seed: bool,
    ) -> Any:
        """The game's own start; ``fixed_seed``: an operator chose the seed (the game is not fair)."""
        ...

    def initial_state(self) -> GameState: ...

    def decide(self, state: GameState, command: Any, ctx: Context) -> list[Any]: ...

    def evolve(self, state: GameState, event: Any) -> GameState: ...

    def is_terminal(self, state: GameState) -> bool: ...

    def scores(self, state: GameState) -> Sequence[int] | None: ...

    def players(self, state: GameState) -> tuple[str, ...]:
        """The player ids by seat, as the game started (seat order)."""
        ...

    def event_to_json(self, event: Any) -> JSON: ...

    def event_from_json(self, data: Mapping[str, Any]) -> Any: ...

    def command_to_json(self, command: Any) -> JSON: ...

    def command_from_json(self, data: Mapping[str, Any], seat: int | None) -> Any: ...

    def waiting(self, state: GameState) -> Step | None:
        """The step the game waits on now, or ``None`` (not started, over, or nothing to wait on)."""
        ...

    def default_command(self, state: GameState, seat: int, reason: str) -> Any | None:
        """What ``seat`` plays when it timed out (``reason="timeout"``) or resigned (``"resigned"``), or
        ``None`` when nothing is due from it now."""
        ...

    def close_command(self, step_no: int) -> Any | None:
        """The system command that closes step ``step_no`` (steps with ``closes``), else ``None``."""
        ...

    def resign_command(self, seat: int) -> Any | None:
        """The game's own consequence of a resignation (e.g. cannot win), or ``None`` if it has none."""
        ...

    def legal_commands(self, state: GameState, seat: int) -> list[str]: ...

    def view_for(self, state: GameState, viewer: Viewer) -> JSON: ...

    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON: ...

    def bot_command(self, state: GameState, seat: int, *, strategy: str, salt: int) -> Any | None: ...
