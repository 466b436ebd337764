from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import ApiToken, Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Game", {"fields": ("display_name",)}))
    list_display = ("username", "display_name", "email", "is_staff", "date_joined")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "player", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "player__username")
    readonly_fields = ("player", "name", "prefix", "digest", "created_at", "last_used_at")

    def has_add_permission(self, request: object) -> bool:  # tokens are issued through the API only
        return False
