# A local stand-in for the postgres image from Debian's postgresql-15 (scripts/docker-images), with the same
# interface: POSTGRES_DB, POSTGRES_USER and POSTGRES_PASSWORD create the database on first start, the data
# lives in /var/lib/postgresql/data (a volume), `postgres -c ...` as the command, pg_isready on PATH.
ARG BASE_IMAGE=critters-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
    && chmod 700 /var/lib/postgresql/data
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
USER postgres
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
