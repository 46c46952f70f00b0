#!/usr/bin/env bash
# The browser tests drive Debian's chromium (never a downloaded one): install it when it is missing.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "chromium: $("$CHROMIUM" --version 2>/dev/null || echo present)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium is missing at $CHROMIUM; install Debian's chromium package (or set CHROMIUM_PATH)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
echo "chromium: $("$CHROMIUM" --version)"
