from django.urls import path

from . import api, stream

urlpatterns = [
    path("me/inbox", api.InboxView.as_view(), name="my-inbox"),
    path("me/webhooks", api.WebhooksView.as_view(), name="my-webhooks"),
    path("me/webhooks/<int:webhook_id>", api.WebhookDetailView.as_view(), name="my-webhook"),
    path(
        "me/webhooks/<int:webhook_id>/deliveries", api.DeliveriesView.as_view(), name="my-webhook-deliveries"
    ),
    path("games/<int:game_id>/stream", stream.game_stream, name="game-stream"),
]
