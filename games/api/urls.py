from django.urls import include, path

from . import audit_views, seat_views, views
from .command_views import COMMAND_VIEWS

urlpatterns = [
    path("games", views.GamesView.as_view(), name="games"),
    path("games/<int:game_id>", views.GameDetailView.as_view(), name="game"),
    path("games/<int:game_id>/join", views.JoinView.as_view(), name="game-join"),
    path("games/<int:game_id>/leave", views.LeaveView.as_view(), name="game-leave"),
    path("games/<int:game_id>/bots", views.BotsView.as_view(), name="game-bots"),
    path("games/<int:game_id>/start", views.StartView.as_view(), name="game-start"),
    path("games/<int:game_id>/cancel", views.CancelView.as_view(), name="game-cancel"),
    path("games/<int:game_id>/state", views.StateView.as_view(), name="game-state"),
    path("games/<int:game_id>/events", views.EventsView.as_view(), name="game-events"),
    path("me/games", views.MyGamesView.as_view(), name="my-games"),
    path("games/<int:game_id>/pause", seat_views.PauseView.as_view(), name="game-pause"),
    path("games/<int:game_id>/resume", seat_views.ResumeView.as_view(), name="game-resume"),
    path(
        "games/<int:game_id>/seats/<int:seat>/hand-over",
        seat_views.HandOverView.as_view(),
        name="game-seat-hand-over",
    ),
    path(
        "games/<int:game_id>/seats/<int:seat>/offer",
        seat_views.SeatOfferView.as_view(),
        name="game-seat-offer",
    ),
    path("me/offers", seat_views.MyOffersView.as_view(), name="my-offers"),
    path("me/offers/<int:offer_id>/accept", seat_views.OfferAcceptView.as_view(), name="my-offer-accept"),
    path("me/offers/<int:offer_id>/decline", seat_views.OfferDeclineView.as_view(), name="my-offer-decline"),
    path("games/<int:game_id>/record", audit_views.RecordView.as_view(), name="game-record"),
    path("games/<int:game_id>/verify", audit_views.VerifyView.as_view(), name="game-verify"),
    path("games/<int:game_id>/states/<int:seq>", audit_views.StateAtView.as_view(), name="game-state-at"),
    path("games/<int:game_id>/states", audit_views.StatesView.as_view(), name="game-states"),
    path("games/<int:game_id>/chart", audit_views.ChartView.as_view(), name="game-chart"),
    # the commands under one prefix: a request is matched against it once, not against each command's path
    path(
        "games/<int:game_id>/commands/",
        include([path(name, view.as_view(), name=f"game-command-{name}") for name, view in COMMAND_VIEWS]),
    ),
]
