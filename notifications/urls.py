from django.urls import path

from . import api, mail_api, stream

urlpatterns = [
    path("me/inbox", api.InboxView.as_view(), name="my-inbox"),
    path("me/webhooks", api.WebhooksView.as_view(), name="my-webhooks"),
    path("me/webhooks/<int:webhook_id>", api.WebhookDetailView.as_view(), name="my-webhook"),
    path(
        "me/webhooks/<int:webhook_id>/deliveries", api.DeliveriesView.as_view(), name="my-webhook-deliveries"
    ),
    path("me/email", mail_api.EmailView.as_view(), name="my-email"),
    path("me/notifications", mail_api.NotificationSettingsView.as_view(), name="my-notifications"),
    path("email/verify", mail_api.VerifyEmailView.as_view(), name="email-verify"),
    path("email/unsubscribe", mail_api.UnsubscribeView.as_view(), name="email-unsubscribe"),
    path("games/<int:game_id>/stream", stream.game_stream, name="game-stream"),
]
