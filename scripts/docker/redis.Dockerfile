# A local stand-in for redis:7 from Debian's redis-server (scripts/docker-images). As in the official image,
# the server takes connections from other containers: protected mode is off (no password is set here either).
ARG BASE_IMAGE=critters-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
