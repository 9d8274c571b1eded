#!/bin/sh
# Renders the README's screenshot of the terminal report (docs/terminal-report.png):
# the coloured text report of the seed-legacy incident at 110 columns, turned into
# HTML (scripts/ansi2html.py) and shot with headless chromium.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kcmtrace" ./cmd/kcmtrace
COLUMNS=110 "$tmp/kcmtrace" analyze --color always testdata/incidents/seed-legacy/ >"$tmp/report.ans" || true
python3 scripts/ansi2html.py <"$tmp/report.ans" >"$tmp/report.html"
chromium --headless --no-sandbox --hide-scrollbars --screenshot="$PWD/docs/terminal-report.png" \
	--window-size="${WIDTH:-1000},${HEIGHT:-900}" "file://$tmp/report.html"
