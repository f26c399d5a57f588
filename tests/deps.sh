#!/bin/sh
# Installs the Debian packages shardsh builds and tests with, only when something is missing.
# Called by `make deps` and `make test`, so a fresh machine needs no manual step.
set -e
PKGS="libmongoc-1.0 libbson-1.0 ncursesw libedit libssl libcrypto mozjs-102"
TOOLS="tmux pkg-config valgrind jq clang clang-format g++ npm openssl"
missing=0
command -v pkg-config >/dev/null 2>&1 || missing=1
if [ "$missing" = 0 ]; then
   pkg-config --exists $PKGS || missing=1
fi
for t in $TOOLS; do command -v "$t" >/dev/null 2>&1 || missing=1; done
[ "$missing" = 0 ] && exit 0

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
echo "deps: installing Debian packages (libmongoc-dev libbson-dev libncurses-dev libedit-dev libssl-dev libmozjs-102-dev openssl tmux valgrind jq clang clang-format)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends \
   build-essential pkg-config libmongoc-dev libbson-dev libncurses-dev libedit-dev libssl-dev libmozjs-102-dev \
   openssl tmux valgrind jq clang clang-format >&2
# mongosh, the peer client of the comparison tests, comes from npm: Node.js only where the machine has none
command -v npm >/dev/null 2>&1 || $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >&2 || true
