"""The step-through of a finished game from its record (what the replay page shows), for any ruleset: the
ruleset's sections (its ``replay_sections`` hook; else one section per command, each event with its fields)
and a chart of what its ``chart`` hook plots per seat (GoodCritters: each Stash's value). Pure: no Django.

The chart is sampled after each command (the state after the last event of its batch, the states players
could see: not the passing ones between two events of one batch), where the ruleset first has a value, then
where any seat's value changed, and at the end (x: the event number), so every change shows where it
happened (a Rob in the middle of a round as much as the round's end) and a game of any length and any ruleset
gets the same chart."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from games.rules.registry import get_ruleset

CHART_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
TAGS: Final = frozenset({"p", "h3", "table", "tr", "th", "td", "ul", "li", "span", "strong", "small", "em"})
_NAME: Final = re.compile(r"[a-z][a-z0-9-]{0,40}")
_CLASSES: Final = re.compile(r"[A-Za-z0-9_ -]{0,80}")
FIELD_TEXT: Final = 240  # a field's value is cut after this many characters in the default sections


def _text(value: Any) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    return str(value)


def _attr(value: Any) -> str:
    return html.escape(_text(value), quote=True)


def render(nodes: Sequence[Any]) -> str:
    """The HTML of a section's body (``games.rules.core.AuditHooks``): text is escaped, only the listed tags,
    a ``class`` and ``data-*`` attributes are written; anything else is refused (ValueError)."""
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(html.escape(node, quote=False))
            continue
        if not isinstance(node, Mapping) or node.get("tag") not in TAGS:
            raise ValueError(f"not a replay node: {node!r}")
        tag = node["tag"]
        attrs = ""
        cls = node.get("class")
        if cls:
            if not isinstance(cls, str) or not _CLASSES.fullmatch(cls):
                raise ValueError(f"bad class {cls!r}")
            attrs += f' class="{_attr(cls)}"'
        for name, value in (node.get("data") or {}).items():
            if not _NAME.fullmatch(name):
                raise ValueError(f"bad data attribute {name!r}")
            attrs += f' data-{name}="{_attr(value)}"'
        out.append(f"<{tag}{attrs}>{render(node.get('children') or ())}</{tag}>")
    return "".join(out)


def _field(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= FIELD_TEXT else text[: FIELD_TEXT - 1] + "…"


def default_sections(events: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[dict[str, Any]]:
    """One section per command: its batch of events (a batch starts at each event that stores a command),
    each event as its type and its fields (unredacted: the game is over)."""
    sections: list[dict[str, Any]] = []
    for event in events:
        command = event.get("command")
        if command is not None or not sections:
            seat = command.get("seat") if command is not None else None
            by = names[seat] if type(seat) is int and 0 <= seat < len(names) else "the system"
            what = command.get("type") if command is not None else "?"
            sections.append(
                {
                    "id": f"event-{event['seq']}",
                    "title": f"Event {event['seq']}: {what} by {by}",
                    "first_seq": event["seq"],
                    "last_seq": event["seq"],
                    "data": {"seat": seat if seat is not None else ""},
                    "body": [{"tag": "ul", "class": "events", "children": []}],
                }
            )
        section = sections[-1]
        section["last_seq"] = event["seq"]
        data = event["data"]
        fields = ", ".join(f"{k}: {_field(v)}" for k, v in data.items() if k not in ("type", "v"))
        section["body"][0]["children"].append(
            {
                "tag": "li",
                "data": {"seq": event["seq"], "type": event["type"]},
                "children": [
                    {"tag": "strong", "children": [f"#{event['seq']} {event['type']}"]},
                    f" {fields}" if fields else "",
                ],
            }
        )
    return sections


def seat_names(record: Mapping[str, Any]) -> list[str]:
    """Each seat's name (its last holder's display name), by seat."""
    by_seat = {s["seat"]: s.get("display_name") or s.get("player") or s["uid"] for s in record["seats"]}
    return [str(by_seat.get(s, f"seat {s}")) for s in range(max(by_seat, default=-1) + 1)]


def build(record: Mapping[str, Any]) -> dict[str, Any]:
    """``{"names", "sections": [{id, title, first_seq, last_seq, data, html}], "chart": {"label", "seqs",
    "series"} or None}`` from a record (any registered ruleset)."""
    rs = get_ruleset(record["game"]["ruleset"])
    names = seat_names(record)
    events = record["events"]
    plot = chart_points(record)
    hook = getattr(rs, "replay_sections", None)
    raw = hook(events, names) if hook is not None else default_sections(events, names)
    sections = []
    for section in raw:
        if not _NAME.fullmatch(str(section["id"])):
            raise ValueError(f"bad section id {section['id']!r}")
        sections.append(
            {
                "id": section["id"],
                "title": str(section["title"]),
                "first_seq": section["first_seq"],
                "last_seq": section["last_seq"],
                "data": {k: _text(v) for k, v in (section.get("data") or {}).items() if _NAME.fullmatch(k)},
                "html": render(section["body"]),
            }
        )
    return {
        "names": names,
        "sections": sections,
        "chart": plot,
    }


def chart_points(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """``{"label", "seqs", "series"}``: what the ruleset's ``chart`` hook plots per seat, sampled after each
    command's batch where a value changed (and at the end); ``None`` for a ruleset without the hook."""
    rs = get_ruleset(record["game"]["ruleset"])
    events = record["events"]
    plot = getattr(rs, "chart", None)
    label: str | None = None
    seqs: list[int] = []
    series: list[list[int]] = []
    if plot is not None:
        state = rs.initial_state()
        for position, event in enumerate(events):
            state = rs.evolve(state, rs.event_from_json(event["data"]))
            last = position == len(events) - 1
            if not last and events[position + 1]["command"] is None:
                continue  # inside a command's batch
            point = plot(state)
            if point is None:
                continue
            label, values = point[0], [int(v) for v in point[1]]
            if not series or values != series[-1] or last:
                seqs.append(event["seq"])
                series.append(values)
    return {"label": label, "seqs": seqs, "series": series} if series and label is not None else None


def _nice_step(span: int, ticks: int = 6) -> int:
    """1, 2 or 5 times a power of ten: at most about ``ticks`` steps over ``span``."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if span <= step * factor * ticks:
                return step * factor
        step *= 10


def _steps(xs: Sequence[float], ys: Sequence[float]) -> str:
    """A step line: each value holds until the event that changes it (two points per change)."""
    points = [f"{xs[0]},{ys[0]}"] if xs else []
    for k in range(1, len(xs)):
        points += [f"{xs[k]},{ys[k - 1]}", f"{xs[k]},{ys[k]}"]
    return " ".join(points)


def chart(
    label: str,
    seqs: Sequence[int],
    series: Sequence[Sequence[int]],
    names: Sequence[str],
    *,
    width: int = 720,
    height: int = 260,
) -> dict[str, Any]:
    """An SVG chart's geometry: one step line per seat (x = event number, y = the value), axes, ticks."""
    left, right, top, bottom = 64, 16, 12, 28
    values = [v for row in series for v in row]
    low = min([0, *values])
    high = max([1, *values])
    step = _nice_step(high - low)
    floor = -((-low + step - 1) // step) * step
    ceiling = ((high + step - 1) // step) * step
    first, last = (seqs[0], seqs[-1]) if seqs else (0, 1)
    spread = max(last - first, 1)

    def x(seq: int) -> float:
        return round(left + (width - left - right) * (seq - first) / spread, 1)

    def y(v: int) -> float:
        return round(top + (height - top - bottom) * (ceiling - v) / (ceiling - floor), 1)

    lines = [
        {
            "seat": s,
            "name": name,
            "color": CHART_COLORS[s % len(CHART_COLORS)],
            "points": _steps([x(seq) for seq in seqs], [y(row[s]) for row in series]),
            "last": series[-1][s] if series else 0,
        }
        for s, name in enumerate(names)
    ]
    ticks = [{"y": y(v), "label": f"{v:,}"} for v in range(floor, ceiling + 1, step)]
    xstep = _nice_step(spread, 8)
    xs = [first, *range((first // xstep + 1) * xstep, last, xstep), last]
    xticks = [
        {"x": x(seq), "label": str(seq)}
        for k, seq in enumerate(xs)
        if k in (0, len(xs) - 1) or (seq - first >= xstep / 2 and last - seq >= xstep / 2)
    ]
    return {
        "label": label,
        "width": width,
        "height": height,
        "left": left,
        "bottom": height - bottom,
        "right": width - right,
        "lines": lines,
        "ticks": ticks,
        "xticks": xticks,
        "points": len(seqs),
    }
