#!/usr/bin/env bash
# bench.sh — time `kcmtrace analyze` against ripgrep's fixed-string count on
# the same generated KCM log, in the same run, and check that every planted
# incident was found.
#
# usage: scripts/bench.sh [SIZE]        one shape and era; SIZE defaults to 1GiB (e.g. 128MiB for a quick run)
#        scripts/bench.sh all [SIZE]    every shape × every era, one table
#        scripts/bench.sh scale         how cost grows: SIZES × SHAPES (ERA), CPU-s per GiB, one table
# env:   SHAPE=default|churn|many-nodes|storm ERA=legacy|structured|json SEED=1 RUNS=7 (the median of 7 pairs, as the budget is stated)
#        BENCH_DIR=${TMPDIR:-/tmp}/kcmtrace-bench   generated logs, reused (keyed by shape+era+size+seed+generator)
#        KUBELET=1   also feed node B's kubelet log to both tools (0: the KCM log alone)
#        OLD=path    also time this kcmtrace binary (e.g. one built from main, as the release builds it:
#                    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w"), interleaved with the new one
#        SIZES="128MiB 1GiB 4GiB" SHAPES="default churn"   for scale (all: SHAPES="default churn many-nodes storm")
#
# Each run executes rg, kcmtrace (and OLD) one after the other, RUNS times,
# so that a busy machine slows them alike. Printed per tool: the median CPU
# seconds (user+sys, /usr/bin/time) — the primary number on a shared machine
# —, the median wall seconds (date +%s%N around /usr/bin/time), the largest
# peak RSS, the ratio of kcmtrace's median wall time to rg's, and the
# collector's share of the CPU (one more run under GODEBUG=gctrace=1: the
# runtime's own figure since start). The load average and what fresh memory
# costs (scripts/memcost) are printed with every table; every input is read
# into the page cache afresh before it is timed (fresh_cache). Exits 1 when
# an incident is missed (or a finding shows up on the clean move).
set -euo pipefail
cd "$(dirname "$0")/.."

ALL=0
case ${1:-} in
all)
	ALL=1
	shift
	;;
scale)
	ALL=scale
	shift
	;;
esac
SIZE=${1:-1GiB}
SEED=${SEED:-1}
ERA=${ERA:-legacy}
SHAPE=${SHAPE:-default}
RUNS=${RUNS:-7}
KUBELET=${KUBELET:-1}
OLD=${OLD:-}
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
# kcmtrace is built as a release builds it (.goreleaser.yaml): what users
# run is static, without the C loader and libc a cgo build maps at start
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/kcmtrace" ./cmd/kcmtrace
go build -o "$tmp/memcost" ./scripts/memcost

# the cache key includes a hash of the generator's sources: a changed
# generator never reuses a stale file
gen=$(find internal/loggen -name "*.go" ! -name "*_test.go" | sort | xargs cat | sha256sum | cut -c1-8)

# generate SHAPE ERA → sets log kubelet manifest inputs ignore bytes
generate() {
	local base="$DIR/kcm-$1-$2-$SIZE-seed$SEED-$gen"
	log=$base.log kubelet=$base.kubelet.log manifest=$base.manifest.json
	if [ ! -s "$log" ] || [ ! -s "$kubelet" ] || [ ! -s "$manifest" ]; then
		say "bench: generating $log …"
		"$tmp/kcmgen" -size "$SIZE" -shape "$1" -era "$2" -seed "$SEED" -o "$log.part" -kubelet "$kubelet.part" -manifest "$manifest.part"
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
	fresh_cache "${inputs[@]}"
}

# fresh_cache FILE... → the files in the page cache, laid out as a first
# read lays them out. How long ago and how a file was cached changes what
# read(2) costs: a file read once, evicted in part (the VM's reclaim) and
# read again copied at half the speed of one read afresh (dd, 512 KiB
# blocks: 0.10 s against 0.05 s of system time a GiB), which moved rg's
# wall by a third from one shape's file to another's. Each file is
# dropped (dd iflag=nocache count=0: POSIX_FADV_DONTNEED) and read once, so
# that every shape and era meets the same layout, and every tool reads
# from memory.
fresh_cache() {
	local f
	for f in "$@"; do
		dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true
		cat "$f" >/dev/null
	done
}

# once NAME cmd... → appends "wall cpu kb" to $tmp/NAME.runs; stdout in $tmp/NAME.out
once() {
	local name=$1 rc t0 t1 e u s kb
	shift
	set +e
	t0=$(date +%s%N)
	"$TIME" -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>"$tmp/stderr"
	rc=$?
	t1=$(date +%s%N)
	set -e
	# rg exits 1 when nothing matched; analyze exits 1 on --fail-on findings
	if [ "$rc" -gt 1 ]; then
		say "bench: $1 failed (exit $rc):"
		cat "$tmp/stderr" >&2
		exit 2
	fi
	read -r e u s kb < <(tail -n1 "$tmp/time")
	awk -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" -v kb="$kb" 'BEGIN{printf "%.3f %.2f %d\n", (b-a)/1e9, u+s, kb}' >>"$tmp/$name.runs"
}

# stat NAME → sets wall cpu mib: the medians of wall and CPU, the largest RSS
stat_runs() {
	wall=$(cut -d' ' -f1 "$tmp/$1.runs" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
	cpu=$(cut -d' ' -f2 "$tmp/$1.runs" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
	mib=$(cut -d' ' -f3 "$tmp/$1.runs" | sort -n | tail -n1 | awk '{printf "%d", $1/1024}')
}

# bench_one SHAPE ERA → runs the interleaved pairs, sets the rg_/k_/o_ numbers and verdict
bench_one() {
	generate "$1" "$2"
	rm -f "$tmp"/*.runs
	for _ in $(seq "$RUNS"); do
		once rg rg --no-mmap -c -F -e reconciler.go -e operation_generator.go -e nestedpendingoperations.go "${inputs[@]}"
		once new "$tmp/kcmtrace" analyze --format json --no-progress "${inputs[@]}"
		if [ -n "$OLD" ]; then once old "$OLD" analyze --format json --no-progress "${inputs[@]}"; fi
	done
	stat_runs rg
	rg_wall=$wall rg_cpu=$cpu rg_mib=$mib
	stat_runs new
	k_wall=$wall k_cpu=$cpu k_mib=$mib
	if [ -n "$OLD" ]; then
		stat_runs old
		o_wall=$wall o_cpu=$cpu o_mib=$mib
	fi
	ratio=$(awk -v a="$k_wall" -v b="$rg_wall" 'BEGIN{ if (b<=0) b=0.005; printf "%.2f", a/b }')
	# the median of the pairs' own ratios: each pair ran back to back, so
	# a VM whose speed drifts between pairs moves both of its walls alike
	pair_ratio=$(paste -d' ' "$tmp/new.runs" "$tmp/rg.runs" |
		awk '{b=$4; if (b<=0) b=0.005; print $1/b}' | sort -g | awk '{v[NR]=$1} END{printf "%.2f", v[int((NR+1)/2)]}')
	# the collector's share: the last gctrace line's "N%" (CPU since start)
	gc=$(GODEBUG=gctrace=1 "$tmp/kcmtrace" analyze --format json --no-progress "${inputs[@]}" 2>&1 >/dev/null |
		awk '/^gc [0-9]+ @/{p=$4} END{sub(/%:?$/, "", p); print (p == "" ? "0" : p) "%"}')
	set +e
	# shellcheck disable=SC2086
	"$tmp/kcmgen" verify -manifest "$manifest" -report "$tmp/new.out" $ignore >"$tmp/verdict"
	verdict_rc=$?
	set -e
	if [ "$verdict_rc" = 0 ]; then verdict=found; else verdict=MISSED; fi
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# machine → what fresh memory costs this hour (scripts/memcost): kcmtrace
# pays it for its peak RSS and rg hardly at all, so it moves their ratio
# from one hour to the next (a 4 KiB page ~12 µs here; a 2 MiB page
# anywhere from 0.1 to 4 ms)
machine() { "$tmp/memcost" -mib 16 -runs 5 || echo "fresh memory: not measured"; }

# note_verdict → a table row's missed incidents on stderr, and failed=1
failed=0
note_verdict() {
	if [ "$verdict" != found ]; then
		failed=1
		cat "$tmp/verdict" >&2
	fi
}

if [ "$ALL" = 0 ]; then
	bench_one "$SHAPE" "$ERA"
	printf 'kcmtrace bench · %s shape · %s era · seed %s · %s (%s bytes in %d file(s)) · median of %s · load %s\n' \
		"$SHAPE" "$ERA" "$SEED" "$SIZE" "$bytes" "${#inputs[@]}" "$RUNS" "$(loadavg)"
	echo "  $(machine)"
	printf '  %-32s %6s CPU-s %7s s wall  RSS %4d MiB  (%s matching lines)\n' "rg --no-mmap -c -F (3 tokens)" "$rg_cpu" "$rg_wall" "$rg_mib" \
		"$(awk -F: '{n+=$NF} END{print n+0}' "$tmp/rg.out")"
	printf '  %-32s %6s CPU-s %7s s wall  RSS %4d MiB  (%s bytes of JSON)\n' "kcmtrace analyze --format json" "$k_cpu" "$k_wall" "$k_mib" "$(stat -c %s "$tmp/new.out")"
	if [ -n "$OLD" ]; then
		printf '  %-32s %6s CPU-s %7s s wall  RSS %4d MiB\n' "OLD ($OLD)" "$o_cpu" "$o_wall" "$o_mib"
	fi
	printf '  %-32s %6s   (wall, target ≤ 1.5)\n' "ratio kcmtrace/rg" "$ratio"
	printf '  %-32s %6s   (the median of the pairs\x27 own ratios)\n' "ratio by pair" "$pair_ratio"
	printf '  %-32s %6s   (GODEBUG=gctrace=1, CPU since start)\n' "collector's share" "$gc"
	echo "  planted incidents ($manifest):"
	cat "$tmp/verdict"
	exit "$verdict_rc"
fi

if [ "$ALL" = scale ]; then
	printf 'kcmtrace bench scale · %s era · seed %s · median of %s · load %s at start\n' "$ERA" "$SEED" "$RUNS" "$(loadavg)"
	machine
	echo '| shape | size | rg CPU-s | kcmtrace CPU-s | CPU-s per GiB | kcmtrace wall | peak RSS | GC share | incidents |'
	echo '|---|---|---|---|---|---|---|---|---|'
	for shape in ${SHAPES:-default churn}; do
		for SIZE in ${SIZES:-128MiB 1GiB 4GiB}; do
			bench_one "$shape" "$ERA"
			per=$(awk -v c="$k_cpu" -v b="$bytes" 'BEGIN{printf "%.2f", c/(b/1073741824)}')
			printf '| %s | %s | %s | %s | %s | %s | %s MiB | %s | %s |\n' "$shape" "$SIZE" "$rg_cpu" "$k_cpu" "$per" "$k_wall" "$k_mib" "$gc" "$verdict"
			note_verdict
		done
	done
	printf 'load %s at end; %s\n' "$(loadavg)" "$(machine)"
	exit "$failed"
fi

printf 'kcmtrace bench all · %s · seed %s · median of %s · load %s at start\n' "$SIZE" "$SEED" "$RUNS" "$(loadavg)"
machine
hdr='| shape | era | rg CPU-s | rg wall | kcmtrace CPU-s | kcmtrace wall | peak RSS | ratio (wall) | by pair | GC share |'
sep='|---|---|---|---|---|---|---|---|---|---|'
if [ -n "$OLD" ]; then
	hdr+=' old CPU-s | old wall | old RSS |'
	sep+='---|---|---|'
fi
printf '%s incidents |\n%s---|\n' "$hdr" "$sep"
for shape in ${SHAPES:-default churn many-nodes storm}; do
	for era in legacy structured json; do
		bench_one "$shape" "$era"
		row="| $shape | $era | $rg_cpu | $rg_wall | $k_cpu | $k_wall | $k_mib MiB | $ratio | $pair_ratio | $gc |"
		if [ -n "$OLD" ]; then row+=" $o_cpu | $o_wall | $o_mib MiB |"; fi
		printf '%s %s |\n' "$row" "$verdict"
		note_verdict
	done
done
printf 'load %s at end; %s\n' "$(loadavg)" "$(machine)"
exit "$failed"
