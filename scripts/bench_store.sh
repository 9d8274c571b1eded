#!/usr/bin/env bash
# bench_store.sh — analyse one incident straight from VictoriaLogs holding
# LINES generated KCM lines, against exporting the whole stream and
# analysing the file. Not part of `go test ./...`.
#
# usage: scripts/bench_store.sh [LINES]     LINES defaults to 10000000 (~2 GiB of log)
# env:   KCMTRACE_VICTORIALOGS=/path/to/victoria-logs   (else the copy vlogstest builds
#        into the user cache: go test ./livesource/ once), SEED=1,
#        BENCH_DIR=${TMPDIR:-/tmp}/kcmtrace-store-bench   (generated log and export, removed after)
#
# Generates LINES lines with cmd/kcmgen (legacy era), streams them into
# /insert/jsonline (one record a line, stream container=kube-controller-manager;
# 10 M lines take ~4 minutes on 2 shared cores, the whole run ~8), then
# times, with wall and CPU seconds and peak RSS from /usr/bin/time:
#   live    kcmtrace analyze vlogs+http://… over the first planted incident's window ± 5 min
#   export  the whole stream through /select/logsql/query into a file
#   file    kcmtrace analyze FILE over the same window
# and prints one Markdown table row per measure and the load average.
# Needs ~550 bytes of disk a line in BENCH_DIR at the peak (the export: 5.2 GiB at 10 M).
set -euo pipefail
cd "$(dirname "$0")/.."

LINES=${1:-10000000}
SEED=${SEED:-1}
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/kcmtrace-store-bench}
VL=${KCMTRACE_VICTORIALOGS:-$HOME/.cache/kcmtrace-tools/victorialogs-v1.52.1/victoria-logs}
[ -x "$VL" ] || { echo "bench_store: no VictoriaLogs at $VL (set KCMTRACE_VICTORIALOGS, or run go test ./livesource/ once)" >&2; exit 2; }
say() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }

rm -rf "$DIR" && mkdir -p "$DIR"
trap 'kill "$VLPID" 2>/dev/null || true; wait "$VLPID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
go build -o "$DIR/kcmgen" ./cmd/kcmgen
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$DIR/kcmtrace" ./cmd/kcmtrace # as a release builds it

# ~205 bytes a line in the legacy era; kcmgen sizes by bytes.
SIZE=$(( LINES * 205 ))
"$DIR/kcmgen" -size "$SIZE" -seed "$SEED" -o "$DIR/kcm.log" -manifest "$DIR/manifest.json" 2>/dev/null
GOT=$(wc -l < "$DIR/kcm.log")
read -r SINCE UNTIL VOLUME < <(python3 - "$DIR/manifest.json" <<'PY'
import json, sys, datetime as dt
m = json.load(open(sys.argv[1]))
i = m["incidents"][0]
p = lambda s: dt.datetime.fromisoformat(s.replace("Z", "+00:00")[:26] + "+00:00" if "." in s else s.replace("Z", "+00:00"))
f = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
print(f(p(i["start"]) - dt.timedelta(minutes=5)), f(p(i["end"]) + dt.timedelta(minutes=5)), i["volume"])
PY
)
say "bench_store: $GOT lines generated; incident window $SINCE → $UNTIL"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VL" -httpListenAddr=127.0.0.1:$PORT -storageDataPath="$DIR/vl" -retentionPeriod=100y -loggerLevel=ERROR >"$DIR/vl.log" 2>&1 &
VLPID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done

# Ingest, streamed (no intermediate file) as one chunked POST to
# /insert/jsonline: a record is only _time and _msg, the stream's labels
# are the request's extra_fields, not repeated on every line. A line
# without a klog header (a continuation) takes the time of the line before
# it. (Two parallel POSTs were no faster on 2 shared cores: the converter
# and the server take one core each.)
T0=$(now)
python3 - "$DIR/kcm.log" <<'PY' | curl -fsS -X POST -H 'Content-Type: application/stream+json' -T - \
	"http://127.0.0.1:$PORT/insert/jsonline?_stream_fields=container,namespace,pod&extra_fields=container=kube-controller-manager,namespace=kube-system,pod=kube-controller-manager-master-1" >/dev/null
import json, sys
dumps, out, t, buf = json.dumps, sys.stdout, "2024-08-12T00:00:00Z", []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line[:-1] if line.endswith("\n") else line
    if len(line) > 21 and line[0] in "IWEF" and line[5] == " " and line[1:5].isdigit():
        t = "2024-" + line[1:3] + "-" + line[3:5] + "T" + line[6:21] + "Z"
    buf.append('{"_time":"' + t + '","_msg":' + dumps(line) + '}\n')
    if len(buf) >= 10000:
        out.write("".join(buf))
        buf.clear()
out.write("".join(buf))
PY
curl -fsS "http://127.0.0.1:$PORT/internal/force_flush" >/dev/null
INGEST=$(python3 -c "print(round($(now)-$T0,1))")
STORED=$(curl -fsS "http://127.0.0.1:$PORT/select/logsql/query" --data-urlencode 'query=* | count() n' | jq -r .n)
say "bench_store: $STORED records stored in ${INGEST}s"
rm -f "$DIR/kcm.log"

measure() { # cmd...; prints "wall_seconds cpu_seconds rss_mib" (cpu: user+sys of cmd, not the server's)
	/usr/bin/time -f '%e %U %S %M' -o "$DIR/time" "$@"
	local e u s m
	read -r e u s m < "$DIR/time"
	python3 -c "print(round($e,2), round($u+$s,2), round($m/1024))"
}

URL=vlogs+http://127.0.0.1:$PORT
SEL='kcm=container:="kube-controller-manager"'
read -r LIVE_S LIVE_CPU LIVE_RSS < <(measure "$DIR/kcmtrace" analyze "$URL" --selector "$SEL" --since "$SINCE" --until "$UNTIL" --no-progress -o json --output-file "$DIR/live.json")
LIVE_LINES=$(jq '[.inputs[].fetch.records] | add' "$DIR/live.json")
read -r EXP_S EXP_CPU EXP_RSS < <(measure curl -fsS "http://127.0.0.1:$PORT/select/logsql/query" --data-urlencode 'query=container:="kube-controller-manager"' -o "$DIR/all.victorialogs.jsonl")
EXP_LINES=$(wc -l < "$DIR/all.victorialogs.jsonl")
EXP_MIB=$(( $(stat -c %s "$DIR/all.victorialogs.jsonl") >> 20 ))
read -r FILE_S FILE_CPU FILE_RSS < <(measure "$DIR/kcmtrace" analyze "$DIR/all.victorialogs.jsonl" --since "$SINCE" --until "$UNTIL" --no-progress -o json --output-file "$DIR/file.json")
FIND_LIVE=$(jq --arg v "$VOLUME" '[.findings[] | select(tostring | contains($v))] | length' "$DIR/live.json")
FIND_FILE=$(jq --arg v "$VOLUME" '[.findings[] | select(tostring | contains($v))] | length' "$DIR/file.json")

echo "stored lines: $STORED (ingested in ${INGEST}s); window $SINCE → $UNTIL; findings on $VOLUME: live $FIND_LIVE, file $FIND_FILE; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| way | lines fetched | seconds | CPU seconds | peak RSS |"
echo "|---|---:|---:|---:|---:|"
echo "| \`analyze vlogs+http://…\` (pushdown, the incident's window) | $LIVE_LINES | $LIVE_S | $LIVE_CPU | $LIVE_RSS MiB |"
echo "| export the whole stream (curl, $EXP_MIB MiB) | $EXP_LINES | $EXP_S | $EXP_CPU | $EXP_RSS MiB |"
echo "| then \`analyze FILE\` (same window) | — | $FILE_S | $FILE_CPU | $FILE_RSS MiB |"
