"""The table's facts in GoodCritters' own events (``games.rules.table.game.WritesTableFacts``).

GoodCritters' log predates the table and stays as clients know it: its ``GameStarted`` opens the table (the
table's settings are among its options), each ``StepOpened`` carries the deadline the table writes in, and
the events that change a seat's choices say whose ready flags they lower (``unready``, R2.4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from games.rules.table.game import Opening, SeatFacts, StepClosing, StepOpening, TableFact

from . import commands as cmd
from . import events as ev
from .evolve import FOLLOWED
from .options import RULES_R7_6, table_settings

_UNREADY: Final = (
    ev.ThreatPlaced,
    ev.ThreatRemoved,
    ev.PayoffOffered,
    ev.PayoffWithdrawn,
    ev.GiftGiven,
    ev.TradeOffered,
    ev.TradeAccepted,
    ev.TradeFailed,
    ev.TradeDeclined,
    ev.TradeWithdrawn,
)


class GoodCrittersFacts:
    fact_types: frozenset[type[Any]] = frozenset(
        (ev.GameStarted, ev.StepOpened, ev.StepClosed, ev.LootDistributed, ev.ActionChosen, *_UNREADY)
    )
    start_type: type[Any] = cmd.StartGame
    follows: frozenset[str] = frozenset(FOLLOWED)

    def table_fact(self, event: Any) -> TableFact | None:
        kind = type(event)
        if kind is ev.StepOpened:
            return StepOpening(step_no=event.step_no, step=event.step, due_at=event.due_at)
        if kind is ev.StepClosed:
            return StepClosing(step_no=event.step_no)
        if kind is ev.ActionChosen:
            return SeatFacts(unready=event.unready, acted=event.seat)
        if kind is ev.LootDistributed:  # the Boss dealt by itself (not R7.2 for it)
            return SeatFacts(acted=event.boss) if event.auto is None else None
        if kind is ev.GameStarted:
            return Opening(
                players=event.players,
                settings=dict(event.options.table),
                pause_limit=event.rules >= RULES_R7_6,  # rules 2 had no R7.6 (ruling 32)
            )
        return SeatFacts(unready=event.unready)

    def with_due_at(self, event: ev.StepOpened, due_at: str | None) -> ev.StepOpened:
        return dataclasses.replace(event, due_at=due_at)

    def with_settings(self, start: cmd.StartGame, settings: Mapping[str, Any]) -> cmd.StartGame:
        options = dataclasses.replace(start.options, table=table_settings(settings))
        return dataclasses.replace(start, options=options)


FACTS: Final = GoodCrittersFacts()
