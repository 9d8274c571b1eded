package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kcmtrace/kcmtrace/internal/teddy"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// testPrefilter holds the parser's prefilter tokens.
var testPrefilter = NewPrefilter(teddy.Prefix(classifier.PrefilterTokens()))

// decoded is what one Decode call gave.
type decoded struct {
	recs []Record
	st   Stats
	err  error
}

// decodeMode decodes in with encoding/json's maps (raw false) or from raw
// bytes, skimming every token-free message skim accepts (skim nil: none).
func decodeMode(name string, in []byte, raw bool, skim func([]byte) bool, oneByte bool) decoded {
	defer func(v bool) { rawRecords = v }(rawRecords)
	rawRecords = raw
	var opt Options
	if skim != nil {
		opt = Options{Prefilter: testPrefilter, Skim: skim}
	}
	var r = bytes.NewReader(in)
	var src interface{ Read([]byte) (int, error) } = r
	if oneByte {
		src = iotest.OneByteReader(r)
	}
	var out decoded
	out.st, out.err = DecodeWith(name, src, opt, func(rec Record) error {
		out.recs = append(out.recs, rec)
		return nil
	})
	return out
}

// compareFast fails when the raw-bytes reading of in (skimming every
// token-free message, or none) differs from the full decoding: the same
// records in the same order with the same fields, a skimmed record's Msg
// the start of the full one, which holds no token, and the same Stats.
func compareFast(t *testing.T, name string, in []byte) {
	t.Helper()
	full := decodeMode(name, in, false, nil, false)
	for _, mode := range []struct {
		label   string
		skim    func([]byte) bool
		oneByte bool
	}{
		{"typed", nil, false},
		{"skim", func([]byte) bool { return true }, false},
		{"skim-klog", func(h []byte) bool { return len(h) > 5 && h[5] == ' ' }, false},
		{"skim-some", func(h []byte) bool { return len(h) > 12 && h[5] == ' ' && h[12]%3 != 0 }, false},
		{"skim-onebyte", func([]byte) bool { return true }, true},
	} {
		if mode.oneByte && len(in) > 64<<10 {
			continue // byte by byte is slow; the small inputs cover it
		}
		fast := decodeMode(name, in, true, mode.skim, mode.oneByte)
		if fmt.Sprint(fast.err) != fmt.Sprint(full.err) {
			t.Fatalf("%s %s: err %v, full %v", name, mode.label, fast.err, full.err)
		}
		if !reflect.DeepEqual(fast.st, full.st) {
			t.Fatalf("%s %s: stats\n%+v\nfull\n%+v", name, mode.label, fast.st, full.st)
		}
		if len(fast.recs) != len(full.recs) {
			t.Fatalf("%s %s: %d records, full %d", name, mode.label, len(fast.recs), len(full.recs))
		}
		for i, f := range fast.recs {
			want := full.recs[i]
			if f.Skimmed {
				if mode.skim == nil {
					t.Fatalf("%s %s: record %d skimmed", name, mode.label, i)
				}
				if f.Msg != "" || testPrefilter.tokens.Index([]byte(want.Msg)) >= 0 {
					t.Fatalf("%s %s: record %d skimmed as %q, full message %q", name, mode.label, i, f.Msg, want.Msg)
				}
				f.Msg, f.Skimmed = want.Msg, false
			}
			if !reflect.DeepEqual(f, want) {
				t.Fatalf("%s %s: record %d\n%+v\nfull\n%+v", name, mode.label, i, f, want)
			}
		}
	}
}

// TestFastPathMatchesFull: on every fixture and on generated exports, the
// raw-bytes reading (with and without skimming) gives what encoding/json's
// maps give, record by record.
func TestFastPathMatchesFull(t *testing.T) {
	skimmed := 0
	for _, sf := range seedFiles {
		for _, fx := range fixtures {
			in := readFixture(t, fx.path(sf))
			compareFast(t, fx.envelope, in)
			compareFast(t, fx.envelope, in[:len(in)/2]) // cut inside a record
			for _, r := range decodeMode(fx.envelope, in, true, func([]byte) bool { return true }, false).recs {
				if r.Skimmed {
					skimmed++
				}
			}
		}
	}
	if skimmed == 0 {
		t.Fatal("no fixture record was skimmed: the test compares nothing")
	}
	in := cloudwatchExport(t, 256<<10)
	compareFast(t, "cloudwatch", in)
	// broken ones: cut inside a record, an invalid byte in the middle, a
	// trailing comma, pages appended
	compareFast(t, "cloudwatch", in[:len(in)/2])
	bad := bytes.Clone(in)
	bad[len(bad)/3] = '}'
	compareFast(t, "cloudwatch", bad)
	compareFast(t, "cloudwatch", bytes.Replace(in, []byte("\n    ]"), []byte(",\n    ]"), 1))
	compareFast(t, "cloudwatch", append(bytes.Clone(in), in...))
	compareFast(t, "cloudwatch", mixedSizeExport())
	// every document shape at 1 MiB of generated log (many records of one
	// Loki stream: its labels worked out once, streamFields)
	_, lines := generatedLines(t, 1<<20)
	for _, fx := range fixtures {
		if fx.ext == "json" {
			compareFast(t, fx.envelope, fx.render(seedFiles[0], lines))
		}
	}
	// JSON Lines over many batches of the parallel reading
	// (lines_parallel.go), whole and with lines it cannot take mixed in:
	// text, invalid JSON, a record twice, a blank line, a document
	for _, ex := range jsonLinesExports(t, 1<<20) {
		compareFast(t, ex.envelope, ex.in)
		lines := bytes.SplitAfter(ex.in, []byte("\n"))
		var mixed []byte
		for i, l := range lines {
			mixed = append(mixed, l...)
			switch i % 997 {
			case 3:
				mixed = append(mixed, "plain text line\n"...)
			case 5:
				mixed = append(mixed, "{\"_msg\": \"cut\n"...)
			case 7:
				mixed = append(mixed, l...)
			case 11:
				mixed = append(mixed, "\n  \n[{\"a\":1}]\n"...)
			}
		}
		compareFast(t, ex.envelope, mixed)
	}
	// Azure rows read from their bytes (rawRow): a short row, a value that
	// is not a row, duplicate and unnamed columns, rows of a second table
	compareFast(t, "azure", []byte(`{"tables":[{"name":"PrimaryResult","columns":[{"name":"TimeGenerated"},{"name":"Message"},{"name":""},{"name":"Message"},{"name":"PodName"}],"rows":[`+
		`["2024-08-12T03:10:00Z","first","x","operation_generator.go:1] a",null],["2024-08-12T03:10:01Z","short"],7,`+
		`["2024-08-12T03:10:02Z",1,true,"b\u0020reconciler.go",{"p":1}]]},{"columns":[{"name":"TimeGenerated"},{"name":"log_s"}],"rows":[["2024-08-12T03:10:03Z","c"]]}]}`))
	// Logs Insights rows read from their bytes (rawFieldList): an escaped
	// key, a field twice, an entry without a value or a name, entries that
	// are not objects, a name that is not a string, a row that is not one
	compareFast(t, "cloudwatch", []byte(`{"results":[`+
		`[{"field":"@timestamp","value":"2024-08-12 03:10:00.000"},{"field":"@message","value":"a reconciler.go:1] x"},{"field":"@logStream","value":"kube-controller-manager-1"}],`+
		`[{"fi\u0065ld":"@message","value":"escaped"},{"field":"@timestamp","value":"2024-08-12 03:10:01.000"}],`+
		`[{"field":"@message","value":"one"},{"field":"@message","value":"two"},{"field":"@ptr"},{"value":"no name"},7,"s",{"field":3,"value":"x"},{"field":"","value":"y"},{"field":"@timestamp","value":1723432202000}],`+
		`{"not":"a row"},[]],"status":"Complete"}`))
	compareFast(t, "cloudwatch", []byte(`{"events":[{"timestamp":1,"message":"a\u0020attacher.Attach","eventId":"x"},{"timestamp":1,"message":"Started \"x","eventId":"x"},{"timestamp":1,"message":"b","eventId":"x"}, 7, {"message":"c", "message":"d\/reconciler.go"}, {"m\u0065ssage":"e"}]}`))
	// bytes right after a record that would carry a number on ("e", "E",
	// "."): the decoder taking over there must fail where encoding/json
	// fails, not inside the element that stands for the records read
	for _, after := range []string{"e t", "E1", ".5", "0", "-1", " e"} {
		compareFast(t, "cloudwatch", []byte(`{"events":[{"timestamp":1,"message":"x"}`+after+`]}`))
		compareFast(t, "gcp", []byte(`[{"timestamp":"2024-01-01T00:00:00Z","textPayload":"x"}`+after+`]`))
	}
}

// TestLokiLabelsPerValue: a Loki value's labels are its stream's, worked
// out once per stream — unless a label path reads the value itself (its
// metadata here): then each value's are its own, as encoding/json's
// reading gives them.
func TestLokiLabelsPerValue(t *testing.T) {
	fm := *lokiDoc.fields
	fm.label[lPod] = []string{"metadata.pod", "stream.pod"}
	spec := &docSpec{members: lokiDoc.members, fields: &fm}
	header := decodeRaw([]byte(`{"pod":"from-stream","namespace":"kube-system"}`))
	stream := newStreamFields(header)
	var raw, full []Record
	for _, v := range []string{
		`["1723432200000000000","a",{"pod":"from-metadata"}]`,
		`["1723432201000000000","b"]`,
		`["1723432202000000000","c",{"other":"x"}]`,
	} {
		for _, out := range []*[]Record{&raw, &full} {
			d := &decoder{yield: func(r Record) error { *out = append(*out, r); return nil }}
			var err error
			if out == &raw {
				err = spec.rawLokiValue(d, []byte(v), stream, 1)
			} else {
				err = spec.item(d, itemLokiValue, decodeRaw([]byte(v)), header, 1)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if !reflect.DeepEqual(raw, full) {
		t.Fatalf("from bytes\n%+v\nthrough maps\n%+v", raw, full)
	}
	if len(raw) != 3 || raw[0].Labels.Pod != "from-metadata" || raw[1].Labels.Pod != "from-stream" || raw[1].Labels.Namespace != "kube-system" {
		t.Fatalf("labels %+v", raw)
	}
}

// TestRowValueAsMap: a table row read from its bytes (rowValue) gives at
// every path what the object toObject builds of it gives: duplicate and
// unnamed columns, every kind of value, dotted paths into object columns.
func TestRowValueAsMap(t *testing.T) {
	header := decodeRaw([]byte(`[{"name":"a"},{"name":"b"},{"name":""},{"type":"x"},{"name":"a"},{"name":"o"},{"name":"o.k"},{"name":"n"}]`))
	cols := newRowColumns(header)
	for _, row := range []string{
		`["x","y","z","w","last-a",{"k":"v","d":{"e":1}},"dotted-name",7]`,
		`[null,true,false,1.5e3,"\u00e9\n",{"k":null,"l":[1,"2"]},null,"s"]`,
		`[[1,2],["a"],{},[],{"x":1},"not an object",{"k":"v"},-0]`,
	} {
		el := []byte(row)
		var d decoder
		rv := &rowValue{o: &rawObject{b: el, c: &d.cache}, elems: arrayElems(nil, el), cols: cols}
		m, problem := toObject(itemRow, decodeRaw(el), header)
		if problem != "" {
			t.Fatalf("%s: %s", row, problem)
		}
		for _, path := range []string{"a", "b", "", "n", "o", "o.k", "o.d.e", "o.l", "o.x", "o.missing", "missing", "a.b", "o.k.z"} {
			gs, gk := rv.field(path)
			ws, wk := mapObject(m).field(path)
			if gs != ws || gk != wk {
				t.Errorf("%s at %q: %q %v, the map gives %q %v", row, path, gs, gk, ws, wk)
			}
		}
	}
}

// mixedSizeExport is a CloudWatch export whose records are of every size
// around the read buffer's: mostly small, some of hundreds of KiB, one
// just under the largest a record the raw reading holds (fastMaxRecord)
// and one over it, so that the buffer moves its bytes to the front
// (makeRoom) and grows many times, and hands an array back to
// encoding/json.
func mixedSizeExport() []byte {
	var b bytes.Buffer
	b.WriteString("{\n    \"events\": [\n")
	for i := range 1200 {
		n := 40 + i*7919%1800
		switch {
		case i == 700:
			n = fastMaxRecord - 1000
		case i == 1100:
			n = fastMaxRecord + 1000
		case i%97 == 0:
			n = 100<<10 + i*131
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		msg := strings.Repeat("x", n%61) + " reconciler.go:1] " + strings.Repeat("y", n)
		fmt.Fprintf(&b, `        {"logStreamName": "kcm", "timestamp": %d, "message": %q, "eventId": "%d"}`, 1723420800000+i, msg, i)
	}
	b.WriteString("\n    ]\n}\n")
	return b.Bytes()
}

// TestParallelLinesMatchSequential: JSON Lines read on workers give what
// reading them on one goroutine gives — records, statistics, problems —
// with a Skim that, like the parser's, refuses the first records it is
// asked about (it asks in input order either way).
func TestParallelLinesMatchSequential(t *testing.T) {
	defer func(f func() int) { lineWorkers = f }(lineWorkers)
	for _, ex := range jsonLinesExports(t, 1<<20) {
		in := append(bytes.Clone(ex.in), "not json\n{\"broken\": \n"...)
		got, parallel := compareWorkers(t, ex.name, ex.envelope, in)
		if !parallel {
			t.Fatalf("%s: not read in parallel: the test compares nothing", ex.name)
		}
		if len(got.st.Problems) == 0 {
			t.Fatalf("%s: no problem: the test compares none", ex.name)
		}
	}
}

// compareWorkers fails when reading in on 4 workers differs from reading
// it on one goroutine — records, statistics, problems, or the heads Skim
// is asked about (a Skim that, like the parser's, refuses the first
// records it is asked about: it asks in input order either way). It
// returns the one goroutine's reading, and whether the 4 workers' was a
// parallel one.
func compareWorkers(t *testing.T, name, envelope string, in []byte) (decoded, bool) {
	t.Helper()
	var heads [2][]string
	var got [2]decoded
	parallel := false
	for k, workers := range []int{1, 4} {
		lineWorkers = func() int { return workers }
		before := parallelReadings.Load()
		asked := 0
		got[k] = decodeMode(envelope, in, true, func(h []byte) bool {
			heads[k] = append(heads[k], string(h))
			asked++
			return asked > 16 && len(h) > 5 && h[5] == ' '
		}, false)
		if ran := parallelReadings.Load() > before; ran && workers == 1 {
			t.Fatalf("%s: read in parallel on one worker", name)
		} else if workers > 1 {
			parallel = ran
		}
	}
	if len(got[0].recs) != len(got[1].recs) {
		t.Fatalf("%s: %d records on workers, %d on one goroutine", name, len(got[1].recs), len(got[0].recs))
	}
	for i := range got[0].recs {
		if !reflect.DeepEqual(got[0].recs[i], got[1].recs[i]) {
			t.Fatalf("%s: record %d on workers\n%+v\non one goroutine\n%+v", name, i, got[1].recs[i], got[0].recs[i])
		}
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Fatalf("%s: on workers\n%+v\non one goroutine\n%+v", name, got[1].st, got[0].st)
	}
	if !slices.Equal(heads[0], heads[1]) {
		t.Fatalf("%s: Skim asked %d times on workers, %d on one goroutine", name, len(heads[1]), len(heads[0]))
	}
	return got[0], parallel
}

// TestParallelArrayMatchesSequential: the record arrays of documents read
// on workers (json_parallel.go) give what reading them on one goroutine
// gives — records, statistics, problems, Skim calls — across batches,
// with elements the reader leaves to encoding/json (over fastMaxRecord,
// invalid, a trailing comma), several pages and keys with escapes.
func TestParallelArrayMatchesSequential(t *testing.T) {
	defer func(f func() int) { lineWorkers = f }(lineWorkers)
	cw := cloudwatchExport(t, 1<<20)
	bad := bytes.Clone(cw)
	bad[len(bad)/3] = '}'
	escaped := bytes.ReplaceAll(cw, []byte(`"message"`), []byte(`"m\u0065ssage"`))
	escaped = append(bytes.Clone(cw[:len(cw)/2]), escaped[len(escaped)/2:]...)
	type export struct {
		name, envelope string
		in             []byte
		objects        bool // an array of record objects: read in parallel
	}
	exports := []export{
		{"cloudwatch", "cloudwatch", cw, true},
		{"mixed-sizes", "cloudwatch", mixedSizeExport(), true},
		{"pages", "cloudwatch", append(bytes.Clone(cw), cw...), true},
		{"invalid", "cloudwatch", bad, true},
		{"trailing-comma", "cloudwatch", bytes.Replace(cw, []byte("\n    ]"), []byte(",\n    ]"), 1), true},
		{"escaped-keys", "cloudwatch", escaped, true},
		{"cut", "cloudwatch", cw[:len(cw)*2/3], true},
	}
	// every document shape, rendered from 1 MiB of generated log
	_, lines := generatedLines(t, 1<<20)
	for _, fx := range fixtures {
		if fx.ext == "json" {
			// (rows, Loki values and field lists are arrays of arrays)
			objects := fx.shape != "rest" && fx.shape != "query-range" && fx.shape != "insights"
			exports = append(exports, export{fx.envelope + "-" + fx.shape, fx.envelope, fx.render(seedFiles[0], lines), objects})
		}
	}
	for _, ex := range exports {
		got, parallel := compareWorkers(t, ex.name, ex.envelope, ex.in)
		if parallel != ex.objects {
			t.Fatalf("%s: read in parallel %v", ex.name, parallel)
		}
		if len(got.recs) < 1000 {
			t.Fatalf("%s: %d records: the test compares few", ex.name, len(got.recs))
		}
	}
}

// FuzzFastPathMatchesFull: the raw-bytes reading equals the full decoding
// on any input, for every JSON envelope.
func FuzzFastPathMatchesFull(f *testing.F) {
	fuzzSeeds(f, "")
	f.Add([]byte(`{"events":[{"timestamp":1,"message":"a\u0020attacher.Attach","eventId":"x"},{"timestamp":1,"message":"b","eventId":"x"},]}`))
	f.Add([]byte("{\"_msg\":\"x\",\"_time\":\"2024-08-12T03:10:00Z\"}\n{\"_msg\":\"y\\\"\",\"_time\":1}\n"))
	defer func(n int) { parallelMinBytes = n }(parallelMinBytes)
	parallelMinBytes = 0 // JSON Lines on workers too, however small
	f.Fuzz(func(t *testing.T, in []byte) {
		var want string
		if json.Unmarshal(append(append([]byte{'"'}, in...), '"'), &want) == nil {
			if got := unquote(in); got != want {
				t.Fatalf("unquote(%q) = %q, want %q", in, got, want)
			}
		}
		for _, e := range []string{"gcp", "cloudwatch", "azure", "loki", "elasticsearch", "victorialogs", "journald-json"} {
			compareFast(t, e, in)
		}
	})
}

// TestPrefilterEscapes: a token is found in a message however the JSON
// writer escaped it (its '"' and '\\' as \" and \\, HTML characters or any
// other as \u, '/' as \/), and a message without one is clear.
func TestPrefilterEscapes(t *testing.T) {
	tokens := classifier.PrefilterTokens()
	quoted := 0
	for _, tok := range tokens {
		if bytes.ContainsAny(tok, "\"\\") {
			quoted++
		}
		msg := "I0812 03:10:00.612388 1 x.go:1] a \"q\" " + string(tok) + " \\ end"
		plain, _ := json.Marshal(msg)
		var html bytes.Buffer
		enc := json.NewEncoder(&html)
		enc.SetEscapeHTML(true)
		enc.Encode(msg)
		forms := [][]byte{plain, bytes.TrimSpace(html.Bytes()), bytes.ReplaceAll(plain, []byte("/"), []byte(`\/`))}
		// every byte of the token as \u00XX
		var u bytes.Buffer
		for _, c := range tok {
			fmt.Fprintf(&u, `\u%04x`, c)
		}
		forms = append(forms, []byte(`"a `+u.String()+` b"`))
		for _, f := range forms {
			s := f[1 : len(f)-1]
			if testPrefilter.clear(s, bytes.IndexByte(s, '\\') >= 0) {
				t.Errorf("token %q not found in %s", tok, f)
			}
		}
	}
	if quoted == 0 {
		t.Log("no token holds a quote or a backslash")
	}
	for _, m := range []string{`I0812 03:10:00.612388 1 x.go:1] a \"q\" \\ \/ \u00e9 end`, `nothing here`} {
		if !testPrefilter.clear([]byte(m), strings.Contains(m, `\`)) {
			t.Errorf("%s: a token found", m)
		}
	}
}

// TestUnquote: unquote decodes as encoding/json does, escapes, surrogate
// pairs, lone surrogates and invalid UTF-8 included.
func TestUnquote(t *testing.T) {
	for _, raw := range []string{
		`plain`, `a\"b\\c\/d\b\f\n\r\t`, `\u00e9\u4e2d x`, `\ud83d\ude00`, `\ud83d x`, `\ude00`, `\ud83d\u0041`,
		"caf\xc3\xa9 \\\"q\\\"", "bad \xff\xfe \\n", "cut \xe4\xb8", `中文 \"x\"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := unquote([]byte(raw)); got != want {
			t.Errorf("unquote(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestParallelLinesPanic: a panic while a worker reads a batch (a bug)
// is kept with the batch, for the replay to raise again in the caller's
// goroutine, where the parser recovers it (on the worker's it would end
// the process); and a panic in the replay (the caller's Skim here) is the
// caller's.
func TestParallelLinesPanic(t *testing.T) {
	defer func(n int) { parallelMinBytes = n }(parallelMinBytes)
	parallelMinBytes = 0
	in := []byte("{\"_msg\":\"a\",\"_time\":\"2024-08-12T03:10:00Z\"}\n{\"_msg\":\"b\",\"_time\":\"2024-08-12T03:10:01Z\"}\n")
	spec := victorialogsDoc
	b := &lineBatch{arena: in, done: make(chan struct{})}
	b.lines = []lineRef{{pos: 1, from: 0, to: int32(bytes.IndexByte(in, '\n'))}}
	wd := &decoder{opt: Options{Prefilter: testPrefilter, Skim: func([]byte) bool { panic("worker bug") }}}
	work(spec.readBatch, wd, b)
	if b.panicked != "worker bug" {
		t.Fatalf("batch kept %v, want the worker's panic", b.panicked)
	}
	opt := Options{Prefilter: testPrefilter, Skim: func([]byte) bool { panic("skim bug") }}
	defer func() {
		if p := recover(); p != "skim bug" {
			t.Fatalf("recovered %v, want the caller's Skim's panic", p)
		}
	}()
	DecodeWith("victorialogs", bytes.NewReader(in), opt, func(Record) error { return nil })
	t.Fatal("no panic")
}
