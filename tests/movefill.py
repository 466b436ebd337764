"""A client's filler of the served legal moves (issue #24), with no rule knowledge: given one move as served
(``{"command", "path", "fields": [...]}``), a random body that keeps to what every field says. The rules'
property test (tests/rules/test_moves.py) and the outside clients (tests/outside/test_contract_play.py) share
it: what it does is exactly what docs/CLIENTS.md tells a client to do with each field kind."""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from typing import Any

_TEXT = string.ascii_letters + string.digits + " .,!?-é🙂"


def _counts(fields: Sequence[Mapping[str, Any]], rnd: random.Random) -> dict[str, dict[str, int]]:
    """The ``counts`` fields of one pool: counts whose sum per key stays within ``maximum``, each field's
    weighted sum at least its ``min_weight``."""
    keys = list(fields[0]["keys"])
    left = list(fields[0]["maximum"])
    out: dict[str, dict[str, int]] = {}
    order = list(fields)
    rnd.shuffle(order)
    for f in order:
        counts = [rnd.randint(0, m) if rnd.random() < 0.6 else 0 for m in left]
        need = f.get("min_weight")
        weights = f.get("weights")
        if need is not None and weights is not None:
            while sum(c * w for c, w in zip(counts, weights, strict=True)) < need:
                room = [i for i in range(len(keys)) if counts[i] < left[i] and weights[i] > 0]
                assert room, f"cannot reach min_weight {need}: {f}"
                counts[rnd.choice(room)] += 1
        left = [m - c for m, c in zip(left, counts, strict=True)]
        out[f["name"]] = dict(zip(keys, counts, strict=True))
    return out


def value(field: Mapping[str, Any], rnd: random.Random) -> Any:
    """A random value of one field (a ``counts`` field alone: its own pool)."""
    kind = field["kind"]
    if kind == "choice":
        return rnd.choice(field["options"])
    if kind == "subset":
        if field["nullable"] and rnd.random() < 0.3:
            return None
        options = list(field["options"])
        return rnd.sample(options, rnd.randint(field["min"], min(field["max"], len(options))))
    if kind == "multiset":
        return [rnd.choice(field["options"]) for _ in range(rnd.randint(field["min"], field["max"]))]
    if kind == "integer":
        return rnd.randint(field["minimum"], min(field["maximum"], field["minimum"] + 5))
    if kind == "text":
        low, high = field["min_length"], min(field["max_length"], 40)
        text = "".join(rnd.choice(_TEXT) for _ in range(rnd.randint(low, high)))
        return text if text.strip() else "x" + text[1:]
    if kind == "partition":
        parts: list[list[Any]] = [[] for _ in range(field["parts"])]
        for item in field["items"]:
            parts[rnd.randrange(field["parts"])].append(item)
        return parts
    if kind == "sequence":
        out: list[Any] = []
        once = set(field["once"])
        for _ in range(field["length"]):
            pick = rnd.choice([o for o in field["options"] if o not in once or o not in out])
            out.append(pick)
        return out
    if kind == "groups":
        return [x for g in field["groups"] for x in rnd.sample(list(g["options"]), g["count"])]
    if kind == "counts":
        return _counts([field], rnd)[field["name"]]
    raise AssertionError(f"unknown field kind {kind!r}")


def body(move: Mapping[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A random body for ``move``: every field filled (``counts`` fields of one pool together)."""
    out: dict[str, Any] = {}
    pools: dict[str, list[Mapping[str, Any]]] = {}
    for f in move["fields"]:
        if f["kind"] == "counts" and f["pool"] is not None:
            pools.setdefault(f["pool"], []).append(f)
        else:
            out[f["name"]] = value(f, rnd)
    for fields in pools.values():
        out.update(_counts(fields, rnd))
    return out


def command(move: Mapping[str, Any], rnd: random.Random) -> dict[str, Any]:
    """The command's JSON (``{"type": ..., **body}``), as the rules' ``command_from_json`` reads it."""
    return {"type": move["command"], **body(move, rnd)}


def fits(field: Mapping[str, Any], v: Any) -> bool:
    """Whether ``v`` keeps to ``field`` (a ``counts`` field's pool is checked by :func:`fits_move`)."""
    kind = field["kind"]
    if kind == "choice":
        return any(type(v) is type(o) and v == o for o in field["options"])
    if kind in ("subset", "multiset", "sequence", "groups", "partition") and v is None:
        return kind == "subset" and bool(field["nullable"])
    if kind == "subset":
        return (
            isinstance(v, list)
            and len(set(map(repr, v))) == len(v)
            and field["min"] <= len(v) <= field["max"]
            and all(fits({"kind": "choice", "options": field["options"]}, x) for x in v)
        )
    if kind == "multiset":
        return (
            isinstance(v, list)
            and field["min"] <= len(v) <= field["max"]
            and all(fits({"kind": "choice", "options": field["options"]}, x) for x in v)
        )
    if kind == "integer":
        return type(v) is int and field["minimum"] <= v <= field["maximum"]
    if kind == "text":
        return isinstance(v, str) and field["min_length"] <= len(v) <= field["max_length"] and bool(v.strip())
    if kind == "partition":
        return (
            isinstance(v, list)
            and len(v) == field["parts"]
            and all(isinstance(p, list) for p in v)
            and sorted(map(repr, (x for p in v for x in p))) == sorted(map(repr, field["items"]))
        )
    if kind == "sequence":
        return (
            isinstance(v, list)
            and len(v) == field["length"]
            and all(fits({"kind": "choice", "options": field["options"]}, x) for x in v)
            and all(v.count(o) <= 1 for o in field["once"])
        )
    if kind == "groups":
        if not isinstance(v, list) or len(set(map(repr, v))) != len(v):
            return False
        return len(v) == sum(g["count"] for g in field["groups"]) and all(
            sum(1 for x in v if x in g["options"]) == g["count"] for g in field["groups"]
        )
    if kind == "counts":
        if not isinstance(v, dict) or set(v) != set(field["keys"]):
            return False
        counts = [v[k] for k in field["keys"]]
        if not all(type(c) is int and 0 <= c <= m for c, m in zip(counts, field["maximum"], strict=True)):
            return False
        if field["min_weight"] is not None:
            return sum(c * w for c, w in zip(counts, field["weights"], strict=True)) >= field["min_weight"]
        return True
    return False


def fits_move(move: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    """Whether the command ``data`` (``{"type", **body}``) is one that ``move`` offers."""
    if data.get("type") != move["command"]:
        return False
    names = {f["name"] for f in move["fields"]}
    if set(data) - {"type"} != names:
        return False
    pools: dict[str, list[int]] = {}
    for f in move["fields"]:
        v = data[f["name"]]
        if not fits(f, v):
            return False
        if f["kind"] == "counts" and f["pool"] is not None:
            total = pools.setdefault(f["pool"], [0] * len(f["keys"]))
            for i, k in enumerate(f["keys"]):
                total[i] += v[k]
                if total[i] > f["maximum"][i]:
                    return False
    return True
