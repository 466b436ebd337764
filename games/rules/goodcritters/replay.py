"""GoodCritters' step-through for the replay page (``games.rules.core.AuditHooks.replay_sections``): one
section per round with the table, the Boss, the distribution, every revealed card and the vote, who robbed
whom, skims, payoffs, awards and each seat's Stash value after the round. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.rules.core import JSON

from .cards import FUZZ, VALUES
from .evolve import _HANDLERS
from .serde import EVENT_SPECS, event_from_json
from .state import INITIAL_STATE

Node = str | dict[str, Any]


def el(tag: str, *children: Node, cls: str = "", **data: Any) -> dict[str, Any]:
    """A node of the replay page's body (``games.rules.core.AuditHooks``)."""
    node: dict[str, Any] = {"tag": tag, "children": list(children)}
    if cls:
        node["class"] = cls
    if data:
        node["data"] = data
    return node


def money(value: int) -> str:
    return f"${value:,}"


def card_label(card: int | None) -> str:
    if card is None:
        return "no card"
    if card == FUZZ:
        return "The Fuzz!"
    return f"#{card} {money(VALUES[card])}"


def _cards(cards: Sequence[int] | None) -> list[str]:
    return [card_label(c) for c in cards or ()]


def _joined(cards: Sequence[int] | None, empty: str = "-") -> str:
    return ", ".join(_cards(cards)) or empty


def _seat_table(cls: str, head: tuple[str, str], rows: Sequence[tuple[int, str, int, str]]) -> dict[str, Any]:
    return el(
        "table",
        el("tr", el("th", head[0]), el("th", head[1])),
        *(
            el("tr", el("td", name), el("td", text, cls="value", value=value), seat=seat)
            for seat, name, value, text in rows
        ),
        cls=cls,
    )


def replay_sections(events: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[JSON]:
    """One section per round (``id`` ``round-{r}``, ``data-round``), in the order things happened."""

    def who(seat: Any) -> str:
        return names[seat] if type(seat) is int and 0 <= seat < len(names) else f"seat {seat}"

    state = INITIAL_STATE
    sections: list[JSON] = []
    body: list[Node] = []
    parts: dict[str, list[Node]] = {}
    stash_at: int | None = None  # where the current round's Stash values are in its body

    def part(key: str, title: str, container: str, cls: str) -> list[Node]:
        """The list (or table) ``key`` of the current round, added to its body on first use."""
        if key not in parts:
            items: list[Node] = []
            parts[key] = items
            if title:
                body.append(el("h3", title))
            node = el(container, cls=cls)
            node["children"] = items
            body.append(node)
        return parts[key]

    for event in events:
        data = event["data"]
        kind = event["type"]
        if kind in EVENT_SPECS:  # the game's own events (the Stashes); the table's say nothing of them
            state = _HANDLERS[type(parsed := event_from_json(data))](state, parsed)
        if kind == "RoundStarted":
            body, parts, stash_at = [], {}, None
            body.append(
                el(
                    "p",
                    "Boss: ",
                    el("strong", who(data["boss"]), cls="boss", seat=data["boss"]),
                )
            )
            sections.append(
                {
                    "id": f"round-{data['round']}",
                    "title": f"Round {data['round']}",
                    "first_seq": event["seq"],
                    "last_seq": event["seq"],
                    "data": {"round": data["round"]},
                    "body": body,
                }
            )
            continue
        if not sections:
            continue
        sections[-1]["last_seq"] = event["seq"]
        if kind == "LootRevealed":
            table = part("table", "The table", "p", "table-cards")
            for card in _cards(data["cards"]):
                if table:
                    table.append(", ")
                table.append(el("span", card, cls="extra card" if data["extra"] else "card"))
        elif kind == "FuzzRevealed":
            whose = f", {who(data['seat'])}" if data["seat"] is not None else ""
            body.append(
                el("p", el("strong", "The Fuzz!"), f" came out ({data['cause']}{whose}).", cls="fuzz")
            )
        elif kind == "LootDistributed":
            body.append(el("h3", "The Boss's distribution"))
            body.append(
                el(
                    "table",
                    el("tr", el("th", "Player"), el("th", "Share"), el("th", "Value")),
                    *(
                        el(
                            "tr",
                            el("td", who(s)),
                            el("td", _joined(share)),
                            el(
                                "td",
                                money(sum(VALUES[c] for c in share)),
                                cls="value",
                                value=sum(VALUES[c] for c in share),
                            ),
                            seat=s,
                        )
                        for s, share in enumerate(data["shares"])
                    ),
                    cls="distribution",
                )
            )
            if data["auto"]:
                body.append(el("p", f"the Loot was dealt automatically ({data['auto']})", cls="note"))
        elif kind == "ActionRevealed":
            rows = part("actions", "The cards played", "table", "actions")
            if not rows:
                rows.append(el("tr", el("th", "Player"), el("th", "Card")))
            rows.append(
                el(
                    "tr",
                    el("td", who(data["seat"])),
                    el("td", data["action"] or "none", cls="action"),
                    seat=data["seat"],
                )
            )
        elif kind in ("RobSucceeded", "RobGuarded"):
            robs = part("robs", "Robberies", "ul", "robs")
            guarded = kind == "RobGuarded"
            victim = data["guard"] if guarded else data["victim"]
            text = (
                f"{who(data['robber'])} tried to rob {who(victim)}, who guarded and took "
                f"{card_label(data['card'])} from the robber"
                if guarded
                else f"{who(data['robber'])} robbed {who(victim)} of {card_label(data['card'])}"
            )
            robs.append(el("li", text, robber=data["robber"], victim=victim, guarded=guarded))
        elif kind == "LootSkimmed":
            part("skims", "Skims", "ul", "skims").append(
                el("li", f"{who(data['seat'])} skimmed {card_label(data['card'])}")
            )
        elif kind == "PayoffResolved":
            extra = ""
            if data["payoff_cards"]:
                extra = f" + {data['payoff_cards']} Payoff card{'s' if data['payoff_cards'] != 1 else ''}"
            part("payoffs", "Payoffs", "ul", "payoffs").append(
                el(
                    "li",
                    f"{who(data['seat'])} → {who(data['target'])} ({data['visibility']}, on {data['side']}): "
                    f"{_joined(data['loot'], 'no Loot')}{extra}: {'taken' if data['taken'] else 'returned'}",
                    giver=data["seat"],
                    target=data["target"],
                )
            )
        elif kind == "VoteResolved":
            body.append(
                el(
                    "p",
                    "Vote: ",
                    el("span", str(data["yes"]), cls="yes"),
                    " yes, ",
                    el("span", str(data["no"]), cls="no"),
                    " no: ",
                    el("strong", data["outcome"], cls="outcome"),
                    cls="vote",
                )
            )
        elif kind == "LootAwarded":
            body.append(el("h3", "Awarded"))
            body.append(
                el(
                    "ul",
                    *(
                        el("li", f"{who(s)}: {_joined(share)}")
                        for s, share in enumerate(data["shares"])
                        if share
                    ),
                    cls="awarded",
                )
            )
        elif kind == "LootReturned":
            body.append(el("p", f"Returned to the pile: {_joined(data['cards'])}", cls="returned"))
        elif kind == "BossChanged":
            body.append(
                el(
                    "p",
                    f"The job passes from {who(data['previous'])} to ",
                    el("strong", who(data["boss"])),
                    f" ({data['reason']}).",
                    cls="boss-change",
                )
            )
        elif kind == "BossBonus":
            body.append(
                el(
                    "p",
                    f"{who(data['seat'])} takes the Boss's bonus: {card_label(data['card'])}.",
                    cls="bonus",
                )
            )
        elif kind == "PlayerResigned":
            body.append(el("p", f"{who(data['seat'])} resigned", cls="note"))
        elif kind == "LootConfiscated":
            body.append(el("p", f"confiscated: {_joined(data['cards'])}", cls="note"))
        if kind in ("RoundEnded", "GameEnded"):
            values = [sum(VALUES[c] for c in state.stashes[s]) for s in range(state.n)]
            stashes = _seat_table(
                "stashes", ("Player", "Loot value"), [(s, who(s), v, money(v)) for s, v in enumerate(values)]
            )
            if stash_at is not None and stash_at < len(body):  # the game ended after the round: at the end
                body[stash_at] = stashes
            else:
                body.append(el("h3", "Stashes after the round"))
                stash_at = len(body)
                body.append(stashes)
        if kind == "GameEnded":
            winners = [who(s) for s in data["winners"]]
            body.append(el("h3", f"The end ({data['reason']})"))
            body.append(
                _seat_table(
                    "scores",
                    ("Player", "Score"),
                    [(s, who(s), v, money(v)) for s, v in enumerate(data["scores"])],
                )
            )
            body.append(
                el(
                    "p",
                    f"Winner{'s' if len(winners) != 1 else ''}: ",
                    el("strong", ", ".join(winners) or "nobody"),
                    cls="winners",
                )
            )
    return sections
