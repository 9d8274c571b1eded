package classifier

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// This file holds a tiny, test-only envelope splitter so that the message
// side can be tested on whole log files without depending on the envelope
// side (parse.go & co.). It understands just enough: a klog header anywhere
// in the line (after journald / grep / RFC 3339 / UI prefixes), klog JSON
// lines, docker json-file lines, describe / get-events rows, and header-less
// continuation lines.

var (
	testKlogRE  = regexp.MustCompile(`([IWEF])(\d{4}) (\d\d:\d\d:\d\d\.\d{6})\s+(\d+) ([^ :\]]+):(\d+)\] `)
	testSplitRE = regexp.MustCompile(`\s{2,}|\t+`)
	testCountRE = regexp.MustCompile(`\(x(\d+) over [^)]*\)`)
)

// testRec is one record with the physical line it started on.
type testRec struct {
	line int
	text string
	rec  *record
}

// testRecords splits data into records the way the envelope side would.
func testRecords(t testing.TB, data []byte) []testRec {
	t.Helper()
	var out []testRec
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if r := testLineRecord(line); r != nil {
			out = append(out, testRec{line: n, text: line, rec: r})
			continue
		}
		// Header-less continuation: join to the previous record.
		if len(out) > 0 && !testIsTableHeader(line) && !strings.HasPrefix(line, "[root@") {
			p := out[len(out)-1].rec
			switch {
			case p.Table != nil:
				p.Table.Message += "\n" + line
			case p.Rest != "":
				p.Rest += "\n" + line
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func testIsTableHeader(line string) bool {
	s := strings.TrimSpace(line)
	return s == "Events:" || strings.HasPrefix(s, "Type ") || strings.HasPrefix(s, "----") ||
		strings.HasPrefix(s, "LAST SEEN") || strings.HasPrefix(s, "FirstSeen") || strings.HasPrefix(s, "---------")
}

// testLineRecord builds a record from one physical line, or nil.
func testLineRecord(line string) *record {
	if testIsTableHeader(line) {
		return nil
	}
	if strings.HasPrefix(line, `{"log":`) {
		var d struct {
			Log string `json:"log"`
		}
		if json.Unmarshal([]byte(line), &d) != nil {
			return nil
		}
		return testLineRecord(strings.TrimRight(d.Log, "\n"))
	}
	if strings.HasPrefix(line, `{"ts":`) {
		return testJSONRecord(line)
	}
	if m := testKlogRE.FindStringSubmatchIndex(line); m != nil {
		pid, _ := strconv.Atoi(line[m[8]:m[9]])
		return &record{Level: line[m[2]], PID: pid, File: line[m[10]:m[11]], Rest: line[m[1]:]}
	}
	if strings.HasPrefix(line, "time=") && strings.Contains(line, " msg=") {
		// logrus
		_, kvs, _ := parseStructured(`""` + " " + line)
		m, _ := lookup(kvs, "msg")
		return &record{Msg: m, KV: kvs}
	}
	f := testSplitRE.Split(strings.TrimSpace(line), -1)
	for i, x := range f {
		if (x == "Normal" || x == "Warning") && i+2 < len(f) {
			row := &tableRow{Type: x, Count: 1}
			switch {
			case i == 0 && len(f) >= 5: // describe: Type Reason Age From Message
				row.Reason, row.From, row.Message = f[1], f[3], strings.Join(f[4:], "  ")
				if c := testCountRE.FindStringSubmatch(f[2]); c != nil {
					row.Count, _ = strconv.Atoi(c[1])
				}
			case i == 1 && len(f) >= 5: // get events: LastSeen Type Reason Object Message
				row.Reason, row.Object, row.Message = f[2], f[3], strings.Join(f[4:], "  ")
			case i >= 3: // old TAB layout: FirstSeen LastSeen Count From [Subobject] Type Reason Message
				row.Count, _ = strconv.Atoi(f[2])
				row.From, row.Reason, row.Message = f[3], f[i+1], strings.Join(f[i+2:], " ")
			default:
				return nil
			}
			return &record{Table: row, Msg: row.Message}
		}
	}
	return nil
}

// testJSONRecord decodes a klog JSON line keeping key order.
func testJSONRecord(line string) *record {
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	rec := &record{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		val := string(raw)
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			_ = json.Unmarshal(raw, &s)
			val = s
		}
		switch key {
		case "msg":
			rec.Msg = val
		case "caller":
			if i := strings.LastIndexByte(val, '/'); i >= 0 {
				val = val[i+1:]
			}
			if i := strings.IndexByte(val, ':'); i >= 0 {
				val = val[:i]
			}
			rec.File = val
		case "ts", "v":
		default:
			rec.KV = append(rec.KV, kv{Key: key, Value: val})
		}
	}
	return rec
}

func testReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// genCandidateLines generates size bytes of era log (seed 1) and returns its
// lines that have a prefilter token (the candidates the parser would hand
// over), one per line.
func genCandidateLines(tb testing.TB, era loggen.Era, size int64) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := loggen.Generate(&buf, loggen.Config{Size: size, Era: era, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	var out []byte
	for line := range bytes.Lines(buf.Bytes()) {
		if hasPrefilterToken(line) {
			out = append(out, line...)
		}
	}
	return out
}
