package parser

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/exportgen"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/internal/texttest"
	exports "github.com/kcmtrace/kcmtrace/parser/envelope"
)

// TestExportsClaimNoPlainLog: no file of the project's test data (the
// repository's testdata/ — seeds, incidents, real logs — and
// parser/testdata — goldens, fuzz corpora) is claimed by a log export, so
// the line path keeps reading every plain log it read before.
func TestExportsClaimNoPlainLog(t *testing.T) {
	n := 0
	for _, root := range []string{filepath.Join("..", "testdata"), "testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			r, _, closeFn, err := decompress(f, 0)
			if err != nil {
				return err
			}
			if closeFn != nil {
				defer closeFn()
			}
			head, _ := io.ReadAll(io.LimitReader(r, sniffBufSize))
			n++
			if name, _ := sniffExport(head); name != "" {
				t.Errorf("%s is claimed by the %s export (scores %v)", path, name, exports.Scores(head))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 40 {
		t.Fatalf("only %d files looked at", n)
	}
}

// TestExportFixturesClaimed: every export fixture is claimed by its own
// envelope, and parsing it keeps the line accounting, counts its records
// and names the envelope.
func TestExportFixturesClaimed(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("envelope", "testdata", "*", "*.gz"))
	if len(paths) < 76 {
		t.Fatalf("%d export fixtures", len(paths))
	}
	for _, p := range paths {
		name := strings.SplitN(filepath.Base(p), ".", 3)[1]
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res := ParseReader(bytes.NewReader(b), p, Options{})
		in := res.Input
		if in.Wrapper != name || in.Records == 0 || in.Unaccounted() != 0 || len(res.Events) == 0 || in.YearFrom != FromEnvelope {
			t.Errorf("%s: wrapper %q records %d events %d year from %s, %d lines unaccounted (%+v)", p, in.Wrapper, in.Records, len(res.Events), in.YearFrom, in.Unaccounted(), in)
		}
		if in.Duplicates > 0 && in.Skipped[SkipEnvelope] < in.Duplicates {
			t.Errorf("%s: %d duplicates but %d envelope lines skipped", p, in.Duplicates, in.Skipped[SkipEnvelope])
		}
		forced := ParseReader(bytes.NewReader(b), p, Options{Format: name})
		if forced.Input.Wrapper != name || len(forced.Events) != len(res.Events) {
			t.Errorf("%s: --input-format %s: wrapper %q, %d events, want %d", p, name, forced.Input.Wrapper, len(forced.Events), len(res.Events))
		}
	}
}

// TestExportAccountsMultiLineRecords: a pretty-printed document's framing
// and the further lines of its records are skipped as SkipEnvelope; a
// document on one line counts one line however many records it holds.
func TestExportAccountsMultiLineRecords(t *testing.T) {
	rec := func(i int) string {
		return `{"timestamp": 1723432210208, "message": "I0812 03:10:10.208117       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/d^vol-` + string(rune('0'+i)) + `\") from node \"n1\" ", "logStreamName": "kube-controller-manager-0123456789abcdef0123456789abcdef"}`
	}
	pretty := "{\n  \"events\": [\n    " + strings.Replace(rec(1), `, "message"`, ",\n      \"message\"", 1) + ",\n    " + rec(2) + "\n  ]\n}\n"
	oneLine := `{"events": [` + rec(1) + ", " + rec(2) + "]}\n"
	for _, tc := range []struct {
		name, in       string
		lines, skipped int
	}{
		{"pretty", pretty, 7, 5},
		{"one line", oneLine, 1, 0},
	} {
		res := ParseReader(strings.NewReader(tc.in), "x.json", Options{})
		in := res.Input
		if in.Wrapper != "cloudwatch" || in.Records != 2 || len(res.Events) != 2 || in.Lines != tc.lines || in.Skipped[SkipEnvelope] != tc.skipped || in.Unaccounted() != 0 {
			t.Errorf("%s: wrapper %s records %d events %d lines %d skipped %v unaccounted %d; problems %v", tc.name, in.Wrapper, in.Records, len(res.Events), in.Lines, in.Skipped, in.Unaccounted(), in.Problems)
		}
		if in.Component != ComponentKCM.String() {
			t.Errorf("%s: component %q from the stream name, want kcm", tc.name, in.Component)
		}
	}
}

// FuzzExportParse runs log-export input through ParseReader, seeded from
// the export fixtures (their first 8 KiB, decompressed) in automatic
// detection and forced to their envelope: it must not panic and must keep
// the line accounting.
func FuzzExportParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("envelope", "testdata", "*", "*.gz"))
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			f.Fatal(err)
		}
		r, _, closeFn, err := decompress(fh, 0)
		if err != nil {
			f.Fatal(err)
		}
		head, _ := io.ReadAll(io.LimitReader(r, 8<<10))
		closeFn()
		fh.Close()
		f.Add(head, strings.SplitN(filepath.Base(p), ".", 3)[1])
	}
	f.Add([]byte(`{"events":[{"timestamp":1,"message":"I0812 03:10:10.208117 1 a.go:1] Attach"`), "")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		if format != "" && forcedEnvelope(format) == nil {
			format = ""
		}
		res := ParseReader(bytes.NewReader(data), "fuzz.json", Options{Format: format})
		in := res.Input
		if u := in.Unaccounted(); u != 0 {
			t.Fatalf("%d lines unaccounted: %+v", u, in)
		}
		if in.Events != len(res.Events) {
			t.Fatalf("Input.Events %d, %d events", in.Events, len(res.Events))
		}
		if in.Skipped[SkipEnvelope] < 0 {
			t.Fatalf("negative envelope lines: %+v", in)
		}
	})
}

// TestSkimMatchesFull: every export fixture and a generated CloudWatch
// export parse to the same Result with the skimming of token-free records
// on and off (events, line accounting, times, year and zone, problems).
func TestSkimMatchesFull(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("envelope", "testdata", "*", "*.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	inputs := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = b
	}
	var plain bytes.Buffer
	if _, err := loggen.Generate(&plain, loggen.Config{Size: 2 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if err := exportgen.CloudWatchEvents(&export, &plain, loggen.DefaultStart.Year()); err != nil {
		t.Fatal(err)
	}
	inputs["generated.cloudwatch.json"] = export.Bytes()
	defer func(v bool) { envelopeSkim = v }(envelopeSkim)
	before := skimmedRecords.Load()
	for name, in := range inputs {
		envelopeSkim = false
		full := ParseReader(bytes.NewReader(in), name, Options{})
		envelopeSkim = true
		fast := ParseReader(bytes.NewReader(in), name, Options{})
		if !reflect.DeepEqual(*texttest.Canon(&fast), *texttest.Canon(&full)) {
			t.Errorf("%s: skimming changes the result:\n%+v\nfull\n%+v", name, fast.Input, full.Input)
		}
	}
	if skimmedRecords.Load() == before {
		t.Fatal("no record was skimmed: the test compares nothing")
	}
}
