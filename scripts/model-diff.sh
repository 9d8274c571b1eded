#!/usr/bin/env bash
# model-diff.sh — compare the outputs of two builds of kcmtrace, output by
# output, on generated logs of every traffic shape and era: the check that a
# change to the event store, the timeline or the report changed no byte.
# (TestModelOutputsUnchanged pins the same outputs at 4 MiB on every run;
# this runs them at any size, against any revision.)
#
# usage: scripts/model-diff.sh OLDREV [SIZE]     SIZE defaults to 64MiB (1GiB works)
# env:   SHAPES="default churn many-nodes" ERAS="legacy structured json" SEED=1
#        BENCH_DIR=${TMPDIR:-/tmp}/kcmtrace-bench   generated logs, shared with bench.sh
# Exits 1 when any output differs (the first differing lines are shown).
set -euo pipefail
cd "$(dirname "$0")/.."
OLDREV=${1:?usage: scripts/model-diff.sh OLDREV [SIZE]}
SIZE=${2:-64MiB}
SEED=${SEED:-1}
SHAPES=${SHAPES:-default churn many-nodes}
ERAS=${ERAS:-legacy structured json}
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/kcmtrace-bench}
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

git worktree add --detach -q "$tmp/old" "$OLDREV"
(cd "$tmp/old" && go build -o "$tmp/kcmtrace.old" ./cmd/kcmtrace)
go build -o "$tmp/kcmtrace.new" ./cmd/kcmtrace
go build -o "$tmp/kcmgen" ./cmd/kcmgen
gen=$(find internal/loggen -name "*.go" ! -name "*_test.go" | sort | xargs cat | sha256sum | cut -c1-8)

outputs=("analyze -o json" "analyze --color never" "analyze -o markdown" "events" "volumes --color never")
differ=0
for shape in $SHAPES; do
	for era in $ERAS; do
		base="$DIR/kcm-$shape-$era-$SIZE-seed$SEED-$gen"
		if [ ! -s "$base.log" ] || [ ! -s "$base.kubelet.log" ]; then
			echo "model-diff: generating $base.log …" >&2
			"$tmp/kcmgen" -size "$SIZE" -shape "$shape" -era "$era" -seed "$SEED" -o "$base.log.part" -kubelet "$base.kubelet.log.part" -manifest "$base.manifest.json"
			mv "$base.kubelet.log.part" "$base.kubelet.log"
			mv "$base.log.part" "$base.log"
		fi
		for o in "${outputs[@]}"; do
			# shellcheck disable=SC2086 # the output's words are its arguments
			"$tmp/kcmtrace.old" $o --no-progress "$base.log" "$base.kubelet.log" >"$tmp/old.out" 2>"$tmp/old.err" || [ $? -le 1 ]
			# shellcheck disable=SC2086
			"$tmp/kcmtrace.new" $o --no-progress "$base.log" "$base.kubelet.log" >"$tmp/new.out" 2>"$tmp/new.err" || [ $? -le 1 ]
			if cmp -s "$tmp/old.out" "$tmp/new.out" && cmp -s "$tmp/old.err" "$tmp/new.err"; then
				printf 'same     %-22s %-24s %s bytes\n' "$shape-$era" "$o" "$(stat -c %s "$tmp/new.out")"
			else
				differ=1
				printf 'DIFFERS  %-22s %-24s\n' "$shape-$era" "$o"
				diff "$tmp/old.out" "$tmp/new.out" | head -8 || true
				diff "$tmp/old.err" "$tmp/new.err" | head -4 || true
			fi
		done
	done
done
exit $differ
