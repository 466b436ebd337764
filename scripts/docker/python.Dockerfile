# A local stand-in for python:3.11-slim from Debian's packages (scripts/docker-images): Python 3.11, with
# `python` and `pip` on PATH installing into its own environment, as in the official image.
ARG BASE_IMAGE=critters-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /usr/local/python
ENV PATH=/usr/local/python/bin:$PATH LANG=C.UTF-8
CMD ["python3"]
