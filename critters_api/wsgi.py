"""WSGI entry point (gunicorn critters_api.wsgi:application)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "critters_api.settings")

application = get_wsgi_application()
