"""The step-through of a finished game, round by round, from its record (what the replay page shows): the
table, the Boss, the distribution, every revealed card and the vote, who robbed whom, skims, payoffs, awards
and each seat's Stash value after every round. Pure: no Django (GoodCritters records)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.rules.goodcritters.cards import FUZZ, card_value
from games.rules.registry import get_ruleset

CHART_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def money(value: int) -> str:
    return f"${value:,}"


def card_label(card: int | None) -> str:
    if card is None:
        return "no card"
    if card == FUZZ:
        return "The Fuzz!"
    return f"#{card} {money(card_value(card))}"


def _cards(cards: Sequence[int] | None) -> list[str]:
    return [card_label(c) for c in cards or ()]


def _stash_values(rs: Any, state: Any) -> list[int]:
    view = rs.full_view(state)
    return [int(seat["stash_value"] or 0) for seat in view["seats"]]


def build(record: Mapping[str, Any]) -> dict[str, Any]:
    """``{"names", "rounds": [...], "series": [[value per seat] per point], "labels", "end"}``: one entry per
    round with everything that happened in it, in the order it happened."""
    rs = get_ruleset(record["game"]["ruleset"])
    names = {s["seat"]: s.get("display_name") or s.get("player") or s["uid"] for s in record["seats"]}
    state = rs.initial_state()
    rounds: list[dict[str, Any]] = []
    series: list[list[int]] = []
    labels: list[str] = []
    end: dict[str, Any] | None = None
    current: dict[str, Any] | None = None

    def who(seat: Any) -> str:
        return str(names.get(seat, f"seat {seat}"))

    for event in record["events"]:
        data = event["data"]
        kind = event["type"]
        state = rs.evolve(state, rs.event_from_json(data))
        if kind == "GameStarted":
            series.append(_stash_values(rs, state))
            labels.append("start")
            continue
        if kind == "RoundStarted":
            current = {
                "round": data["round"],
                "boss": data["boss"],
                "boss_name": who(data["boss"]),
                "first_seq": event["seq"],
                "table": [],
                "extra": [],
                "distribution": None,
                "actions": [],
                "robs": [],
                "skims": [],
                "payoffs": [],
                "vote": None,
                "awarded": None,
                "returned": [],
                "boss_change": None,
                "bonus": None,
                "fuzz": None,
                "notes": [],
                "stash_values": None,
            }
            rounds.append(current)
            continue
        if current is None:
            continue
        current["last_seq"] = event["seq"]
        if kind == "LootRevealed":
            current["extra" if data["extra"] else "table"] += _cards(data["cards"])
        elif kind == "FuzzRevealed":
            current["fuzz"] = {
                "cause": data["cause"],
                "seat": data["seat"],
                "name": who(data["seat"]) if data["seat"] is not None else None,
            }
        elif kind == "LootDistributed":
            current["distribution"] = [
                {
                    "seat": s,
                    "name": who(s),
                    "cards": _cards(share),
                    "value": sum(card_value(c) for c in share),
                    "text": money(sum(card_value(c) for c in share)),
                }
                for s, share in enumerate(data["shares"])
            ]
            if data["auto"]:
                current["notes"].append(f"the Loot was dealt automatically ({data['auto']})")
        elif kind == "ActionRevealed":
            current["actions"].append(
                {
                    "seat": data["seat"],
                    "name": who(data["seat"]),
                    "action": data["action"],
                    "early": data["early"],
                    "defaulted": data["defaulted"],
                }
            )
        elif kind in ("RobSucceeded", "RobGuarded"):
            current["robs"].append(
                {
                    "robber": data["robber"],
                    "robber_name": who(data["robber"]),
                    "victim": data["victim"] if kind == "RobSucceeded" else data["guard"],
                    "victim_name": who(data["victim"] if kind == "RobSucceeded" else data["guard"]),
                    "guarded": kind == "RobGuarded",
                    "card": card_label(data["card"]),
                }
            )
        elif kind == "LootSkimmed":
            current["skims"].append(
                {"seat": data["seat"], "name": who(data["seat"]), "card": card_label(data["card"])}
            )
        elif kind == "PayoffResolved":
            current["payoffs"].append(
                {
                    "giver": data["seat"],
                    "giver_name": who(data["seat"]),
                    "target": data["target"],
                    "target_name": who(data["target"]),
                    "side": data["side"],
                    "visibility": data["visibility"],
                    "taken": data["taken"],
                    "loot": _cards(data["loot"]),
                    "payoff_cards": data["payoff_cards"],
                }
            )
        elif kind == "VoteResolved":
            current["vote"] = {"yes": data["yes"], "no": data["no"], "outcome": data["outcome"]}
        elif kind == "LootAwarded":
            current["awarded"] = [
                {"seat": s, "name": who(s), "cards": _cards(share)}
                for s, share in enumerate(data["shares"])
                if share
            ]
        elif kind == "LootReturned":
            current["returned"] = _cards(data["cards"])
        elif kind == "BossChanged":
            current["boss_change"] = {
                "boss": data["boss"],
                "name": who(data["boss"]),
                "previous_name": who(data["previous"]),
                "reason": data["reason"],
            }
        elif kind == "BossBonus":
            current["bonus"] = {
                "seat": data["seat"],
                "name": who(data["seat"]),
                "card": card_label(data["card"]),
            }
        elif kind == "PlayerResigned":
            current["notes"].append(f"{who(data['seat'])} resigned")
        elif kind == "LootConfiscated":
            current["notes"].append("confiscated: " + ", ".join(_cards(data["cards"])))
        elif kind in ("RoundEnded", "GameEnded"):
            values = _stash_values(rs, state)
            current["stash_values"] = [
                {"seat": s, "name": who(s), "value": v, "text": money(v)} for s, v in enumerate(values)
            ]
            if kind == "RoundEnded" or not labels or labels[-1] != f"round {current['round']}":
                series.append(values)
                labels.append(f"round {current['round']}")
            if kind == "GameEnded":
                end = {
                    "reason": data["reason"],
                    "scores": [
                        {"seat": s, "name": who(s), "score": v, "text": money(v)}
                        for s, v in enumerate(data["scores"])
                    ],
                    "winners": [who(s) for s in data["winners"]],
                }
                current["end"] = end
    return {
        "names": [who(s) for s in sorted(names)],
        "rounds": rounds,
        "series": series,
        "labels": labels,
        "end": end,
    }


def chart(
    series: Sequence[Sequence[int]], names: Sequence[str], *, width: int = 720, height: int = 260
) -> dict[str, Any]:
    """An SVG line chart's geometry: one polyline per seat (x = point, y = Stash value), axes and ticks."""
    left, right, top, bottom = 64, 16, 12, 28
    points = max(len(series), 2)
    top_value = max([v for row in series for v in row] + [1000])
    step = 10_000 if top_value > 40_000 else 5_000 if top_value > 15_000 else 2_000
    ceiling = ((top_value + step - 1) // step) * step

    def x(i: int) -> float:
        return round(left + (width - left - right) * i / (points - 1), 1)

    def y(v: int) -> float:
        return round(top + (height - top - bottom) * (1 - v / ceiling), 1)

    lines = [
        {
            "seat": s,
            "name": name,
            "color": CHART_COLORS[s % len(CHART_COLORS)],
            "points": " ".join(f"{x(i)},{y(row[s])}" for i, row in enumerate(series)),
            "last": series[-1][s] if series else 0,
        }
        for s, name in enumerate(names)
    ]
    ticks = [{"y": y(v), "label": money(v)} for v in range(0, ceiling + 1, step)]
    return {
        "width": width,
        "height": height,
        "left": left,
        "bottom": height - bottom,
        "right": width - right,
        "lines": lines,
        "ticks": ticks,
        "xticks": [{"x": x(i), "label": str(i)} for i in range(len(series))],
    }
