"""The error catalogue: every ``code`` the server can answer, with its HTTP status and its meaning.

Two sources, each declared once next to the code that raises it: the service's own codes (below,
checked against every ``Problem(...)``/``problem_http_response(...)`` in the code by
``tests/api/test_error_catalogue.py``) and each ruleset's rule errors (``RulesetTypes.errors``, e.g.
``games/rules/goodcritters/errors.py``; their status from their kind). The OpenAPI schema lists, per
operation and status, the codes of the scopes that operation has (``critters_api.schema.AutoSchema``);
``docs/ERRORS.md`` is the service's codes as a page and each game's folder has its rule errors' page
``ERRORS.md`` (``python -m critters_api.error_codes --write`` writes them all; a test keeps them current).

A scope says where a code can come from:

* ``any``: every operation; ``auth``: operations that need a token; ``body``: operations with a request body;
  ``path``: operations with a path parameter; ``query``/``cursor``: operations with query parameters or a
  cursor; ``game``: operations on one game (``{game_id}``);
* the rest are named by the views that need them (``error_scopes``): ``command`` (player commands; with
  ``rules:TYPE``, the rule errors of every ruleset that has command ``TYPE``), ``rules`` (every rule error
  of every ruleset), ``create``, ``lobby``, ``creator``, ``caps``, ``bot_only``, ``offers``, ``offer_accept``,
  ``offer_withdraw``, ``audit``, ``state_at``,
  ``login``, ``tokens``, ``webhooks``, ``webhook_create``, ``stream``, ``http`` (outside any operation).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from games.errors import Refusal
from games.rules.core import ErrorKind, RulesetTypes

RULE_ERROR_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID: 422,
    ErrorKind.CONFLICT: 409,
    ErrorKind.FORBIDDEN: 403,
}
"""Rule errors map to HTTP here and nowhere else."""

REFUSAL_STATUS: dict[Refusal, int] = {
    Refusal.NOT_FOUND: 404,
    Refusal.FORBIDDEN: 403,
    Refusal.CONFLICT: 409,
    Refusal.PRECONDITION_FAILED: 412,
    Refusal.INVALID: 422,
}
"""The hosting code's refusals (:class:`games.errors.Refused`) map to HTTP here and nowhere else."""


@dataclasses.dataclass(frozen=True, slots=True)
class ErrorEntry:
    code: str
    status: int
    meaning: str
    scope: str
    ruleset: str | None = None  # for rule errors: the ruleset that raises it


def _e(code: str, status: int, scope: str, meaning: str) -> ErrorEntry:
    return ErrorEntry(code, status, meaning, scope)


SERVICE_ERRORS: tuple[ErrorEntry, ...] = (
    # everywhere
    _e("throttled", 429, "any", "Too many requests for this token (or address): wait `Retry-After` seconds."),
    _e(
        "database_unavailable",
        503,
        "any",
        "The database is restarting: nothing was applied; retry after `Retry-After` seconds "
        "(with the same Idempotency-Key for a command).",
    ),
    _e("nul_byte", 400, "any", "A NUL byte in the path or query string."),
    _e("not_authenticated", 401, "auth", "No credentials: send `Authorization: Bearer <token>`."),
    _e("authentication_failed", 401, "auth", "The token is unknown, revoked or expired."),
    _e(
        "too_many_failed_authentications",
        429,
        "auth",
        "Too many failed authentications (bad tokens) from your address: wait `Retry-After` seconds "
        "(`THROTTLE_AUTH_FAILURE_RATE`; valid tokens are never refused by it).",
    ),
    _e("permission_denied", 403, "auth", "You may not do this."),
    _e("not_found", 404, "path", "There is nothing at this address (or no such object of yours)."),
    _e("malformed_request", 400, "body", "The body is not JSON (or not UTF-8)."),
    _e("request_too_large", 413, "body", "The request body is too large."),
    _e("unsupported_media_type", 415, "body", "Send `Content-Type: application/json`."),
    _e("validation_error", 422, "body", "A field is missing, unknown or invalid: see `errors`."),
    _e("invalid_query", 400, "query", "A query parameter is invalid: see `errors`."),
    _e("invalid_cursor", 400, "cursor", "The pagination cursor (or the stream's `after`) is not valid."),
    # one game
    _e("game_not_found", 404, "game", "No such game (or a private game you do not sit in)."),
    _e("not_seated", 403, "command", "You have no seat in this game."),
    _e("not_started", 409, "command", "The game has not started."),
    _e("game_over", 409, "command", "The game is over."),
    _e(
        "invalid_idempotency_key",
        400,
        "command",
        "The Idempotency-Key is not 1 to 255 printable ASCII characters.",
    ),
    _e(
        "idempotency_key_in_use",
        409,
        "command",
        "A request with this Idempotency-Key is still being processed: retry later.",
    ),
    _e(
        "idempotency_key_reused",
        422,
        "command",
        "This Idempotency-Key was used on this game for a different request (another command or body).",
    ),
    _e(
        "precondition_failed",
        412,
        "command",
        "If-Match does not match the game's ETag: nothing applied (the current one is in `etag`).",
    ),
    _e("autopilot_on", 409, "command", "Your seat is on autopilot: take it back first (TakeBackSeat)."),
    # lobby
    _e("unknown_ruleset", 422, "create", "No such ruleset."),
    _e("invalid_seats", 422, "create", "The ruleset does not seat that many players."),
    _e("too_many_seats", 422, "create", "More bots (and you) than seats."),
    _e("invalid_options", 422, "create", "An option is unknown or has a bad value (`details.key` names it)."),
    _e("operators_only", 403, "create", "Only operators may fix the seed, deck or seats (`setup`)."),
    _e("invalid_setup", 422, "create", "The operator's `setup` is not valid."),
    _e("invalid_strategy", 422, "create", "No such bot strategy."),
    _e("invalid_strategy", 422, "lobby", "No such bot strategy."),
    _e("already_started", 409, "lobby", "The game has already started."),
    _e("game_cancelled", 409, "lobby", "The game was cancelled."),
    _e("invalid_seat", 422, "lobby", "No such seat in this game."),
    _e("seat_taken", 409, "lobby", "That seat is taken."),
    _e("game_full", 409, "lobby", "Every seat is taken."),
    _e("already_seated", 409, "lobby", "You already have a seat in this game."),
    _e("not_seated", 409, "lobby", "You have no seat in this game (leave)."),
    _e("not_creator", 403, "lobby", "Only the game's creator may do this."),
    _e("not_enough_players", 409, "lobby", "Fewer seats taken than the ruleset's minimum."),
    _e("setup_mismatch", 409, "lobby", "The operator's seat order does not match the taken seats."),
    _e("seat_not_found", 404, "lobby", "No such taken seat."),
    _e(
        "invalid_setup",
        422,
        "lobby",
        "The game starts when its last seat is taken: the operator's `setup` does not fit the seats taken.",
    ),
    # the caps of one account (issue #28, item 12; settings MAX_OPEN_GAMES_PER_PLAYER,
    # MAX_RUNNING_GAMES_PER_PLAYER, BOT_ONLY_GAMES_STAFF_ONLY)
    _e(
        "too_many_open_games",
        409,
        "caps",
        "You have as many open games (created or joined) as one player may: start, cancel or leave one "
        "first.",
    ),
    _e(
        "too_many_running_games",
        409,
        "caps",
        "You play as many running games as one player may: finish one before you take on another.",
    ),
    _e(
        "bot_only_game",
        403,
        "bot_only",
        "Every seat would be a bot's: such a game (which plays itself on the server's time) is for operators "
        "only.",
    ),
    # the creator's tools (pause, resume, hand-over)
    _e("not_creator", 403, "creator", "Only the game's creator may do this."),
    _e("not_started", 409, "creator", "The game has not started."),
    _e("game_over", 409, "creator", "The game is over."),
    _e("seat_not_found", 404, "creator", "No such seat in this game."),
    _e("player_not_found", 404, "creator", "No such player."),
    _e("already_seated", 409, "creator", "That player already has a seat in this game."),
    # offers of a seat (issue #28, item 13)
    _e("offer_not_found", 404, "offers", "No such offer stands (to you, or of that seat)."),
    _e("offer_lapsed", 409, "offer_accept", "The seat changed since it was offered: the offer lapsed."),
    _e("already_seated", 409, "offer_accept", "You already have a seat in this game."),
    _e(
        "too_many_running_games",
        409,
        "offer_accept",
        "You play as many running games as one player may: finish one before you take on another.",
    ),
    _e("not_creator", 403, "offer_withdraw", "Only the game's creator may do this."),
    # audit
    _e("game_not_over", 409, "audit", "The game is running: its record is public once it is over."),
    _e("no_such_event", 404, "state_at", "No event with this number in the game."),
    _e(
        "invalid_checkpoint",
        400,
        "verify",
        "A `checkpoint` is not `SEQ:HASH` (a seq of the game and 64 lowercase hex digits), or there are more "
        "than 16.",
    ),
    # players
    _e("invalid_credentials", 401, "login", "Wrong username or password."),
    _e(
        "too_many_failed_logins",
        429,
        "login",
        "Too many wrong passwords for this username (from any address) or from your address: the password "
        "is not checked until `Retry-After` seconds have passed (the end of the window that began with the "
        "first failure; `THROTTLE_LOGIN_FAILURE_RATE`, `THROTTLE_AUTH_FAILURE_RATE`).",
    ),
    # notifications
    _e("webhook_not_found", 404, "webhooks", "No such webhook endpoint of yours."),
    _e("too_many_webhooks", 409, "webhook_create", "You have the most webhook endpoints allowed."),
    _e(
        "webhook_destination_refused",
        422,
        "webhook_create",
        "The URL is not a public http(s) address (private, loopback and link-local targets are refused).",
    ),
    _e(
        "verification_throttled",
        429,
        "email",
        "A verification link was mailed moments ago: ask again after `Retry-After` seconds.",
    ),
    _e(
        "email_token_invalid",
        400,
        "email_token",
        "The mailed link's token is unknown, used, replaced or expired.",
    ),
    _e("game_not_yours", 422, "notification_settings", "Only games you have a seat in can be muted."),
    _e("stream_needs_asgi", 503, "stream", "The live stream is served by the ASGI process only."),
    _e("game_busy", 503, "stream", "The game changed during every snapshot attempt: reconnect."),
    _e("method_not_allowed", 405, "stream", "Only GET is allowed here."),
    # outside any documented operation (unknown URLs, the health check, the replay page)
    _e("method_not_allowed", 405, "http", "The method is not allowed on this URL."),
    _e("not_acceptable", 406, "http", "The `Accept` header asks for a type the API does not answer (JSON)."),
    _e("bad_request", 400, "http", "The request could not be understood (e.g. a bad Host header)."),
    _e("server_error", 500, "http", "A bug on our side (never expected; reported)."),
)


def _types(slug: str) -> RulesetTypes | None:
    """A registered ruleset's types (read from the registry: the catalogue does not reach up into the API)."""
    from games.rules.registry import RULESETS

    found = getattr(RULESETS[slug], "types", None)
    return found if isinstance(found, RulesetTypes) else None


def rule_errors() -> list[ErrorEntry]:
    """Every rule error of every ruleset (``RulesetTypes.errors``), with its status."""
    from games.rules.registry import RULESETS

    out = []
    for slug in sorted(RULESETS):
        rt = _types(slug)
        if rt is None:
            continue
        for code, entry in rt.errors.items():
            out.append(ErrorEntry(code, RULE_ERROR_STATUS[entry.kind], entry.meaning, "rules", slug))
    return out


def catalogue() -> list[ErrorEntry]:
    return [*SERVICE_ERRORS, *rule_errors()]


def _commands_of(slug: str) -> set[str]:
    rt = _types(slug)
    return {getattr(cls, "TYPE", "") for cls in (rt.player_commands if rt is not None else ())}


def _in_scopes(entry: ErrorEntry, wanted: set[str]) -> bool:
    """Whether ``entry`` is in ``wanted``. ``rules:TYPE`` (the endpoint of player command ``TYPE``) holds the
    rule errors of the rulesets that have that command, and what the others answer it (``invalid_command``:
    not a command of theirs)."""
    if entry.scope in wanted:
        return True
    if entry.scope != "rules" or entry.ruleset is None:
        return False
    types = {w.split(":", 1)[1] for w in wanted if w.startswith("rules:")}
    return bool(types) and (bool(types & _commands_of(entry.ruleset)) or entry.code == "invalid_command")


def codes_by_status(scopes: Iterable[str]) -> dict[int, list[ErrorEntry]]:
    """The codes of ``scopes`` by status (one entry per code and status)."""
    wanted = set(scopes)
    out: dict[int, dict[str, ErrorEntry]] = {}
    for entry in catalogue():
        if _in_scopes(entry, wanted):
            out.setdefault(entry.status, {}).setdefault(entry.code, entry)
    return {status: sorted(codes.values(), key=lambda e: e.code) for status, codes in sorted(out.items())}


def markdown(ruleset: str | None = None) -> str:
    """The catalogue as a page: the hosting's errors (``docs/ERRORS.md``), or with ``ruleset`` that game's
    rule errors (``ERRORS.md`` in the game's folder: a new game brings its own page; the hosting's names
    none)."""
    if ruleset is not None:
        return _game_markdown(ruleset)
    lines = [
        "# Error codes",
        "",
        "Every error is `application/problem+json` (RFC 9457) with a stable machine `code`.",
        "This page is generated from the catalogue in the code",
        "(`python -m critters_api.error_codes --write`;",
        "`tests/api/test_error_catalogue.py` fails when it is out of date).",
        "The OpenAPI schema lists, for each operation and status, the codes it can answer",
        "(`x-codes` on each problem response).",
        "",
        "A game's rules refuse commands with codes of their own (status 422 `invalid`, 409 `conflict` or 403",
        "`forbidden`): each game's are on the page `ERRORS.md` of its folder (e.g.",
        "[`games/rules/were_cats/ERRORS.md`](../games/rules/were_cats/ERRORS.md)), generated the same way.",
        "",
        "| code | status | where | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for entry in sorted(SERVICE_ERRORS, key=lambda e: (e.code, e.status, e.scope)):
        lines.append(f"| `{entry.code}` | {entry.status} | {entry.scope} | {entry.meaning} |")
    return "\n".join(lines) + "\n"


def _game_markdown(ruleset: str) -> str:
    from games.rules.registry import game_of

    lines = [
        f"# Rule errors of {game_of(ruleset).name} (`{ruleset}`)",
        "",
        "The codes with which this game's rules refuse a command, as `application/problem+json` (RFC 9457);",
        "the hosting's own codes are in `docs/ERRORS.md`. This page is generated from the game's catalogue",
        "(`python -m critters_api.error_codes --write`; `tests/api/test_error_catalogue.py` fails when it is",
        "out of date).",
        "",
        "| code | status | meaning |",
        "| --- | --- | --- |",
    ]
    for entry in sorted((e for e in rule_errors() if e.ruleset == ruleset), key=lambda e: (e.code, e.status)):
        lines.append(f"| `{entry.code}` | {entry.status} | {entry.meaning} |")
    return "\n".join(lines) + "\n"


def pages() -> dict[Path, str]:
    """Every page of the catalogue by its path: ``docs/ERRORS.md`` and each registered game's
    ``ERRORS.md``."""
    from games.rules.registry import RULESETS, game_folder

    out = {Path(__file__).resolve().parent.parent / "docs" / "ERRORS.md": markdown()}
    for slug in RULESETS:
        out[game_folder(slug) / "ERRORS.md"] = markdown(slug)
    return out


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write"]:
        for path, text in pages().items():
            path.write_text(text, encoding="utf-8")
            print(path)
    else:
        print(markdown(sys.argv[1] if len(sys.argv) > 1 else None), end="")
