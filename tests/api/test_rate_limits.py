"""Rate limits count what a client cannot forge (issue 13, item 5): anonymous limits are keyed on the TCP peer
unless trusted proxies are configured (then on the address the outermost one saw), Django admin's login form
is throttled per address and per username, and a player's live tokens are capped (a new one revokes the least
recently used).

Each test uses its own client address, so that no other test's requests share its buckets."""

from __future__ import annotations

import itertools
import time
from datetime import timedelta
from typing import Any
from unittest.mock import patch

import pytest
from django.contrib.auth import authenticate
from django.test import Client
from django.test.utils import override_settings
from django.utils import timezone

from players.models import ApiToken, Player
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db

_addresses = (f"198.51.100.{n}" for n in itertools.count(10))
PASSWORD = "a long passphrase 42"


def login(client: Client, peer: str, username: str, password: str, xff: str | None = None) -> Any:
    headers = {"X-Forwarded-For": xff} if xff is not None else {}
    return client.post(
        "/api/v1/auth/tokens",
        {"username": username, "password": password, "name": "t"},
        content_type="application/json",
        headers=headers,
        REMOTE_ADDR=peer,
    )


@override_settings(THROTTLE_ANON_RATE="5/min")
def test_a_new_x_forwarded_for_per_request_does_not_reset_the_login_limit() -> None:
    Player.objects.create_user(username="victim", password=PASSWORD)
    client, peer = Client(), next(_addresses)
    statuses = [login(client, peer, "victim", f"guess {n}", xff=f"10.0.{n}.1").status_code for n in range(8)]
    assert statuses[:5] == [401] * 5
    assert statuses[5:] == [429] * 3, statuses
    r = login(client, peer, "victim", PASSWORD, xff="192.0.2.99")  # even the right password waits
    body = assert_problem(r, 429, "throttled")
    assert int(r["Retry-After"]) >= 1
    assert body["retry_after"] >= 1


@override_settings(THROTTLE_ANON_RATE="5/min")
def test_other_peers_keep_their_own_buckets() -> None:
    Player.objects.create_user(username="someone", password=PASSWORD)
    client, first, second = Client(), next(_addresses), next(_addresses)
    for n in range(6):
        login(client, first, "someone", f"guess {n}")
    assert login(client, first, "someone", "guess").status_code == 429
    assert login(client, second, "someone", PASSWORD).status_code == 201


@override_settings(THROTTLE_ANON_RATE="5/min", TRUSTED_PROXY_COUNT=1)
def test_behind_one_trusted_proxy_the_address_it_saw_is_the_key() -> None:
    """The proxy appends the address it saw; whatever the client put before it is not trusted."""
    Player.objects.create_user(username="proxied", password=PASSWORD)
    client, proxy = Client(), next(_addresses)
    client_ip, other_ip = "203.0.113.5", "203.0.113.6"
    for n in range(5):
        assert login(client, proxy, "proxied", f"guess {n}", xff=client_ip).status_code == 401
    forged = [f"10.9.{n}.1, {client_ip}" for n in range(3)]  # the client's own header, then the proxy's hop
    assert [login(client, proxy, "proxied", "guess", xff=x).status_code for x in forged] == [429] * 3
    # another client behind the same proxy has its own bucket
    assert login(client, proxy, "proxied", PASSWORD, xff=other_ip).status_code == 201


@override_settings(THROTTLE_ADMIN_LOGIN_RATE="3/min")
def test_the_admin_login_form_is_throttled_per_address() -> None:
    Player.objects.create_user(username="boss", password=PASSWORD, is_staff=True, is_superuser=True)
    client, peer = Client(), next(_addresses)
    for n in range(3):
        r = client.post("/admin/login/", {"username": "boss", "password": f"guess {n}"}, REMOTE_ADDR=peer)
        assert r.status_code == 200  # the form again, with its error
    for n in range(3):  # other usernames from the same address, and forged headers, change nothing
        r = client.post(
            "/admin/login/",
            {"username": f"other{n}", "password": "guess"},
            headers={"X-Forwarded-For": f"10.1.{n}.1"},
            REMOTE_ADDR=peer,
        )
        assert_problem(r, 429, "throttled")
        assert int(r["Retry-After"]) >= 1
    # the right password is not even checked while throttled: no session is made
    r = client.post("/admin/login/", {"username": "boss", "password": PASSWORD}, REMOTE_ADDR=peer)
    assert_problem(r, 429, "throttled")
    assert "_auth_user_id" not in client.session


@override_settings(THROTTLE_ADMIN_LOGIN_RATE="3/min")
def test_the_admin_login_form_is_throttled_per_username_across_addresses() -> None:
    Player.objects.create_user(username="boss2", password=PASSWORD, is_staff=True, is_superuser=True)
    client = Client()
    statuses = [
        client.post(
            "/admin/login/", {"username": "Boss2", "password": f"guess {n}"}, REMOTE_ADDR=next(_addresses)
        ).status_code
        for n in range(5)
    ]
    assert statuses == [200, 200, 200, 429, 429]
    # other accounts are not locked out by it, and a GET of the form is never throttled
    assert client.get("/admin/login/", REMOTE_ADDR=next(_addresses)).status_code == 200
    r = client.post("/admin/login/", {"username": "nobody", "password": "x"}, REMOTE_ADDR=next(_addresses))
    assert r.status_code == 200


@override_settings(MAX_TOKENS_PER_PLAYER=3)
def test_a_new_token_beyond_the_cap_revokes_the_least_recently_used_but_never_the_callers() -> None:
    Player.objects.create_user(username="collector", password=PASSWORD)
    client, peer = Client(), next(_addresses)
    tokens = []
    for _ in range(3):
        r = login(client, peer, "collector", PASSWORD)
        assert r.status_code == 201, r.content
        tokens.append(r.json())
    me = [client.get("/api/v1/me", headers={"Authorization": f"Bearer {t['token']}"}) for t in tokens]
    assert [r.status_code for r in me] == [200, 200, 200]
    # when each was last used: the first longest ago (but recently enough that using it now does not move
    # last_used_at, which moves at most once a minute); it is the one that asks for a new token, though,
    # and that one is never revoked
    now = timezone.now()
    for token, ago in zip(tokens, (30, 20, 10), strict=True):
        ApiToken.objects.filter(pk=token["id"]).update(last_used_at=now - timedelta(seconds=ago))
    auth = {"Authorization": f"Bearer {tokens[0]['token']}"}
    r = client.post("/api/v1/me/tokens", {"name": "bot"}, content_type="application/json", headers=auth)
    assert r.status_code == 201, r.content
    newest = r.json()
    listing = client.get("/api/v1/me/tokens", headers=auth)
    assert listing.status_code == 200, "the token that asked was revoked"
    listed = listing.json()
    assert sorted(t["id"] for t in listed) == sorted([tokens[0]["id"], tokens[2]["id"], newest["id"]])
    gone = client.get("/api/v1/me", headers={"Authorization": f"Bearer {tokens[1]['token']}"})
    assert_problem(gone, 401)
    assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {newest['token']}"}).status_code == 200
    # and logging in keeps working at the cap: still three live tokens
    assert login(client, peer, "collector", PASSWORD).status_code == 201
    assert ApiToken.objects.active().filter(player__username="collector").count() == 3


def test_the_default_cap_is_twenty_live_tokens() -> None:
    Player.objects.create_user(username="hoarder", password=PASSWORD)
    client, peer = Client(), next(_addresses)
    for _ in range(25):
        assert login(client, peer, "hoarder", PASSWORD).status_code == 201
    assert ApiToken.objects.active().filter(player__username="hoarder").count() == 20


# --- issue #28 items 10 and 11: failed authentication is limited ----------------------------------------
def bearer(client: Client, peer: str, token: str, xff: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    if xff is not None:
        headers["X-Forwarded-For"] = xff
    return client.get("/api/v1/me", headers=headers, REMOTE_ADDR=peer)


@override_settings(THROTTLE_LOGIN_FAILURE_RATE="3/min")
def test_issue28_item10_wrong_passwords_are_limited_per_username_across_rotating_addresses() -> None:
    """12 wrong passwords from 12 addresses then the right one all went through (each hashed): now the
    username's budget of wrong passwords is shared by every address, and beyond it even the right password
    waits, without being hashed (429 ``too_many_failed_logins`` with Retry-After within the window)."""
    Player.objects.create_user(username="guessme", password=PASSWORD)
    client = Client()
    statuses = [login(client, next(_addresses), "guessme", f"guess {n}").status_code for n in range(3)]
    assert statuses == [401, 401, 401]
    with patch("players.views.authenticate", wraps=authenticate) as hashing:
        for n in range(4):  # other addresses, other cases of the name: the same account's budget
            r = login(client, next(_addresses), "GuessMe" if n % 2 else "guessme", f"guess {n}")
            body = assert_problem(r, 429, "too_many_failed_logins")
        r = login(client, next(_addresses), "guessme", PASSWORD)
        body = assert_problem(r, 429, "too_many_failed_logins")
        assert hashing.call_count == 0  # no password was checked
    assert 1 <= int(r["Retry-After"]) <= 60
    assert body["retry_after"] == int(r["Retry-After"])
    assert not ApiToken.objects.filter(player__username="guessme").exists()
    # another account from the same addresses is not locked by it
    Player.objects.create_user(username="bystander", password=PASSWORD)
    assert login(client, next(_addresses), "bystander", PASSWORD).status_code == 201


@override_settings(THROTTLE_LOGIN_FAILURE_RATE="2/min", TRUSTED_PROXY_COUNT=1)
def test_issue28_item10_rotating_x_forwarded_for_behind_a_trusted_proxy_shares_the_username_budget() -> None:
    Player.objects.create_user(username="proxied2", password=PASSWORD)
    client, proxy = Client(), next(_addresses)
    statuses = [
        login(client, proxy, "proxied2", f"guess {n}", xff=f"203.0.113.{n}").status_code for n in range(4)
    ]
    assert statuses == [401, 401, 429, 429], statuses
    r = login(client, proxy, "proxied2", PASSWORD, xff="203.0.113.200")
    assert_problem(r, 429, "too_many_failed_logins")


@override_settings(THROTTLE_LOGIN_FAILURE_RATE="2/s")
def test_issue28_item10_a_lock_lasts_one_window_and_right_passwords_never_count() -> None:
    """Nobody can lock an account for long: the lock ends with the window that began with the first
    failure; and the owner's own logins do not use the budget."""
    Player.objects.create_user(username="owner", password=PASSWORD)
    client = Client()
    assert [login(client, next(_addresses), "owner", PASSWORD).status_code for _ in range(4)] == [201] * 4
    for n in range(3):
        r = login(client, next(_addresses), "owner", f"guess {n}")
    assert_problem(r, 429, "too_many_failed_logins")
    assert int(r["Retry-After"]) == 1
    time.sleep(1.2)
    assert login(client, next(_addresses), "owner", PASSWORD).status_code == 201


@override_settings(THROTTLE_AUTH_FAILURE_RATE="4/min")
def test_issue28_item10_wrong_passwords_for_many_usernames_are_limited_per_address() -> None:
    client, peer = Client(), next(_addresses)
    statuses = [login(client, peer, f"user{n}", "guess guess").status_code for n in range(6)]
    assert statuses == [401] * 4 + [429] * 2, statuses
    assert login(client, next(_addresses), "user9", "guess guess").status_code == 401  # other addresses


@override_settings(THROTTLE_AUTH_FAILURE_RATE="5/min")
def test_issue28_item11_failed_bearer_authentication_is_throttled_per_address() -> None:
    """150 bogus bearer tokens got 150 answers 401 and no 429 (a failing credential never reached the
    per-token or anonymous limits): now the failures from one address are counted, and beyond the limit the
    answer is 429 ``too_many_failed_authentications`` with Retry-After. Valid tokens are not affected, from
    that address or any other."""
    owner = Player.objects.create_user(username="tokenowner", password=PASSWORD)
    _token, raw = ApiToken.issue(owner, "t")
    client, attacker, other = Client(), next(_addresses), next(_addresses)
    bogus = ["gct_00000000_" + "x" * 40, "not-even-a-gct-token", raw + "tampered"]
    statuses = [bearer(client, attacker, bogus[n % 3]).status_code for n in range(8)]
    assert statuses == [401] * 5 + [429] * 3, statuses
    r = bearer(client, attacker, bogus[0])
    body = assert_problem(r, 429, "too_many_failed_authentications")
    assert 1 <= int(r["Retry-After"]) <= 60
    assert body["retry_after"] == int(r["Retry-After"])
    assert bearer(client, other, raw).status_code == 200  # a valid token from another address
    assert bearer(client, attacker, raw).status_code == 200  # and from the same one
    assert bearer(client, other, bogus[0]).status_code == 401  # other addresses keep their own budget
