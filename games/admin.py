"""Operators inspect players, games, seats and events. Events are read-only (no add, change or delete);
games cannot be deleted (their events are immutable)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import CommandResult, Event, Game, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "position", "player", "bot_strategy", "uid", "joined_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "name",
        "ruleset",
        "status",
        "creator",
        "seat_count",
        "version",
        "fair",
        "created_at",
    )
    list_filter = ("status", "ruleset", "fair", "allow_spectators")
    search_fields = ("id", "name", "creator__username")
    readonly_fields = (
        "ruleset",
        "creator",
        "seat_count",
        "options",
        "fair",
        "setup",
        "version",
        "head_hash",
        "revision",
        "step_no",
        "waiting_step",
        "deadline_at",
        "created_at",
        "started_at",
        "ended_at",
        "status",
    )
    inlines = [SeatInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("game", "index", "position", "player", "bot_strategy")
    search_fields = ("player__username", "game__id")
    readonly_fields = ("game", "index", "position", "player", "bot_strategy", "uid", "joined_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "type", "schema_version", "actor", "command_id", "created_at")
    list_filter = ("type",)
    search_fields = ("game__id", "command_id", "type")
    list_select_related = ("game", "actor")
    ordering = ("-game_id", "seq")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CommandResult)
class CommandResultAdmin(admin.ModelAdmin):
    list_display = ("player", "key", "game", "status_code", "created_at")
    search_fields = ("key", "player__username")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
