package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kcmtrace/kcmtrace/parser"
)

// Bad input (docs/DESIGN.md "Bad input", issue 7): every case passes a broken or
// hostile input beside the seed incident (testdata/incidents/seed-legacy)
// and checks that
//
//   - the exit code is the contract's: 3 when an input could not be read
//     (whole or in part), 2 for usage errors, else 0/1 per --fail-on;
//   - stderr carries the one-line message, naming the file (and the line
//     where one applies);
//   - the good input beside it is still analysed (the seed incident's
//     attach-before-detach is found);
//   - every physical line is accounted for (parser.Input.Unaccounted), and
//     the JSON inputs block says lines / relevant / events / unknown /
//     skipped-by-reason for every input, as the parser counted them.

// badInputCase is one row of TestBadInput. In args, files and stdin, "$D" is
// the case's temporary directory and "$SEED" the seed incident directory
// (absolute paths: runEnv is run without changing directory).
type badInputCase struct {
	name  string
	files map[string][]byte // relative to $D; a name ending in "/" is a directory
	mode  map[string]os.FileMode
	stdin []byte // what "-" reads
	skip  func() string

	args       []string
	wantExit   int
	wantStderr string // regexp, multi-line mode; "" means stderr must be empty
	wantStdout string // regexp, multi-line mode

	// check, when set, looks at the inputs as the parser reads them.
	check func(t *testing.T, results []parser.Result)
}

func TestBadInput(t *testing.T) {
	seedDir := absFixture(t, "incidents", "seed-legacy")
	seedKCM := readFixture(t, "incidents", "seed-legacy", "kcm.log")
	kcmLines := strings.SplitAfter(string(seedKCM), "\n")
	attachOK := firstLine(t, seedKCM, "AttachVolume.Attach succeeded")
	realLog := readFixture(t, "real-logs", "008-tencent-cbs-csi-zonenotmatch-attach-retry.log")

	const seedFound = `attach-before-detach`

	cases := []badInputCase{
		{
			name:       "missing file",
			args:       []string{"analyze", "$D/missing.log", "$SEED"},
			wantExit:   exitInput,
			wantStderr: `^kcmtrace: open \S*/missing\.log: no such file or directory$`,
			wantStdout: seedFound,
		},
		{
			name:       "unreadable file",
			files:      map[string][]byte{"secret.log": []byte(attachOK)},
			mode:       map[string]os.FileMode{"secret.log": 0},
			skip:       skipAsRoot,
			args:       []string{"analyze", "$D/secret.log", "$SEED"},
			wantExit:   exitInput,
			wantStderr: `^kcmtrace: open \S*/secret\.log: permission denied$`,
			wantStdout: seedFound,
		},
		{
			// What root cannot be denied: a file that opens but fails to read.
			name:       "read error",
			skip:       skipUnlessLinux,
			args:       []string{"analyze", "/proc/self/mem", "$SEED"},
			wantExit:   exitInput,
			wantStderr: `^kcmtrace: /proc/self/mem: read error: .*input/output error after 0 lines; the lines read are kept$`,
			wantStdout: seedFound,
		},
		{
			name:       "directory without logs",
			files:      map[string][]byte{"nologs/": nil, "nologs/notes.md": []byte("# notes\n"), "nologs/pod.yaml": []byte("kind: Pod\n")},
			args:       []string{"analyze", "$D/nologs", "$SEED"},
			wantExit:   exitInput,
			wantStderr: `^kcmtrace: \S*/nologs: directory holds no log files \(\*\.log, .*\)$`,
			wantStdout: seedFound,
		},
		{
			name:       "empty file",
			files:      map[string][]byte{"empty.log": {}},
			args:       []string{"analyze", "$D/empty.log", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/empty\.log: empty input$`,
			wantStdout: seedFound,
		},
		{
			name:       "empty stdin",
			stdin:      []byte{},
			args:       []string{"analyze", "-", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: -: empty input$`,
			wantStdout: seedFound,
		},
		{
			name:       "binary junk on stdin",
			stdin:      randomBytes(1, 8192),
			args:       []string{"analyze", "-", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: -:\d+: binary data \(NUL bytes\) skipped$`,
			wantStdout: seedFound,
			check:      wantSkipped(0, parser.SkipBinary),
		},
		{
			name:       "random bytes",
			files:      map[string][]byte{"random.bin": randomBytes(2, 64<<10)},
			args:       []string{"analyze", "$D/random.bin", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/random\.bin:\d+: binary data \(NUL bytes\) skipped$`,
			wantStdout: seedFound,
			check:      wantSkipped(0, parser.SkipBinary),
		},
		{
			name:       "ELF executable",
			files:      map[string][]byte{"kube-controller-manager": elfBytes()},
			args:       []string{"analyze", "$D/kube-controller-manager", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/kube-controller-manager:1: binary data \(NUL bytes\) skipped$`,
			wantStdout: seedFound,
			check:      wantSkipped(0, parser.SkipBinary),
		},
		{
			// A NUL inside a klog line: that line is skipped as binary (and
			// counted), the lines around it still parse.
			name:       "NUL byte inside a klog line",
			files:      map[string][]byte{"nul.log": []byte(attachOK + strings.Replace(attachOK, "succeeded", "succ\x00eeded", 1) + attachOK)},
			args:       []string{"analyze", "$D/nul.log", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/nul\.log:2: binary data \(NUL bytes\) skipped$`,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				wantSkipped(0, parser.SkipBinary)(t, rs)
				wantKinds(t, rs[0], parser.AttachSucceeded, 2)
			},
		},
		{
			// Invalid UTF-8 is not worth a message: the line is understood
			// and its text carries U+FFFD instead of the bad bytes.
			name:       "invalid UTF-8",
			files:      map[string][]byte{"utf8.log": []byte(attachOK + strings.Replace(attachOK, "for volume", "for \xff\xfe\xc3 volume", 1) + attachOK)},
			args:       []string{"analyze", "$D/utf8.log", "$SEED"},
			wantExit:   exitOK,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				wantKinds(t, rs[0], parser.AttachSucceeded, 3)
				for _, ev := range rs[0].Events {
					if !utf8.ValidString(ev.Text.String()) || !utf8.ValidString(ev.Error) {
						t.Errorf("line %d: event text is not valid UTF-8: %q", ev.Source.Line, ev.Text)
					}
				}
			},
		},
		{
			// The seed's KCM log with CRLF line ends, beside its kubelet log:
			// every event still parses, so the incident is still found.
			name:       "CRLF line ends",
			files:      map[string][]byte{"kcm-crlf.log": bytes.ReplaceAll(seedKCM, []byte("\n"), []byte("\r\n"))},
			args:       []string{"analyze", "$D/kcm-crlf.log", "$SEED/kubelet.log"},
			wantExit:   exitOK,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				want := parser.ParseReader(bytes.NewReader(seedKCM), "kcm.log", parser.Options{})
				if got := len(rs[0].Events); got != len(want.Events) || got == 0 {
					t.Errorf("CRLF: %d events, LF: %d", got, len(want.Events))
				}
				wantKinds(t, rs[0], parser.AttachSucceeded, countKind(want, parser.AttachSucceeded))
				wantKinds(t, rs[0], parser.AttachFailed, countKind(want, parser.AttachFailed))
				for _, ev := range rs[0].Events {
					if strings.Contains(ev.Text.String(), "\r") || strings.Contains(ev.Error, "\r") || strings.Contains(ev.Node, "\r") {
						t.Errorf("line %d: CR kept in the event: %q", ev.Source.Line, ev.Text)
						break
					}
				}
			},
		},
		{
			// A .gz cut at two thirds: the file is named, what could be read is
			// analysed, and the exit code says the input was not read whole.
			name:       "truncated gzip",
			files:      map[string][]byte{"kcm.log.gz": truncatedGzip(t, realLog)},
			args:       []string{"analyze", "$D/kcm.log.gz", "$SEED"},
			wantExit:   exitInput,
			wantStderr: `^kcmtrace: \S*/kcm\.log\.gz: truncated gzip \(unexpected EOF\) after \d+ lines; the lines read are kept$`,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				in := rs[0].Input
				if !in.Truncated || in.Lines == 0 || in.Events == 0 {
					t.Errorf("truncated gzip: truncated %v, %d lines, %d events; want the lines read kept", in.Truncated, in.Lines, in.Events)
				}
			},
		},
		{
			name:       "half-written last line",
			files:      map[string][]byte{"half.log": []byte(attachOK + attachOK + attachOK[:70])},
			args:       []string{"analyze", "$D/half.log", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/half\.log:3: last line has no newline \(half-written\?\); parsed as is$`,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				wantKinds(t, rs[0], parser.AttachSucceeded, 2)
				if rs[0].Input.Lines != 3 {
					t.Errorf("half-written: %d lines, want 3", rs[0].Input.Lines)
				}
			},
		},
		{
			// 20 MiB on one line: cut at the 16 MiB cap, counted as too-long.
			name:       "line of 20 MiB",
			files:      map[string][]byte{"big.log": longLineLog(attachOK, 20<<20)},
			args:       []string{"analyze", "$D/big.log", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/big\.log:3: line longer than 16777216 bytes skipped$`,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				wantSkipped(0, parser.SkipTooLong)(t, rs)
				wantKinds(t, rs[0], parser.AttachSucceeded, 3)
			},
		},
		{
			name:  "absurd timestamps",
			files: map[string][]byte{"absurd.log": []byte(attachOK + "I1312" + attachOK[5:] + "I0800" + attachOK[5:] + "I0812 25" + attachOK[8:] + attachOK)},
			args:  []string{"analyze", "$D/absurd.log", "$SEED"},
			// Month 13, day 00, hour 25: kept without a time, one message each.
			wantExit: exitOK,
			wantStderr: `(?s)^kcmtrace: \S*/absurd\.log:2: invalid timestamp "1312 [^"]*"; entry kept without time\n` +
				`kcmtrace: \S*/absurd\.log:3: invalid timestamp "0800 [^"]*"; entry kept without time\n` +
				`kcmtrace: \S*/absurd\.log:4: invalid timestamp "0812 25[^"]*"; entry kept without time$`,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				wantKinds(t, rs[0], parser.AttachSucceeded, 5)
			},
		},
		{
			// A retry deadline in year 0 is ignored as evidence of the year.
			name:       "year 0 in a retry deadline",
			files:      map[string][]byte{"year0.log": []byte(attachOK + yearZeroDeadline(t, seedKCM) + attachOK)},
			args:       []string{"analyze", "$D/year0.log", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/year0\.log:2: implausible year 0 in retry deadline ignored$`,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				wantKinds(t, rs[0], parser.AttachSucceeded, 2)
				wantKinds(t, rs[0], parser.AttachFailed, 1)
				if y := rs[0].Input.Year; y < 1970 {
					t.Errorf("year %d (%s)", y, rs[0].Input.YearFrom)
				}
			},
		},
		{
			// A paste in reverse order: sorted back, no complaint.
			name:       "reversed lines",
			files:      map[string][]byte{"kcm-reversed.log": []byte(strings.Join(reversed(kcmLines), ""))},
			args:       []string{"analyze", "$D/kcm-reversed.log", "$SEED/kubelet.log"},
			wantExit:   exitOK,
			wantStdout: seedFound,
		},
		{
			// The same file twice (a glob and a directory overlapping):
			// identical lines from the two inputs count once.
			name:       "same file passed twice",
			args:       []string{"analyze", "--format", "json", "$SEED/kcm.log", "$SEED/kcm.log", "$SEED/kubelet.log"},
			wantExit:   exitOK,
			wantStdout: seedFound,
		},
		{
			// The 1.24–1.27 InfoS form of attach-started dumps the scheduled
			// pods' whole String(): here 10 MiB of it on one structured line
			// (512 KiB with -short: under the race detector 10 MiB take 13 s).
			name:       "10 MiB struct dump in a structured line",
			files:      map[string][]byte{"dump.log": structDumpLog(t, map[bool]int{false: 10 << 20, true: 512 << 10}[testing.Short()])},
			args:       []string{"analyze", "$D/dump.log", "$SEED"},
			wantExit:   exitOK,
			wantStdout: seedFound,
			check: func(t *testing.T, rs []parser.Result) {
				evs := rs[0].Events
				if len(evs) != 1 || evs[0].Kind != parser.AttachStarted || evs[0].Node != "10.0.3.27" || evs[0].Pod != "default/mysql-0" ||
					evs[0].Volume != "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz" {
					t.Errorf("struct dump: want one attach-started to 10.0.3.27 for default/mysql-0, got %s", eventsSummary(evs))
				}
			},
		},
		{
			// Escape sequences inside the error text of the seed's failed
			// attaches (which the report quotes as evidence).
			name:       "ANSI, OSC, BEL, BS in log text",
			files:      map[string][]byte{"kcm-ansi.log": hostileSeed(seedKCM)},
			args:       []string{"analyze", "$D/kcm-ansi.log", "$SEED/kubelet.log"},
			wantExit:   exitOK,
			wantStdout: seedFound,
		},
		{
			name:       "bad input with --fail-on: findings decide",
			files:      map[string][]byte{"random.bin": randomBytes(3, 4096)},
			args:       []string{"analyze", "--fail-on", "critical", "$D/random.bin", "$SEED"},
			wantExit:   exitFindings,
			wantStderr: `^kcmtrace: \S*/random\.bin:\d+: binary data \(NUL bytes\) skipped`,
			wantStdout: seedFound,
		},
		{
			name:       "unreadable input with --fail-on: 3 wins",
			args:       []string{"analyze", "--fail-on", "critical", "$D/missing.log", "$SEED"},
			wantExit:   exitInput,
			wantStderr: `^kcmtrace: open \S*/missing\.log: no such file or directory$`,
			wantStdout: seedFound,
		},
		{
			name:       "export: JSON document truncated",
			files:      map[string][]byte{"cw.json": cloudwatchTruncated()},
			args:       []string{"analyze", "$D/cw.json", "$SEED"},
			wantExit:   exitInput, // read in part
			wantStderr: `^kcmtrace: \S*/cw\.json:\d+: cloudwatch \(events\): JSON document cut off inside the record that starts on line \d+ \(truncated\?\); the records before it were read$`,
			wantStdout: seedFound,
			check:      wantAttach(0, 1, 1),
		},
		{
			name:       "export: JSON array cut mid-record",
			files:      map[string][]byte{"gke.json": gcpArrayCut()},
			args:       []string{"analyze", "$D/gke.json", "$SEED"},
			wantExit:   exitInput, // read in part
			wantStderr: `^kcmtrace: \S*/gke\.json:\d+: gcp \(logentry\): JSON document cut off inside the record that starts on line \d+`,
			wantStdout: seedFound,
			check:      wantAttach(0, 1, 1),
		},
		{
			name:       "export: mixed envelopes in one file",
			files:      map[string][]byte{"mixed.jsonl": gcpSinkMixed()},
			args:       []string{"analyze", "$D/mixed.jsonl", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/mixed\.jsonl:3: gcp \(logentry\): record without a message`,
			wantStdout: seedFound,
			check:      wantAttach(0, 1, 1),
		},
		{
			name:       "export: record without time",
			files:      map[string][]byte{"notime.jsonl": gcpSinkNoTime()},
			args:       []string{"analyze", "$D/notime.jsonl", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/notime\.jsonl:2: gcp \(logentry\): record without a usable time$`,
			wantStdout: seedFound,
			check:      wantAttach(0, 1, 1),
		},
		{
			name:       "export: journald byte-array MESSAGE with invalid UTF-8",
			files:      map[string][]byte{"journal.json": journalByteMessage()},
			args:       []string{"analyze", "$D/journal.json", "$SEED"},
			wantExit:   exitOK,
			wantStderr: `^kcmtrace: \S*/journal\.json:1: journald-json \(json\): message is not valid UTF-8; invalid bytes replaced with U\+FFFD$`,
			wantStdout: seedFound,
			check:      wantAttach(0, 1, 1),
		},
		{
			name:       "usage error is 2 before any input is read",
			files:      map[string][]byte{"random.bin": randomBytes(4, 4096)},
			args:       []string{"analyze", "--input-format", "yaml", "$D/random.bin", "$SEED"},
			wantExit:   exitUsage,
			wantStderr: `input-format`,
		},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != nil {
				if why := tc.skip(); why != "" {
					t.Skip(why)
				}
			}
			dir := t.TempDir()
			expand := func(s string) string {
				return strings.NewReplacer("$D", dir, "$SEED", seedDir).Replace(s)
			}
			writeFiles(t, dir, tc.files, tc.mode)
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = expand(a)
			}

			code, stdout, stderr := runWithStdin(t, args, tc.stdin)
			if code != tc.wantExit {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.wantExit, stderr)
			}
			switch {
			case tc.wantStderr == "" && stderr != "":
				t.Errorf("stderr not empty:\n%s", stderr)
			case tc.wantStderr != "" && !regexp.MustCompile("(?m)"+tc.wantStderr).MatchString(stderr):
				t.Errorf("stderr does not match %s:\n%s", tc.wantStderr, stderr)
			}
			for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
				if l != "" && !strings.HasPrefix(l, "kcmtrace: ") {
					t.Errorf("stderr line without the kcmtrace: prefix (a message broken over lines?): %q", l)
				}
			}
			if tc.wantStdout != "" && !regexp.MustCompile("(?m)"+tc.wantStdout).MatchString(stdout) {
				t.Errorf("stdout does not match %s:\n%s", tc.wantStdout, stdout)
			}
			assertTerminalSafe(t, "stdout", stdout, false)
			assertTerminalSafe(t, "stderr", stderr, false)
			if tc.wantExit == exitUsage {
				return
			}

			paths := inputPaths(args)
			var results []parser.Result
			results, _ = parser.ParseAll(paths, parser.Options{Stdin: bytes.NewReader(tc.stdin)})
			for _, r := range results {
				checkAccounting(t, r)
			}
			if tc.check != nil {
				tc.check(t, results)
			}
			checkJSONInputs(t, paths, tc.stdin, results)
		})
	}
}

// TestBadInputSameFileTwice: the events of a file given twice count once.
func TestBadInputSameFileTwice(t *testing.T) {
	seed := absFixture(t, "incidents", "seed-legacy")
	once := analyzeJSON(t, []string{filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kubelet.log")}, nil)
	twice := analyzeJSON(t, []string{filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kubelet.log")}, nil)
	if a, b := volumeEvents(once), volumeEvents(twice); a != b || a == 0 {
		t.Errorf("volume events: %d once, %d with kcm.log twice", a, b)
	}
	if a, b := len(once.Findings), len(twice.Findings); a != b {
		t.Errorf("findings: %d once, %d with kcm.log twice", a, b)
	}
}

// TestBadInputDuplicatedLines: a log pasted twice into one file (a common
// ticket attachment) should not double the failure counts.
func TestBadInputDuplicatedLines(t *testing.T) {
	seed := absFixture(t, "incidents", "seed-legacy")
	kcm := readFixture(t, "incidents", "seed-legacy", "kcm.log")
	dir := t.TempDir()
	doubled := filepath.Join(dir, "kcm-doubled.log")
	writeFiles(t, dir, map[string][]byte{"kcm-doubled.log": append(slices.Clip(kcm), kcm...)}, nil)
	once := analyzeJSON(t, []string{filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kubelet.log")}, nil)
	twice := analyzeJSON(t, []string{doubled, filepath.Join(seed, "kubelet.log")}, nil)
	if a, b := volumeEvents(once), volumeEvents(twice); a != b {
		t.Errorf("volume events: %d once, %d with every line twice", a, b)
	}
}

// TestBadInputNULPadding: after a node crash, a log file often holds a run
// of NUL bytes (blocks allocated but never written) directly followed by the
// next line the restarted process wrote. That line is good and must not be
// skipped with the padding.
func TestBadInputNULPadding(t *testing.T) {
	attachOK := firstLine(t, readFixture(t, "incidents", "seed-legacy", "kcm.log"), "AttachVolume.Attach succeeded")
	res := parser.ParseReader(strings.NewReader(attachOK+strings.Repeat("\x00", 4096)+attachOK+attachOK), "padded.log", parser.Options{})
	checkAccounting(t, res)
	wantKinds(t, res, parser.AttachSucceeded, 3)
}

// TestBadInputJSONAccountingCloses: a reader of the JSON inputs block can
// check that nothing vanished, lines == event_lines + irrelevant +
// sum(skipped), as parser.Input.Unaccounted does (names as in parser's
// golden summaries, parser/parse_test.go).
func TestBadInputJSONAccountingCloses(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"random.bin": randomBytes(6, 16<<10)}, nil)
	code, stdout, stderr := runWithStdin(t, []string{"analyze", "--format", "json", filepath.Join(dir, "random.bin"), absFixture(t, "incidents", "seed-legacy")}, nil)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var doc struct {
		Inputs []map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, in := range doc.Inputs {
		var lines, eventLines, irrelevant int
		var skipped map[string]int
		for key, dst := range map[string]any{"lines": &lines, "event_lines": &eventLines, "irrelevant": &irrelevant, "skipped": &skipped} {
			if in[key] == nil {
				t.Errorf("input %s: no %q", in["path"], key)
			} else if err := json.Unmarshal(in[key], dst); err != nil {
				t.Errorf("input %s: %q: %v", in["path"], key, err)
			}
		}
		sum := eventLines + irrelevant
		for _, n := range skipped {
			sum += n
		}
		if sum != lines {
			t.Errorf("input %s: lines %d, event_lines + irrelevant + skipped = %d", in["path"], lines, sum)
		}
	}
}

// TestBadInputYearZeroDeadline: an absurd year in a retry deadline must not
// decide the year of the whole input, and is reported at its line.
func TestBadInputYearZeroDeadline(t *testing.T) {
	seedKCM := readFixture(t, "incidents", "seed-legacy", "kcm.log")
	attachOK := firstLine(t, seedKCM, "AttachVolume.Attach succeeded")
	res := parser.ParseReader(strings.NewReader(attachOK+yearZeroDeadline(t, seedKCM)+attachOK), "year0.log", parser.Options{})
	for _, ev := range res.Events {
		if !ev.Time.IsZero() && ev.Time.UTC().Year() < 1970 {
			t.Errorf("line %d dated %v from an absurd deadline", ev.Source.Line, ev.Time)
		}
	}
	if res.Input.YearFrom == parser.FromRetry {
		t.Errorf("year %d taken from the absurd deadline", res.Input.Year)
	}
	if len(res.Input.Problems) == 0 || res.Input.Problems[0].Line != 2 || !regexp.MustCompile(`\byear 0\b`).MatchString(res.Input.Problems[0].Message) {
		t.Errorf("no problem at line 2 names the absurd deadline year: %+v", res.Input.Problems)
	}
}

// yearZeroDeadline is the seed's first retry line with its deadline in year 0.
func yearZeroDeadline(t testing.TB, seedKCM []byte) string {
	t.Helper()
	retry := firstLine(t, seedKCM, "No retries permitted until")
	retry0 := strings.Replace(retry, "until 2024-", "until 0000-", 1)
	if retry0 == retry {
		t.Fatal("fixture changed: no deadline year to replace")
	}
	return retry0
}

// TestBadInputTerminalSafety renders the seed with escape sequences injected
// into its log text through every output of the CLI: text and Markdown must
// not carry ESC, BEL, BS (or any C0/C1 control but \n and \t); JSON must be
// valid and escape them.
func TestBadInputTerminalSafety(t *testing.T) {
	seed := absFixture(t, "incidents", "seed-legacy")
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"kcm-ansi.log": hostileSeed(readFixture(t, "incidents", "seed-legacy", "kcm.log"))}, nil)
	kcm, kubelet := filepath.Join(dir, "kcm-ansi.log"), filepath.Join(seed, "kubelet.log")
	for _, tc := range []struct {
		name string
		args []string
		json bool // "jsonl" for one document per line
	}{
		{name: "analyze text", args: []string{"analyze", "--color", "never"}},
		{name: "analyze text redacted", args: []string{"analyze", "--color", "never", "--redact"}},
		{name: "analyze markdown", args: []string{"analyze", "--format", "markdown"}},
		{name: "analyze json", args: []string{"analyze", "--format", "json"}, json: true},
		{name: "timeline text", args: []string{"timeline", "--color", "never"}},
		{name: "timeline markdown", args: []string{"timeline", "--format", "markdown"}},
		{name: "timeline json", args: []string{"timeline", "--format", "json"}, json: true},
		{name: "events text", args: []string{"events", "--format", "text", "--color", "never"}},
		{name: "events jsonl", args: []string{"events"}, json: true},
		{name: "volumes text", args: []string{"volumes", "--color", "never"}},
		{name: "volumes json", args: []string{"volumes", "--format", "json"}, json: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(t, append(slices.Clip(tc.args), kcm, kubelet), nil)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "7x9qk2mz") && !strings.Contains(tc.name, "redacted") {
				t.Errorf("the seed volume is missing from the output:\n%s", stdout)
			}
			assertTerminalSafe(t, "stdout", stdout, tc.json)
			if tc.json {
				assertJSON(t, stdout, strings.HasSuffix(tc.name, "jsonl"))
			}
		})
	}
}

// TestBadInputLongLineMemory: a 20 MiB line is capped, not slurped many
// times over. Lenient: the bound is a multiple of the cap, to catch a copy
// per byte or an unbounded buffer, not to pin the reader's strategy.
func TestBadInputLongLineMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of MiB")
	}
	seedKCM := readFixture(t, "incidents", "seed-legacy", "kcm.log")
	dir := t.TempDir()
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"big.log", longLineLog(firstLine(t, seedKCM, "AttachVolume.Attach succeeded"), 64<<20)},
		{"dump.log", structDumpLog(t, 10<<20)},
	} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, stderr := runWithStdin(t, []string{"analyze", "--format", "json", path}, nil)
		runtime.ReadMemStats(&after)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s", f.name, code, stderr)
		}
		const limit = 8 * parser.DefaultMaxLineBytes // 128 MiB allocated in all
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Errorf("%s (%d MiB): %d MiB allocated, want at most %d MiB", f.name, len(f.data)>>20, got>>20, limit>>20)
		} else {
			t.Logf("%s (%d MiB): %d MiB allocated", f.name, len(f.data)>>20, got>>20)
		}
	}
}

// checkAccounting is the parser's invariant (parser/fuzz_test.go FuzzParse):
// every physical line is in exactly one bucket, Lines == EventLines +
// Irrelevant + sum(Skipped), i.e. Input.Unaccounted() == 0; and
// Input.Events counts the events returned.
func checkAccounting(t *testing.T, r parser.Result) {
	t.Helper()
	in := r.Input
	if u := in.Unaccounted(); u != 0 {
		t.Errorf("%s: %d lines unaccounted: lines %d, event lines %d, irrelevant %d, skipped %v", in.Path, u, in.Lines, in.EventLines, in.Irrelevant, in.Skipped)
	}
	if in.Events != len(r.Events) {
		t.Errorf("%s: Input.Events %d, %d events", in.Path, in.Events, len(r.Events))
	}
	unknown := 0
	for _, ev := range r.Events {
		if ev.Kind == parser.Unknown {
			unknown++
		}
	}
	if in.Unknown != unknown {
		t.Errorf("%s: Input.Unknown %d, %d unknown events", in.Path, in.Unknown, unknown)
	}
}

// jsonInput is the accounting part of one entry of the JSON inputs block.
type jsonInput struct {
	Path      string         `json:"path"`
	Lines     *int           `json:"lines"`
	Relevant  *int           `json:"relevant"`
	Events    *int           `json:"events"`
	Unknown   *int           `json:"unknown"`
	Skipped   map[string]int `json:"skipped"`
	Truncated bool           `json:"truncated"`
}

type analyzeDoc struct {
	Inputs  []jsonInput `json:"inputs"`
	Volumes []struct {
		Events int `json:"events"`
	} `json:"volumes"`
	Findings []json.RawMessage `json:"findings"`
}

// checkJSONInputs runs analyze --format json on paths and compares its
// inputs block with what the parser counted.
func checkJSONInputs(t *testing.T, paths []string, stdin []byte, results []parser.Result) {
	t.Helper()
	doc := analyzeJSON(t, paths, stdin)
	if len(doc.Inputs) != len(results) {
		t.Fatalf("JSON inputs: %d, parser: %d", len(doc.Inputs), len(results))
	}
	for i, ji := range doc.Inputs {
		in := results[i].Input
		if ji.Lines == nil || ji.Relevant == nil || ji.Events == nil || ji.Unknown == nil || ji.Skipped == nil {
			t.Errorf("JSON input %s lacks lines/relevant/events/unknown/skipped: %+v", ji.Path, ji)
			continue
		}
		skipped := map[string]int{}
		for k, v := range in.Skipped {
			if v != 0 {
				skipped[k] = v
			}
		}
		for k, v := range ji.Skipped {
			if v == 0 {
				delete(ji.Skipped, k)
			}
		}
		if ji.Path != in.Path || *ji.Lines != in.Lines || *ji.Relevant != in.Relevant || *ji.Events != in.Events ||
			*ji.Unknown != in.Unknown || !mapsEqual(ji.Skipped, skipped) || ji.Truncated != in.Truncated {
			t.Errorf("JSON input %s: lines %d relevant %d events %d unknown %d skipped %v truncated %v; parser: %d %d %d %d %v %v",
				ji.Path, *ji.Lines, *ji.Relevant, *ji.Events, *ji.Unknown, ji.Skipped, ji.Truncated,
				in.Lines, in.Relevant, in.Events, in.Unknown, skipped, in.Truncated)
		}
	}
}

func analyzeJSON(t *testing.T, paths []string, stdin []byte) analyzeDoc {
	t.Helper()
	code, stdout, stderr := runWithStdin(t, append([]string{"analyze", "--format", "json"}, paths...), stdin)
	if code != exitOK && code != exitInput {
		t.Fatalf("analyze --format json: exit %d\n%s", code, stderr)
	}
	var doc analyzeDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("analyze --format json: %v\n%.2000s", err, stdout)
	}
	return doc
}

func volumeEvents(doc analyzeDoc) int {
	n := 0
	for _, v := range doc.Volumes {
		n += v.Events
	}
	return n
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// inputPaths are the non-flag arguments after the command (none of the
// cases passes a flag value that could be mistaken for a path).
func inputPaths(args []string) []string {
	var out []string
	skipNext := false
	for _, a := range args[1:] {
		switch {
		case skipNext:
			skipNext = false
		case a == "-":
			out = append(out, a)
		case strings.HasPrefix(a, "--"):
			skipNext = !strings.Contains(a, "=") && a != "--redact"
		default:
			out = append(out, a)
		}
	}
	return out
}

// runWithStdin runs the CLI in-process with stdin as the content of "-"
// (an empty reader when nil, so a stray "-" never waits on a terminal).
func runWithStdin(t *testing.T, args []string, stdin []byte) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runEnv(args, env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

// assertTerminalSafe fails on bytes that would act on a terminal: C0
// controls other than \n and \t, DEL, and (as UTF-8) the C1 controls
// U+0080–U+009F, which include the 8-bit CSI. JSON output may carry none
// raw either: the standard requires escaping controls below 0x20.
func assertTerminalSafe(t *testing.T, what, s string, isJSON bool) {
	t.Helper()
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("%s: control character %U at byte %d: %q", what, r, i, excerpt(s, i))
			return
		}
	}
	if !isJSON && strings.Contains(s, `\u001b`) {
		// fine either way, but show it: escaped ESC in human output is noise
		t.Logf("%s: escaped ESC (\\u001b) shown to humans", what)
	}
}

// assertJSON checks the output is one valid JSON document, or one per line.
func assertJSON(t *testing.T, s string, lines bool) {
	t.Helper()
	if !lines {
		if !json.Valid([]byte(s)) {
			t.Errorf("not valid JSON: %.500s", s)
		}
		return
	}
	for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l != "" && !json.Valid([]byte(l)) {
			t.Errorf("line %d is not valid JSON: %.500s", i+1, l)
		}
	}
}

func excerpt(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+40)]
}

func writeFiles(t *testing.T, dir string, files map[string][]byte, modes map[string]os.FileMode) {
	t.Helper()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names) // directories before their files
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, mode := range modes {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o644) })
	}
}

func skipAsRoot() string {
	if os.Geteuid() == 0 {
		return "running as root: chmod 000 does not stop root from reading (the read error case covers exit 3)"
	}
	return ""
}

func skipUnlessLinux() string {
	if runtime.GOOS != "linux" {
		return "needs /proc/self/mem"
	}
	return ""
}

func absFixture(t testing.TB, elem ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", "..", "testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readFixture(t testing.TB, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(absFixture(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// firstLine returns the first line of data containing sub, with its newline.
func firstLine(t testing.TB, data []byte, sub string) string {
	t.Helper()
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	t.Fatalf("fixture changed: no line contains %q", sub)
	return ""
}

func reversed(ss []string) []string {
	out := slices.Clone(ss)
	slices.Reverse(out)
	return out
}

// randomBytes is deterministic junk (seeded), dense in NULs and newlines.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[0] = 0 // the first line is certainly binary
	return b
}

// elfBytes is the start of an x86-64 ELF executable: header, zeros, and a
// little text with newlines, as when a binary is passed by mistake.
func elfBytes() []byte {
	b := []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00\x01\x00\x00\x00")
	b = append(b, make([]byte, 4096)...)
	b = append(b, "\n/lib64/ld-linux-x86-64.so.2\x00GLIBC_2.2.5\n\x00\x00\x00\n"...)
	return append(b, randomBytes(5, 4096)...)
}

// truncatedGzip gzips data and keeps the first two thirds of the stream.
func truncatedGzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()[:buf.Len()*2/3]
}

// longLineLog is two good lines, a klog line of n bytes, and a good line.
func longLineLog(good string, n int) []byte {
	head := "I0812 11:06:14.600000       1 reconciler.go:360] "
	b := make([]byte, 0, 3*len(good)+n+1)
	b = append(b, good...)
	b = append(b, good...)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte("AttachVolume "), (n-len(head))/13)...)
	b = append(b, '\n')
	return append(b, good...)
}

// structDumpLog is the catalog's E4 attach-started line (klog.InfoS with
// volume={VolumeToAttach:{… ScheduledPods:[&Pod{…}]}}) with the pod dump,
// cut in the catalog, grown to about n bytes of PodSpec.
func structDumpLog(t testing.TB, n int) []byte {
	t.Helper()
	line := strings.TrimSuffix(firstLine(t, readFixture(t, "catalog", "examples.log"), `"attacherDetacher.AttachVolume started" volume={VolumeToAttach:`), "\n")
	line, ok := strings.CutSuffix(line, " ...")
	if !ok {
		t.Fatal("fixture changed: the E4 attach-started line no longer ends in \" ...\"")
	}
	var b strings.Builder
	b.Grow(n + len(line) + 64)
	b.WriteString(line)
	b.WriteString(" Spec:PodSpec{Containers:[]Container{")
	for i := 0; b.Len() < n; i++ {
		b.WriteString("Container{Name:mysql,Image:mysql:8.0,Command:[],Args:[--datadir=/var/lib/mysql],Env:[]EnvVar{EnvVar{Name:MYSQL_ROOT_PASSWORD,Value:,ValueFrom:&EnvVarSource{},},},Resources:ResourceRequirements{},} ")
	}
	b.WriteString("},},Status:PodStatus{},}]}}\n")
	return []byte(b.String())
}

// hostileSeed injects terminal escape sequences into the seed's failed
// attach errors: CSI (clear screen, colour), OSC (window title) ended by
// BEL, backspaces over the disk id, and a C1 CSI (U+009B).
func hostileSeed(kcm []byte) []byte {
	return bytes.ReplaceAll(kcm, []byte("ZoneNotMatch, Message=DiskId: disk-7x9qk2mz"),
		[]byte("ZoneNotMatch, Message=\x1b[2J\x1b[31mDiskId\x1b[0m\x1b]0;owned\x07\x08\x08\x08: disk-7x9qk2mz\u009b31m\x7f"))
}

func wantSkipped(input int, reason string) func(*testing.T, []parser.Result) {
	return func(t *testing.T, rs []parser.Result) {
		t.Helper()
		if rs[input].Input.Skipped[reason] == 0 {
			t.Errorf("%s: nothing skipped as %s: %v", rs[input].Input.Path, reason, rs[input].Input.Skipped)
		}
	}
}

// wantAttach checks the attach-started and attach-succeeded events of input.
func wantAttach(input, started, succeeded int) func(*testing.T, []parser.Result) {
	return func(t *testing.T, rs []parser.Result) {
		t.Helper()
		wantKinds(t, rs[input], parser.AttachStarted, started)
		wantKinds(t, rs[input], parser.AttachSucceeded, succeeded)
	}
}

func wantKinds(t *testing.T, r parser.Result, kind parser.Kind, n int) {
	t.Helper()
	if got := countKind(r, kind); got != n {
		t.Errorf("%s: %d %s events, want %d: %s", r.Input.Path, got, kind, n, eventsSummary(r.Events))
	}
}

func countKind(r parser.Result, kind parser.Kind) int {
	n := 0
	for _, ev := range r.Events {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

func eventsSummary(evs []parser.Event) string {
	var parts []string
	for _, ev := range evs {
		parts = append(parts, ev.Kind.String()+"@"+ev.Source.Path()[strings.LastIndexByte(ev.Source.Path(), '/')+1:]+":"+strconv.Itoa(int(ev.Source.Line))+" node="+ev.Node+" pod="+ev.Pod)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
