from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from critters_api import health, play
from critters_api.schema_view import SchemaView
from games.api import audit_views, rules_pages

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("api/v1/", include("players.urls")),
    path("api/v1/", include("games.api.urls")),
    path("games/<int:game_id>/replay", audit_views.replay_page, name="game-replay"),
    path("rules/", rules_pages.rules_index, name="rules-index"),  # the rulings, served (issue #24)
    path("rules/<str:game>", rules_pages.rules_page, name="rules-page"),
    path(".well-known/goodcritters-record-key", audit_views.record_key, name="record-key"),
    path("api/v1/", include("notifications.urls")),
    # the browser client (issue #22): one HTML shell for every /play/ address; it talks to /api/v1/ only
    path("", play.root, name="root"),
    path("play/", play.shell, name="play"),
    path("play/<path:path>", play.shell, name="play-page"),
]

handler400 = "critters_api.problems.handler400"
handler403 = "critters_api.problems.handler403"
handler404 = "critters_api.problems.handler404"
handler500 = "critters_api.problems.handler500"
