# The service image: one image for web, Celery worker and Celery beat (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY critters_api ./critters_api
COPY games ./games
COPY players ./players
COPY notifications ./notifications
COPY manage.py ./
RUN pip install . \
    && useradd --system --uid 10001 critters \
    && DJANGO_COLLECTSTATIC=1 SECRET_KEY=build-only python manage.py collectstatic --noinput

USER critters
EXPOSE 8000
# 3 processes x 8 threads served the most commands per second on 2 cores (bench/service.py); keep-alive
# longer than a proxy's idle timeout, so the proxy never reuses a connection the server is closing.
CMD ["gunicorn", "critters_api.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "8", "--keep-alive", "75", "--access-logfile", "-"]
