#!/bin/sh
# `redis-server [--option value ...]`: listen on every interface with protected mode off, as the official
# image does.
set -e
if [ "$1" = redis-server ] && { [ $# = 1 ] || case "$2" in --version | --help) false ;; --*) true ;; *) false ;; esac; }; then
  shift
  set -- redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
