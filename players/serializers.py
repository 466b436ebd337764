from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from rest_framework import serializers

from critters_api.serializers import StrictCharField, StrictSerializer

from .models import ApiToken, Player


class SignUpInput(StrictSerializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, write_only=True, style={"input_type": "password"})
    display_name = StrictCharField(max_length=64, required=False, allow_blank=True)

    def validate_username(self, value: str) -> str:
        field = Player._meta.get_field("username")
        for validator in field.validators:
            try:
                validator(value)
            except Exception as exc:
                raise serializers.ValidationError(getattr(exc, "messages", [str(exc)])) from exc
        if Player.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("This username is taken.", code="username_taken")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = Player(username=attrs["username"], display_name=attrs.get("display_name", ""))
        try:
            password_validation.validate_password(attrs["password"], candidate)
        except Exception as exc:
            raise serializers.ValidationError(
                {"password": list(getattr(exc, "messages", [str(exc)]))}
            ) from exc
        return attrs


class PlayerOutput(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ("id", "username", "display_name", "date_joined", "is_staff")
        read_only_fields = fields


class ProfileInput(StrictSerializer):
    display_name = StrictCharField(max_length=64, allow_blank=True)


class TokenCreateInput(StrictSerializer):
    name = StrictCharField(max_length=64, help_text="A label, e.g. `laptop` or `my-bot`.")


class LoginTokenInput(StrictSerializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, style={"input_type": "password"})
    name = StrictCharField(max_length=64, required=False, default="default")


class TokenOutput(serializers.ModelSerializer):
    display = serializers.SerializerMethodField(help_text="The non-secret prefix, to tell tokens apart.")

    class Meta:
        model = ApiToken
        fields = ("id", "name", "display", "created_at", "last_used_at")
        read_only_fields = fields

    def get_display(self, obj: ApiToken) -> str:
        return f"gct_{obj.prefix}_…"


class TokenCreatedOutput(TokenOutput):
    token = serializers.CharField(help_text="The secret token: shown exactly once, store it now.")

    class Meta:
        model = ApiToken
        fields: tuple[str, ...] = (*TokenOutput.Meta.fields, "token")
        read_only_fields = fields
