"""Notifications: the per-game live stream (ASGI), the cross-game inbox and signed webhooks (an outbox written
in the events' transaction, delivered by Celery). See docs/NOTIFICATIONS.md."""
