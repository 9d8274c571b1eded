package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// FuzzPipeline feeds arbitrary bytes through the whole pipeline: parser →
// timeline → rules (default config) → every renderer, in colour and plain,
// at widths 80 and 100, redacted and not. Invariants:
//
//   - no panic, and each input done within pipelineTimeout;
//   - every physical line accounted for (parser.Input.Unaccounted() == 0,
//     the invariant of parser's FuzzParse), Input.Events == len(events);
//   - plain outputs (Color false) and Markdown carry no C0 control but \n
//     and \t, no DEL, no C1 control, no bidi override, and are valid UTF-8;
//     coloured text carries ESC only as the start of a CSI sequence;
//   - JSON outputs are valid JSON (each line for JSON Lines).
//
// Seeds: every line and every whole file of testdata/catalog, real-logs and
// seed, plus hostile inputs. Crashers live in testdata/fuzz/FuzzPipeline.
// With -short (as under -race in CI) the seed run skips seeds over
// shortSeedMax bytes and renders each output once (width 100, redacted only
// for Text, Markdown and JSON); fuzzing always checks everything.
//
//	go test ./cmd/kcmtrace -run '^$' -fuzz '^FuzzPipeline$' -fuzztime 3m
func FuzzPipeline(f *testing.F) {
	for _, data := range fuzzSeeds(f) {
		if testing.Short() && len(data) > shortSeedMax {
			continue
		}
		f.Add(data)
	}
	full := !testing.Short()
	f.Fuzz(func(t *testing.T, data []byte) {
		type outcome struct {
			err   error
			panic any
			stack []byte
		}
		done := make(chan outcome, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- outcome{panic: p, stack: debug.Stack()}
				}
			}()
			done <- outcome{err: checkPipeline(data, full)}
		}()
		select {
		case o := <-done:
			if o.panic != nil {
				t.Fatalf("panic: %v\n%s", o.panic, o.stack)
			}
			if o.err != nil {
				t.Fatal(o.err)
			}
		case <-time.After(pipelineTimeout):
			t.Fatalf("pipeline still running after %v on %d bytes (hang?)", pipelineTimeout, len(data))
		}
	})
}

// pipelineTimeout bounds one fuzz input; inputs are at most a few hundred KiB.
const pipelineTimeout = 10 * time.Second

// shortSeedMax is the largest seed run with -short.
const shortSeedMax = 8 << 10

// checkPipeline runs data through everything and returns the first broken
// invariant. Without full, each output is rendered once (width 100) and only
// Text, Markdown and JSON also redacted.
func checkPipeline(data []byte, full bool) error {
	res := parser.ParseReader(bytes.NewReader(data), "fuzz.log", parser.Options{})
	in := res.Input
	// The parser's accounting (parser/fuzz_test.go FuzzParse).
	if u := in.Unaccounted(); u != 0 {
		return fmt.Errorf("%d lines unaccounted: lines %d, event lines %d, irrelevant %d, skipped %v", u, in.Lines, in.EventLines, in.Irrelevant, in.Skipped)
	}
	if in.Events != len(res.Events) {
		return fmt.Errorf("Input.Events %d, %d events", in.Events, len(res.Events))
	}

	tl := timeline.Build([]parser.Result{res}, timeline.Options{})
	rs, err := rules.Run(tl, rules.Config{})
	if err != nil {
		return fmt.Errorf("rules.Run with the default config: %v", err)
	}
	a := &report.Analysis{Timeline: tl, Result: rs, Rules: rules.All(), Events: len(res.Events)}
	evs := tl.Events(tl.Volumes, true)

	type output struct {
		name   string
		render func(*bytes.Buffer, report.Options) error
		kind   outputKind
	}
	var outs []output
	widths := []int{80, 100}
	if !full {
		widths = widths[1:]
	}
	for _, width := range widths {
		for _, color := range []bool{false, true} {
			kind := plainOutput
			if color {
				kind = colorOutput
			}
			outs = append(outs,
				output{fmt.Sprintf("Text(color=%v,width=%d)", color, width), func(w *bytes.Buffer, o report.Options) error { return report.Text(w, a, o) }, kind},
				output{fmt.Sprintf("TimelineText(color=%v,width=%d)", color, width), func(w *bytes.Buffer, o report.Options) error { return report.TimelineText(w, tl, tl.Volumes, o) }, kind},
				output{fmt.Sprintf("EventsText(color=%v,width=%d)", color, width), func(w *bytes.Buffer, o report.Options) error { return report.EventsText(w, evs, o) }, kind},
				output{fmt.Sprintf("VolumesTable(color=%v,width=%d)", color, width), func(w *bytes.Buffer, o report.Options) error { return report.VolumesTable(w, tl.Volumes, o) }, kind},
			)
		}
	}
	outs = append(outs,
		output{"Markdown", func(w *bytes.Buffer, o report.Options) error { return report.Markdown(w, a, o) }, plainOutput},
		output{"TimelineMarkdown", func(w *bytes.Buffer, o report.Options) error { return report.TimelineMarkdown(w, tl, tl.Volumes, o) }, plainOutput},
		output{"JSON", func(w *bytes.Buffer, o report.Options) error { return report.JSON(w, a, o) }, jsonOutput},
		output{"TimelineJSON", func(w *bytes.Buffer, o report.Options) error { return report.TimelineJSON(w, tl, tl.Volumes, o) }, jsonOutput},
		output{"VolumesJSON", func(w *bytes.Buffer, o report.Options) error { return report.VolumesJSON(w, tl.Volumes, o) }, jsonOutput},
		output{"EventsJSONL", func(w *bytes.Buffer, o report.Options) error { return report.EventsJSONL(w, evs, o) }, jsonLinesOutput},
	)

	var buf bytes.Buffer
	for _, redact := range []bool{false, true} {
		for _, out := range outs {
			if redact && !full && !slices.Contains([]string{"Text(color=false,width=100)", "Markdown", "JSON"}, out.name) {
				continue
			}
			buf.Reset()
			o := report.Options{Redact: redact, Width: 100, Color: out.kind == colorOutput}
			if n := out.name; strings.Contains(n, "width=80") {
				o.Width = 80
			}
			name := fmt.Sprintf("%s redact=%v", out.name, redact)
			if err := out.render(&buf, o); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			if err := checkOutput(out.kind, buf.Bytes()); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
	}
	return nil
}

type outputKind int

const (
	plainOutput outputKind = iota
	colorOutput
	jsonOutput
	jsonLinesOutput
)

// checkOutput checks one renderer's output against the invariants of its kind.
func checkOutput(kind outputKind, b []byte) error {
	switch kind {
	case jsonOutput:
		if !json.Valid(b) {
			return fmt.Errorf("not valid JSON: %.300q", b)
		}
	case jsonLinesOutput:
		for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if len(l) > 0 && !json.Valid(l) {
				return fmt.Errorf("line %d is not valid JSON: %.300q", i+1, l)
			}
		}
	}
	if !utf8.Valid(b) {
		i := firstInvalidUTF8(b)
		return fmt.Errorf("invalid UTF-8 at byte %d: %q", i, b[max(0, i-40):min(len(b), i+40)])
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		bad := ""
		switch {
		case r == 0x1b && kind == colorOutput:
			if i+1 >= len(b) || b[i+1] != '[' {
				bad = "ESC that does not start a CSI sequence"
			}
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			bad = "control character"
		case r >= 0x80 && r < 0xa0:
			bad = "C1 control character"
		case kind != jsonOutput && kind != jsonLinesOutput && isBidiControl(r):
			bad = "bidi control character"
		}
		if bad != "" {
			return fmt.Errorf("%s %U at byte %d: %q", bad, r, i, b[max(0, i-40):min(len(b), i+40)])
		}
		i += size
	}
	return nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// isBidiControl reports the bidirectional embedding, override and isolate
// controls that can reorder what a terminal or a rendered page shows.
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// fuzzSeeds are the seed corpus: every shipped log whole and line by line,
// and hostile inputs built from a real attach line.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var files []string
	for _, pattern := range []string{"catalog/*.log", "real-logs/*.log", "seed/*.txt"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", pattern))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatal("no seed logs under testdata/")
	}
	var seeds [][]byte
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
				seeds = append(seeds, []byte(line+"\n"))
			}
		}
	}
	return append(seeds, hostileSeeds(tb)...)
}

// hostileSeeds: escape sequences in a real attach line, a struct dump
// trimmed to 64 KiB, invalid UTF-8, NULs, CRLF, bidi overrides, absurd
// timestamps, a truncated gzip and a bare gzip header.
func hostileSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	seedKCM := readFixture(tb, "incidents", "seed-legacy", "kcm.log")
	attach := firstLine(tb, seedKCM, "AttachVolume.Attach succeeded")
	failed := firstLine(tb, seedKCM, "No retries permitted until")
	dump := structDumpLog(tb, 64<<10)
	if len(dump) > 64<<10 {
		dump = append(dump[:64<<10-1:64<<10-1], '\n')
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(attach + failed + attach))
	zw.Close()
	return [][]byte{
		[]byte(strings.Replace(attach, "from node", "\x1b[2J\x1b[31mfrom\x1b[0m \x1b]0;owned\x07node\x08\x08", 1)),
		[]byte(strings.Replace(failed, "ZoneNotMatch", "Zone\x1b]8;;http://x\x1b\\Not\x1b]8;;\x1b\\Match\u009b2J\u009d0;t\u009c", 1)),
		[]byte(strings.Replace(failed, "ZoneNotMatch", "Zone\u202eNotMatch\u2066", 1)),
		dump,
		[]byte(strings.Replace(attach, "for volume", "for \xff\xfe\xc3 volume", 1) + "\xc0\x80\xed\xa0\x80\n"),
		[]byte(attach + strings.Replace(attach, "succeeded", "succ\x00eeded", 1) + attach),
		[]byte(strings.ReplaceAll(string(seedKCM), "\n", "\r\n")),
		[]byte(attach + "I1312" + attach[5:] + "I0800" + attach[5:] + "I0812 25" + attach[8:] + strings.Replace(failed, "until 2024-", "until 0000-", 1)),
		[]byte(attach + attach[:70]),
		gz.Bytes()[:gz.Len()*2/3],
		{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff},
		elfBytes()[:512],
		{},
		// issue 21: a storm past the fold threshold, broken by another node's
		// failure and resumed; the repeated hour of a fall-back and a leap
		// second (times stepping back, 23:59:60); zero-width characters in
		// a node name; a zstd frame declaring a 2 GiB window, an xz block
		// a 4 GiB dictionary
		[]byte(strings.Repeat(failed, 110) + strings.Replace(failed, "10.0.3.15", "10.0.3.16", 1) + strings.Repeat(failed, 5)),
		[]byte(strings.Replace(attach, attach[5:13], "01:59:30", 1) + strings.Replace(attach, attach[5:13], "01:00:10", 1) + strings.Replace(attach, attach[5:13], "23:59:60", 1) + strings.Replace(attach, attach[5:13], "00:00:00", 1)),
		[]byte(strings.Replace(attach, "from node", "from\u200b\u2060\ufeff\u00ad node", 1)),
		zstdLongWindow(tb, attach+failed),
		xzLongDict(tb, attach+failed),
		// one volume attached to many nodes in turn; a node name far wider
		// than any terminal; many volumes of two lines each; a CloudWatch
		// export cut off inside a record
		manyNodes(attach, 64),
		[]byte(strings.Replace(attach, `from node "`, `from node "`+strings.Repeat("n", 20000), 1)),
		flatVolumes(attach, 200),
		[]byte(`{"events":[{"timestamp":1723431974519,"message":` + strconvQuote(attach) + `},{"timestamp":1723431975519,"mess`),
	}
}

// xzLongDict is data as xz whose one block declares a 4 GiB dictionary
// (LZMA2's largest; xz -9 declares 64 MiB).
func xzLongDict(tb testing.TB, data string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 64 << 10}.NewWriter(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write([]byte(data))
	w.Close()
	out := buf.Bytes()
	// the block header after the 12-byte stream header: size, flags (no
	// sizes), filter ID 0x21, properties size 1, the dictionary's code
	hdr := out[12 : 12+(int(out[12])+1)*4]
	if hdr[1] != 0 || hdr[2] != 0x21 || hdr[3] != 1 {
		tb.Fatalf("unexpected block header %x", hdr)
	}
	hdr[4] = 40
	binary.LittleEndian.PutUint32(hdr[len(hdr)-4:], crc32.ChecksumIEEE(hdr[:len(hdr)-4]))
	return out
}

// manyNodes is attach repeated for n nodes.
func manyNodes(attach string, n int) []byte {
	var b strings.Builder
	for i := range n {
		b.WriteString(withNode(attach, fmt.Sprintf("node-%d", i)))
	}
	return []byte(b.String())
}

// flatVolumes is attach for n distinct volumes (handle and PV), each on
// its own node.
func flatVolumes(attach string, n int) []byte {
	var b strings.Builder
	for i := range n {
		l := strings.ReplaceAll(attach, "disk-4k8m2p1q", fmt.Sprintf("disk-f%05d", i))
		l = strings.ReplaceAll(l, "pvc-a41c7f20", fmt.Sprintf("pvc-%08x", i))
		b.WriteString(withNode(l, fmt.Sprintf("flat-%d", i)))
	}
	return []byte(b.String())
}

// withNode is an attach line naming node instead of its own.
func withNode(line, node string) string {
	at := strings.Index(line, `from node "`) + len(`from node "`)
	end := at + strings.IndexByte(line[at:], '"')
	return line[:at] + node + line[end:]
}

// strconvQuote is s as a JSON string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(strings.TrimSuffix(s, "\n"))
	return string(b)
}

// zstdLongWindow is data as one zstd frame that declares a 2 GiB window
// (zstd --long=31).
func zstdLongWindow(tb testing.TB, data string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithSingleSegment(false), zstd.WithEncoderConcurrency(1))
	if err != nil {
		tb.Fatal(err)
	}
	w.Write([]byte(data))
	w.Close()
	out := buf.Bytes()
	out[5] = 21 << 3 // window descriptor after magic and frame header descriptor
	return out
}
