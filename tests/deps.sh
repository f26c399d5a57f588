#!/bin/sh
# Installs the Debian packages shardsh builds and tests with, only when something is missing.
# Called by `make deps` and `make test`, so a fresh machine needs no manual step.
set -e
PKGS="libmongoc-1.0 libbson-1.0 ncursesw libedit libssl libcrypto mozjs-102 libmicrohttpd"
TOOLS="tmux pkg-config valgrind jq clang clang-format g++ npm openssl curl"
missing=0
command -v pkg-config >/dev/null 2>&1 || missing=1
if [ "$missing" = 0 ]; then
   pkg-config --exists $PKGS || missing=1
fi
for t in $TOOLS; do command -v "$t" >/dev/null 2>&1 || missing=1; done
# the exporter's tests check its scrape and alert rules with promtool and scrape it with a real Prometheus (Debian's
# prometheus package: promtool and the server), installed on its own so that a machine that cannot get it still builds
# (tried once: a machine that cannot get it leaves .cache/deps-no-prometheus, so later builds do not try again)
prom_missing=0
command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || prom_missing=1
[ -f "$(dirname "$0")/../.cache/deps-no-prometheus" ] && prom_missing=0
[ "$missing" = 0 ] && [ "$prom_missing" = 0 ] && exit 0

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if [ "$missing" = 1 ]; then
   echo "deps: installing Debian packages (libmongoc-dev libbson-dev libncurses-dev libedit-dev libssl-dev libmozjs-102-dev libmicrohttpd-dev openssl tmux valgrind jq clang clang-format curl)" >&2
   $SUDO apt-get update -qq >&2
   $SUDO apt-get install -y -qq --no-install-recommends \
      build-essential pkg-config libmongoc-dev libbson-dev libncurses-dev libedit-dev libssl-dev libmozjs-102-dev \
      libmicrohttpd-dev openssl tmux valgrind jq clang clang-format curl >&2
fi
if [ "$prom_missing" = 1 ]; then
   echo "deps: installing Debian's prometheus (promtool and the server, for the exporter's tests)" >&2
   [ "$missing" = 1 ] || $SUDO apt-get update -qq >&2 || true
   if ! $SUDO apt-get install -y -qq --no-install-recommends prometheus >&2; then
      echo "deps: prometheus could not be installed: the exporter's promtool and Prometheus tests will be skipped" >&2
      mkdir -p "$(dirname "$0")/../.cache" && : > "$(dirname "$0")/../.cache/deps-no-prometheus"
   fi
   # the package starts a server on :9090 where systemd runs; the tests start their own on a free port
fi
# mongosh, the peer client of the comparison tests, comes from npm: Node.js only where the machine has none
command -v npm >/dev/null 2>&1 || $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >&2 || true
