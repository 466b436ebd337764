"""The service layer: every write to a game goes through here.

* :mod:`.lobby`: create a game, take and free seats, start or cancel it.
* :mod:`.commands`: a player's command (authorize, Idempotency-Key, If-Match, decide, append).
* :mod:`.control`: the creator's controls of a running game (pause, resume, hand a seat over).
* :mod:`.bots`: the machine seats' turns.
* :mod:`.timers`: what a deadline, a warning or an outage extension does to a locked game.
* :mod:`.append`: the end of every write (append the events, save what the game waits on).
* :mod:`.followups`: the timer and bot tasks published once a write commits.

Reads live beside it: :mod:`games.roster` (the game row, its seats, who may act), :mod:`games.loading` (the
ruleset and the fold of the log), :mod:`games.selectors` (what a viewer sees).

Every write opens the game the same way (:func:`.timers.open_locked`: lock, ruleset, fold, a passed deadline
applied first) and refuses in the game's terms (:class:`games.errors.Refused`: the API makes problems of
them).

Callers import the module they need. The names below are kept for the benchmarks (bench/), which say
``services.<name>``.
"""

from .commands import game_command
from .lobby import game_create, game_join

__all__ = ["game_command", "game_create", "game_join"]
