"""The play-by-web table, written once for every game: seats and their holders over time, resignation,
messages, deadlines and what a timeout plays, absent players (extensions, autopilot, take-back, hand-over),
pause and resume (RULES.md R7.6), outage extensions, warnings and ready flags. A game supplies only its own
rules (:class:`.game.Game`); :class:`.ruleset.Table` makes it a :class:`games.rules.core.Ruleset`."""
