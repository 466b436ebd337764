"""No mail carries another seat's secret (R8.3): a whole GoodCritters game with every player's mail on (no
pacing, so a mail goes at nearly every step) and private messages; after every command each new mail is
checked against what its recipient could see at that moment, by the leak oracle of ``tests/outside``
(built from the full log, independently of the redaction code): no seed, salt or event hash, no card outside
the recipient's knowledge in the facts the mail was written from, no private message text at all (mails say
who wrote, never what)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import timezone

from games.api.commands import kebab
from games.loading import load_state
from games.models import Game
from games.rules.registry import get_ruleset
from notifications.models import MailNotice, MailSettings, OutgoingMail
from tests.conftest import make_api
from tests.outside.secrets import Oracle, _check_structure, card_ids_in

from .mailbox import smtp_server
from .test_mail import BASE, pump

RULESET = get_ruleset("goodcritters")


@pytest.mark.slow
@pytest.mark.django_db
@override_settings(MAIL_MIN_INTERVAL_SECONDS=0, MAIL_RECENT_ACTION_SECONDS=0, PUBLIC_BASE_URL=BASE)
def test_no_mail_carries_another_seats_secret_r8_3(tmp_path: Path) -> None:
    apis = [make_api(f"p{i}") for i in range(4)]
    for i, api in enumerate(apis):
        MailSettings.objects.create(player=api.player, email=f"p{i}@example.com", verified_at=timezone.now())
    r = apis[0].post(
        "/api/v1/games", {"seats": 4, "options": {"fuzz_depth": [0.06, 0.08]}, "name": "secrets"}
    )
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    for api in apis[1:]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    oracle = Oracle(game_id)
    by_uid = {f"p{api.player.pk}": api for api in apis}
    whispers: list[str] = []
    checked = 0
    with smtp_server(tmp_path / "mail") as server, server.settings():
        seen: set[str] = set()

        def check_new_mail() -> int:
            oracle.advance()
            n = 0
            for got in server.received():
                if got.message_id in seen:
                    continue
                seen.add(got.message_id)
                n += 1
                recipient = int(got.to.split("@")[0][1:])
                seat = positions[apis[recipient].player.pk]
                raw = got.everything()
                for secret in oracle.secret_strings(seat):
                    assert secret not in raw, f"a secret string in a mail to seat {seat}"
                for whisper in whispers:
                    assert whisper not in raw, "a private message's text in a mail"
                row = OutgoingMail.objects.get(message_id=got.message_id.strip("<>").split("@")[0])
                for notice in MailNotice.objects.filter(mail=row):
                    if oracle.over:
                        continue
                    leaked = card_ids_in(notice.data) - oracle.may_see_cards(seat)
                    assert not leaked, f"cards {sorted(leaked)} in a mail to seat {seat} (R8.3)"
                    _check_structure(oracle, seat, notice.data, f"mail {row.pk}")
            return n

        game = Game.objects.get(pk=game_id)
        players = RULESET.view_for(load_state(game), None)["players"]
        positions = {by_uid[uid].player.pk: pos for pos, uid in enumerate(players)}
        for step in range(2000):
            game = Game.objects.get(pk=game_id)
            if game.status == "over":
                break
            state = load_state(game)
            if step % 7 == 3:  # a private message from one seat to the next
                sender = step % 4
                whispers.append(f"whisper-{uuid.uuid4().hex}")
                to = [(sender + 1) % 4]
                r = by_uid[players[sender]].command(game_id, "send-message", {"text": whispers[-1], "to": to})
                assert r.status_code == 200, r.content
            moved = False
            for position, uid in enumerate(players):
                command = RULESET.bot_command(state, position, strategy="sensible", salt=step)
                if command is None:
                    continue
                body = RULESET.command_to_json(command)
                kind = body.pop("type")
                r = by_uid[uid].command(game_id, kebab(kind), body)
                assert r.status_code == 200, (kind, r.content[:300])
                moved = True
                break
            assert moved
            pump(rounds=1)
            checked += check_new_mail()
        assert Game.objects.get(pk=game_id).status == "over"
        pump()
        checked += check_new_mail()
    kinds = set(MailNotice.objects.exclude(mail=None).values_list("kind", flat=True))
    assert {"your_turn", "game_started", "game_ended", "private_message"} <= kinds, kinds
    assert checked >= 8, checked
    print(f"{checked} mails checked")
