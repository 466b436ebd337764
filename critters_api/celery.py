"""The Celery app (wiring only): broker on REDIS_URL, JSON only, late acks. Tasks live in the apps."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "critters_api.settings")

app = Celery("critters_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
