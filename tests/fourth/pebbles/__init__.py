"""Pebbles: a toy game, the fourth game of the proof that a game is one folder and one registry line
(``tests/fourth/test_fourth_game.py`` copies this folder elsewhere and registers it by
``CRITTERS_EXTRA_GAMES``)."""
