"""Sign up, profile, API tokens. Thin views: validate, call the model/service, serialize."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from critters_api import throttling
from critters_api.problems import Problem

from .models import ApiToken, Player
from .serializers import (
    LoginTokenInput,
    PlayerOutput,
    ProfileInput,
    SignUpInput,
    TokenCreatedOutput,
    TokenCreateInput,
    TokenOutput,
)

_PLAYER_EXAMPLE = OpenApiExample(
    "player",
    value={
        "id": 7,
        "username": "bonnie",
        "display_name": "Bonnie",
        "date_joined": "2026-11-22T16:00:00Z",
        "is_staff": False,
    },
    response_only=True,
)
_TOKEN_EXAMPLE = OpenApiExample(
    "new token",
    value={
        "id": 3,
        "name": "laptop",
        "display": "gct_1a2b3c4d_…",
        "created_at": "2026-11-22T16:00:00Z",
        "last_used_at": None,
        "token": "gct_1a2b3c4d_Q2hhbmdlIG1lLCBJJ20gYW4gZXhhbXBsZSB0b2tlbg",
    },
    response_only=True,
)


def _me(request: Request) -> Player:
    user = request.user
    assert isinstance(user, Player)
    return user


class SignUpView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    @extend_schema(
        operation_id="players_sign_up",
        summary="Sign up",
        description="Create a player account (username + password; Django's password validators apply). "
        "Then get a token with `POST /api/v1/auth/tokens`.",
        request=SignUpInput,
        responses={201: PlayerOutput},
        examples=[
            OpenApiExample(
                "sign up",
                value={"username": "bonnie", "password": "a long passphrase 42", "display_name": "Bonnie"},
                request_only=True,
            ),
            _PLAYER_EXAMPLE,
        ],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        data = SignUpInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = Player.objects.create_user(
            username=data.validated_data["username"],
            password=data.validated_data["password"],
            display_name=data.validated_data.get("display_name", ""),
        )
        return Response(PlayerOutput(player).data, status=status.HTTP_201_CREATED)


class LoginTokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    problem_statuses = {"POST": (401, 429)}

    @extend_schema(
        operation_id="auth_tokens_create",
        summary="Log in: exchange username and password for a new API token",
        description="Creates a named API token for the player. The secret `token` is in this response only: "
        "it is stored hashed and can never be shown again. Send it as `Authorization: Bearer <token>`. "
        "A player has at most `MAX_TOKENS_PER_PLAYER` (default 20) live tokens: a new one revokes the least "
        "recently used beyond that. Attempts are rate-limited per client address (429 `throttled`), and "
        "wrong passwords per username tried, from any address (`THROTTLE_LOGIN_FAILURE_RATE`, default 5 in "
        "10 minutes) and per client address (`THROTTLE_AUTH_FAILURE_RATE`, default 30 a minute, failed "
        "bearer tokens included): beyond either, 429 `too_many_failed_logins` with `Retry-After`, and the "
        "password is not checked, until the window that began with the first failure ends (a right password "
        "is not counted; tokens already issued keep working).",
        request=LoginTokenInput,
        responses={201: TokenCreatedOutput},
        examples=[
            OpenApiExample(
                "log in",
                value={"username": "bonnie", "password": "a long passphrase 42", "name": "laptop"},
                request_only=True,
            ),
            _TOKEN_EXAMPLE,
        ],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        data = LoginTokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["username"]
        throttling.login_attempt(request, username)  # before the password is hashed
        player = authenticate(request._request, username=username, password=data.validated_data["password"])
        if player is None or not isinstance(player, Player):
            raise Problem(401, "invalid_credentials", "Wrong username or password.")
        throttling.login_succeeded(request, username)
        token, raw = ApiToken.issue(player, data.validated_data["name"])
        out = {**TokenOutput(token).data, "token": raw}
        return Response(out, status=status.HTTP_201_CREATED)


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_retrieve",
        summary="Your profile",
        description="The signed-in player's profile.",
        responses={200: PlayerOutput},
        examples=[_PLAYER_EXAMPLE],
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(PlayerOutput(_me(request)).data)

    @extend_schema(
        operation_id="me_update",
        summary="Change your profile",
        description="Change the display name shown to other players.",
        request=ProfileInput,
        responses={200: PlayerOutput},
        examples=[
            OpenApiExample("rename", value={"display_name": "Bonnie P."}, request_only=True),
            _PLAYER_EXAMPLE,
        ],
        tags=["players"],
    )
    def patch(self, request: Request) -> Response:
        data = ProfileInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        me = _me(request)
        if "display_name" in data.validated_data:
            me.display_name = data.validated_data["display_name"]
            me.save(update_fields=["display_name"])
        return Response(PlayerOutput(me).data)


class TokensView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_tokens_list",
        summary="Your API tokens",
        description="Your active (not revoked) API tokens, newest first. Secrets are never listed.",
        responses={200: TokenOutput(many=True)},
        examples=[
            OpenApiExample(
                "tokens",
                # one item: drf-spectacular lists a list response's example itself
                value={
                    "id": 3,
                    "name": "laptop",
                    "display": "gct_1a2b3c4d_…",
                    "created_at": "2026-11-22T16:00:00Z",
                    "last_used_at": "2026-11-22T16:05:00Z",
                },
                response_only=True,
            )
        ],
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        tokens = ApiToken.objects.active().filter(player=_me(request))
        return Response(TokenOutput(tokens, many=True).data)

    @extend_schema(
        operation_id="me_tokens_create",
        summary="Create an API token",
        description="A new named token (for a client or a bot). The secret is in this response only. A "
        "player has at most `MAX_TOKENS_PER_PLAYER` (default 20) live tokens: a new one revokes the least "
        "recently used beyond that (it answers 401 from then on), never the token this request came with.",
        request=TokenCreateInput,
        responses={201: TokenCreatedOutput},
        examples=[OpenApiExample("create", value={"name": "my-bot"}, request_only=True), _TOKEN_EXAMPLE],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        data = TokenCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        current = request.auth if isinstance(request.auth, ApiToken) else None
        token, raw = ApiToken.issue(_me(request), data.validated_data["name"], keep=current)
        out = {**TokenOutput(token).data, "token": raw}
        return Response(out, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_tokens_revoke",
        summary="Revoke an API token",
        description="The token stops working at once (401 from then on). Revoking twice is a 404.",
        request=None,
        responses={204: None},
        tags=["players"],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        with transaction.atomic():
            updated = (
                ApiToken.objects.active()
                .filter(player=_me(request), pk=token_id)
                .update(revoked_at=timezone.now())
            )
        if not updated:
            raise Problem(404, "not_found", "No such active token.")
        return Response(status=status.HTTP_204_NO_CONTENT)
