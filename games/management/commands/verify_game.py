"""``python manage.py verify_game RECORD.json`` (or ``--game ID``): run the independent verifier on a record.

The same check as ``python -m games.audit.verify`` (which needs neither the database nor Django) and the API's
``GET /api/v1/games/{id}/verify``. Prints the verdict; exits 1 naming the first bad event when the record does
not hold, 2 when the file cannot be read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.audit import signature
from games.audit.verify import Verdict, parse_checkpoint, verify_file, verify_record
from games.errors import Refused


class Command(BaseCommand):
    help = "Verify a finished game's record (docs/AUDIT.md): a JSON file, or --game ID from the database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("record", nargs="?", help="the record's JSON file")
        parser.add_argument("--game", type=int, help="verify this finished game's record from the database")
        parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
        parser.add_argument(
            "--checkpoint",
            action="append",
            default=[],
            metavar="SEQ:HEAD",
            help="a public chain head saved while the game ran (repeatable; docs/AUDIT.md)",
        )
        parser.add_argument(
            "--key",
            metavar="KEY",
            help="check the record's signature with this public key (JWK set, JWK, hex)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path, game_id = options.get("record"), options.get("game")
        if (path is None) == (game_id is None):
            raise CommandError("give a RECORD.json file or --game ID (one of them)", returncode=2)
        try:
            checkpoints = [parse_checkpoint(c) for c in options.get("checkpoint") or []]
            keys = signature.public_keys_from(options["key"]) if options.get("key") else None
        except ValueError as exc:
            raise CommandError(str(exc), returncode=2) from None
        verdict: Verdict
        if path is not None:
            if not Path(path).is_file():
                raise CommandError(f"no such file: {path}", returncode=2)
            verdict = verify_file(path, checkpoints=checkpoints, keys=keys)
            if (
                not verdict.ok
                and verdict.error is not None
                and verdict.error.message.startswith("cannot read")
            ):
                raise CommandError(verdict.error.message, returncode=2)
        else:
            from games.audit.export import game_record
            from games.models import Game

            assert isinstance(game_id, int)
            game = Game.objects.filter(pk=game_id).first()
            if game is None:
                raise CommandError(f"no game {game_id}", returncode=2)
            try:
                record = game_record(game)
            except Refused as refused:
                raise CommandError(refused.detail, returncode=2) from None
            verdict = verify_record(record, checkpoints=checkpoints, keys=keys)
        self.stdout.write(json.dumps(verdict.to_json(), indent=2) if options["json"] else verdict.text())
        if not verdict.ok:
            raise CommandError("the record does not hold (see above)", returncode=1)
