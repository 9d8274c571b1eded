#!/usr/bin/env bash
# bench.sh — time `kcmtrace analyze` against ripgrep's fixed-string count on
# the same generated KCM log, in the same run, and check that every planted
# incident was found.
#
# usage: scripts/bench.sh [SIZE]            SIZE defaults to 1GiB; e.g. 128MiB for a quick run
# env:   SEED=1 ERA=legacy|structured|json RUNS=3
#        BENCH_DIR=${TMPDIR:-/tmp}/kcmtrace-bench   generated logs, reused (keyed by era+size+seed+generator)
#        KUBELET=1   also feed node B's kubelet log to both tools (0: the KCM log alone)
#
# Prints size, rg seconds and MiB/s, kcmtrace seconds and MiB/s, the ratio
# kcmtrace/rg, kcmtrace's peak RSS and the verdict on each planted incident.
# Wall time (date +%s%N around /usr/bin/time, which reports the peak RSS) is
# the best of RUNS; RSS is the largest seen. Exits 1 when an
# incident is missed (or a finding shows up on the clean move).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${1:-1GiB}
SEED=${SEED:-1}
ERA=${ERA:-legacy}
RUNS=${RUNS:-3}
KUBELET=${KUBELET:-1}
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/kcmtrace-bench}

say() { printf '%s\n' "$*" >&2; }

install_pkg() { # program package
	case $1 in
	/*) [ -x "$1" ] && return 0 ;;
	*) command -v "$1" >/dev/null 2>&1 && return 0 ;;
	esac
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "bench: installing $2 (apt-get)…"
		if ! apt-get install -y -qq "$2" >/dev/null 2>&1; then
			apt-get update -qq >/dev/null 2>&1 || true
			apt-get install -y -qq "$2" >/dev/null
		fi
	else
		say "bench: $1 not found: install the Debian package '$2' (sudo apt-get install -y $2)"
		exit 2
	fi
}
install_pkg rg ripgrep
install_pkg /usr/bin/time time
TIME=/usr/bin/time

mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/kcmgen" ./cmd/kcmgen

# the cache key includes a hash of the generator's sources: a changed
# generator never reuses a stale file
gen=$(find internal/loggen -name "*.go" ! -name "*_test.go" | sort | xargs cat | sha256sum | cut -c1-8)
base="$DIR/kcm-$ERA-$SIZE-seed$SEED-$gen"
log=$base.log kubelet=$base.kubelet.log manifest=$base.manifest.json
if [ ! -s "$log" ] || [ ! -s "$kubelet" ] || [ ! -s "$manifest" ]; then
	say "bench: generating $log …"
	"$tmp/kcmgen" -size "$SIZE" -era "$ERA" -seed "$SEED" -o "$log.part" -kubelet "$kubelet.part" -manifest "$manifest.part"
	mv "$kubelet.part" "$kubelet"
	mv "$log.part" "$log"
	mv "$manifest.part" "$manifest"
fi

inputs=("$log")
ignore=""
if [ "$KUBELET" = 1 ]; then
	inputs+=("$kubelet")
else
	ignore="-ignore mount-device-not-found"
fi
bytes=0
for f in "${inputs[@]}"; do bytes=$((bytes + $(stat -c %s "$f"))); done
cat "${inputs[@]}" >/dev/null # page cache: both tools read from memory

# best RUNS cmd... → sets best_s, peak_kb
measure() {
	best_s="" peak_kb=0
	for _ in $(seq "$RUNS"); do
		set +e
		t0=$(date +%s%N)
		"$TIME" -f '%e %M' -o "$tmp/time" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
		rc=$?
		t1=$(date +%s%N)
		set -e
		# rg exits 1 when nothing matched; analyze exits 1 on --fail-on findings
		if [ "$rc" -gt 1 ]; then
			say "bench: $1 failed (exit $rc):"
			cat "$tmp/stderr" >&2
			exit 2
		fi
		read -r _ kb < <(tail -n1 "$tmp/time") # GNU time: %e has 10 ms resolution, keep only %M
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
		if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then best_s=$s; fi
		if [ "$kb" -gt "$peak_kb" ]; then peak_kb=$kb; fi
	done
}
mibs() { awk -v b="$bytes" -v s="$1" 'BEGIN{ if (s<=0) s=0.005; printf "%.0f", b/1048576/s }'; }

measure rg --no-mmap -c -F -e reconciler.go -e operation_generator.go -e nestedpendingoperations.go "${inputs[@]}"
rg_s=$best_s rg_kb=$peak_kb
rg_count=$(awk -F: '{n+=$NF} END{print n+0}' "$tmp/stdout")

printf 'kcmtrace bench · %s era · seed %s · %s (%s bytes in %d file(s)) · best of %s\n' "$ERA" "$SEED" "$SIZE" "$bytes" "${#inputs[@]}" "$RUNS"
printf '  %-28s %7.3f s  %6s MiB/s  RSS %4d MiB  (%s matching lines)\n' "rg --no-mmap -c -F (3 tokens)" "$rg_s" "$(mibs "$rg_s")" $((rg_kb / 1024)) "$rg_count"

if [ ! -d cmd/kcmtrace ]; then
	say "bench: ./cmd/kcmtrace does not exist yet: only the generation/rg half was run"
	exit 0
fi
go build -o "$tmp/kcmtrace" ./cmd/kcmtrace
measure "$tmp/kcmtrace" analyze --format json --no-progress "${inputs[@]}"
k_s=$best_s k_kb=$peak_kb
cp "$tmp/stdout" "$tmp/out.json"
ratio=$(awk -v a="$k_s" -v b="$rg_s" 'BEGIN{ if (b<=0) b=0.005; printf "%.2f", a/b }')
printf '  %-28s %7.3f s  %6s MiB/s  RSS %4d MiB\n' "kcmtrace analyze --format json" "$k_s" "$(mibs "$k_s")" $((k_kb / 1024))
printf '  %-28s %7s   (target ≤ 1.5)\n' "ratio kcmtrace/rg" "$ratio"
printf '  %-28s %7d MiB (target ≤ 100)\n' "kcmtrace peak RSS" $((k_kb / 1024))
echo "  planted incidents ($manifest):"
# shellcheck disable=SC2086
"$tmp/kcmgen" verify -manifest "$manifest" -report "$tmp/out.json" $ignore
