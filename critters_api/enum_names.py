"""The spec's enum names (drf-spectacular's ``ENUM_NAME_OVERRIDES``): the hosting's own, given in the
settings, and each registered game's (``enum_names`` of :class:`games.rules.table.game.Game`, e.g. Were-cats'
``CoinKindEnum``), read from the registry when the spec is first made, so that the settings name no game."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class EnumNames(Mapping[str, Any]):
    def __init__(self, own: Mapping[str, Any]) -> None:
        self._own = dict(own)
        self._all: dict[str, Any] | None = None

    def _merged(self) -> dict[str, Any]:
        if self._all is None:
            from games.rules.registry import HOSTED  # at first use: the settings load before the games

            merged = dict(self._own)
            for game in HOSTED.values():
                for name, choices in game.enum_names.items():
                    if name in merged:
                        raise ValueError(f"{game.slug}: enum name {name!r} is taken")
                    merged[name] = tuple(choices)
            self._all = merged
        return self._all

    def __getitem__(self, key: str) -> Any:
        return self._merged()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())
