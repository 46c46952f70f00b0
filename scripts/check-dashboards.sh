#!/usr/bin/env bash
# Checks the shipped Prometheus alert rules with promtool: syntax (check rules) and behaviour (test rules).
# promtool comes from PATH, or from Debian's prometheus package, unpacked (not installed) under ~/.cache/roster.
# The dashboard's metric names are checked against a live /metrics by tests/observability/dashboards.test.ts.
set -euo pipefail
cd "$(dirname "$0")/.."

PROMTOOL=$(command -v promtool || true)
if [ -z "$PROMTOOL" ]; then
  CACHE="$HOME/.cache/roster/promtool"
  PROMTOOL="$CACHE/usr/bin/promtool"
  if [ ! -x "$PROMTOOL" ]; then
    echo "== fetching promtool (Debian package prometheus, unpacked only)" >&2
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
    # apt-get download needs the package lists; an empty cache (a fresh machine) has none.
    (cd "$WORK" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -qq && apt-get download prometheus >/dev/null; }; })
    mkdir -p "$CACHE"
    dpkg-deb -x "$WORK"/prometheus_*.deb "$WORK/x"
    mkdir -p "$CACHE/usr/bin"
    cp "$WORK/x/usr/bin/promtool" "$PROMTOOL"
  fi
fi

"$PROMTOOL" check rules docs/prometheus/roster-alerts.yml
"$PROMTOOL" test rules docs/prometheus/roster-alerts.test.yml
