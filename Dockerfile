# The service image: one image for web, Celery worker and Celery beat (docker-compose.yml picks the command).
# BASE_IMAGE (unset or empty: python:3.11-slim): any image with Python 3.11 whose `python` and `pip` are on
# PATH; scripts/docker-images builds a local one from Debian's packages, for machines that reach no registry
# but Debian's and the package index.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE:-python:3.11-slim} AS app

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The package index, when not pip's default: given at build time (docker-compose.yml passes these from the
# environment when set; scripts/docker-images prints the host's). Unset or empty: pip ignores them.
ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
ARG PIP_TRUSTED_HOST

WORKDIR /app
# The pinned dependencies first, in a layer of their own: a code change rebuilds only the layers below.
COPY pyproject.toml ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
COPY README.md ./
COPY critters_api ./critters_api
COPY games ./games
COPY players ./players
COPY notifications ./notifications
COPY manage.py ./
RUN pip install --no-deps . \
    && useradd --system --uid 10001 critters

# The browser client (/play/, web/README.md), built in a stage of its own with Debian's Node.js and npm (none
# of it reaches the service image): the API types generated from this very code's spec, type-checked, bundled.
FROM app AS web
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null \
    && rm -rf /var/lib/apt/lists/*
COPY web/package.json web/package-lock.json ./web/
RUN cd web && npm ci --no-audit --no-fund
COPY web ./web
RUN mkdir -p var && SECRET_KEY=build-only python manage.py spectacular --format openapi-json --file var/web-schema.json \
    && cd web && npm run --silent types >/dev/null && npm run --silent check && npm run --silent build

FROM app
COPY --from=web /app/web/dist ./web/dist
RUN DJANGO_COLLECTSTATIC=1 SECRET_KEY=build-only python manage.py collectstatic --noinput

USER critters
EXPOSE 8000
# WEB_WORKERS processes x WEB_THREADS threads (bench/service.py, bench/README.md). 3 x 8 is the default: an event
# feed long-poll (`wait`) holds a thread, so threads are its capacity. With the request path as light as it is
# now, 4 x 2 serves 10-15% more commands per second with half the p99 on 2 cores, for deployments whose
# clients follow games on the stream service instead. Keep-alive longer than a proxy's idle timeout, so the
# proxy never reuses a connection the server is closing. Database connections: each process borrows from
# its own pool of at most DB_POOL_MAX_SIZE (default 10; a thread waits up to DB_POOL_TIMEOUT for one, then
# 503): WEB_WORKERS x DB_POOL_MAX_SIZE per container at most (docker-compose.yml adds them up). gunicorn's
# WSGI workers take REMOTE_ADDR from the socket; X-Forwarded-For counts only with TRUSTED_PROXY_COUNT.
CMD ["sh", "-c", "exec gunicorn critters_api.wsgi:application --config python:critters_api.gunicorn_conf --bind 0.0.0.0:8000 --workers \"${WEB_WORKERS:-3}\" --threads \"${WEB_THREADS:-8}\" --keep-alive 75 --access-logfile -"]
