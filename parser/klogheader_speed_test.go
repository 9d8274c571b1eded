package parser

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// parseKlogHeaderReference is parseKlogHeader as it was before its fast
// path (kept verbatim): the tests below hold the new one to it on every
// input.
func parseKlogHeaderReference(p []byte) (h klogHeader, ok bool) {
	if !looksKlog(p) {
		return h, false
	}
	h.level = p[0]
	h.w.mon, _ = num(p, 1, 2)
	h.w.day, _ = num(p, 3, 2)
	var ok1, ok2, ok3 bool
	h.w.hour, ok1 = num(p, 6, 2)
	h.w.min, ok2 = num(p, 9, 2)
	h.w.sec, ok3 = num(p, 12, 2)
	if !ok1 || !ok2 || !ok3 {
		return h, false
	}
	i := 14
	if i < len(p) && p[i] == '.' {
		i++
		scale := 100000000
		for i < len(p) && isDigit(p[i]) {
			h.w.nsec += int(p[i]-'0') * scale
			scale /= 10
			i++
		}
	}
	if !h.w.valid() {
		h.badTime = true
	}
	// pid
	for i < len(p) && p[i] == ' ' {
		i++
	}
	start := i
	for i < len(p) && isDigit(p[i]) && i-start < 12 {
		h.pid = h.pid*10 + int(p[i]-'0')
		i++
	}
	if i == start {
		return h, false
	}
	for i < len(p) && p[i] == ' ' {
		i++
	}
	// file:line]
	end := bytes.IndexByte(p[i:min(len(p), i+512)], ']')
	if end < 0 {
		h.rest = i
		return h, true
	}
	loc := p[i : i+end]
	if c := bytes.LastIndexByte(loc, ':'); c >= 0 {
		loc = loc[:c]
	}
	if s := bytes.LastIndexByte(loc, '/'); s >= 0 {
		loc = loc[s+1:]
	}
	if bytes.IndexByte(loc, ' ') >= 0 {
		// "] " found inside the message: no file:line in this header.
		h.rest = i
		return h, true
	}
	h.file = loc
	i += end + 1
	if i < len(p) && p[i] == ' ' {
		i++
	}
	h.rest = i
	return h, true
}

// checkKlogHeader fails t when parseKlogHeader(p) differs from the
// reference in any way: ok, every field (also when ok is false), and file
// as a slice (nil or not, its bytes and where in p it starts, by its
// capacity).
func checkKlogHeader(t *testing.T, name string, p []byte) {
	t.Helper()
	h, ok := parseKlogHeader(p)
	r, rok := parseKlogHeaderReference(p)
	if ok != rok || !reflect.DeepEqual(h, r) || cap(h.file) != cap(r.file) {
		t.Errorf("%s: parseKlogHeader(%q)\n got %v %+v (file %q cap %d)\nwant %v %+v (file %q cap %d)",
			name, p, ok, h, h.file, cap(h.file), rok, r, r.file, cap(r.file))
	}
}

var klogHeaderLineRE = regexp.MustCompile(`^[IWEF][0-9]{4} `)

// testdataKlogLines returns up to max distinct klog header lines of the
// repository's test data (parser/testdata and testdata), in a fixed order.
func testdataKlogLines(tb testing.TB, max int) [][]byte {
	tb.Helper()
	var lines [][]byte
	seen := map[string]bool{}
	for _, root := range []string{"testdata", filepath.Join("..", "testdata")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() && len(lines) < max {
				l := sc.Text()
				if klogHeaderLineRE.MatchString(l) && !seen[l] {
					seen[l] = true
					lines = append(lines, []byte(l))
				}
			}
			return sc.Err()
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if len(lines) < 100 {
		tb.Fatalf("only %d klog lines in the test data", len(lines))
	}
	return lines
}

// loggenKlogLines returns every every-th klog header line of a generated
// KCM log and kubelet log of the era (size bytes of KCM log).
func loggenKlogLines(tb testing.TB, era loggen.Era, size int64, every int) [][]byte {
	tb.Helper()
	var kcm, kubelet bytes.Buffer
	if _, err := loggen.Generate(&kcm, loggen.Config{Size: size, Era: era, Seed: 1, Kubelet: &kubelet}); err != nil {
		tb.Fatal(err)
	}
	var lines [][]byte
	n := 0
	for _, data := range [][]byte{kcm.Bytes(), kubelet.Bytes()} {
		for l := range bytes.Lines(data) {
			l = bytes.TrimSuffix(l, []byte("\n"))
			if klogHeaderLineRE.Match(l) {
				if n%every == 0 {
					lines = append(lines, l)
				}
				n++
			}
		}
	}
	return lines
}

func TestParseKlogHeaderMatchesReference(t *testing.T) {
	pad := strings.Repeat
	tests := []struct {
		name, line string
	}{
		{"canonical", "I0812 00:00:18.675994       1 event.go:291] message"},
		{"warning", "W0812 00:00:18.675994       1 event.go:291] message"},
		{"error kubelet pid", "E0812 03:21:41.118760    2783 nestedpendingoperations.go:348] Operation for"},
		{"fatal", "F0101 23:59:59.999999       1 main.go:1] boom"},
		{"lower-case level", "i0812 00:00:18.675994       1 event.go:291] message"},
		{"unknown level", "D0812 00:00:18.675994       1 event.go:291] message"},
		{"empty", ""},
		{"level only", "I"},
		{"14 bytes", "I0812 00:00:18"},
		{"15 bytes, blank", "I0812 00:00:18 "},
		{"15 bytes, pid", "I0812 00:00:187"},
		{"16 bytes, pid", "I0812 00:00:18 7"},
		{"fraction without digits", "I0812 00:00:18. 1 f.go:1] m"},
		{"fraction only dot", "I0812 00:00:18."},
		{"fraction to the end", "I0812 00:00:18.675994"},
		{"fraction then blanks to the end", "I0812 00:00:18.675994       "},
		{"no fraction", "I0812 00:00:18       1 event.go:291] message"},
		{"no fraction, no blank", "I0812 00:00:181 event.go:291] message"},
		{"fraction 1 digit", "I0812 00:00:18.6       1 event.go:291] m"},
		{"fraction 3 digits", "I0812 00:00:18.675       1 event.go:291] m"},
		{"fraction 5 digits", "I0812 00:00:18.67599       1 event.go:291] m"},
		{"fraction 7 digits", "I0812 00:00:18.6759941       1 event.go:291] m"},
		{"fraction 9 digits", "I0812 00:00:18.675994123       1 event.go:291] m"},
		{"fraction 10 digits", "I0812 00:00:18.6759941239       1 event.go:291] m"},
		{"fraction 20 digits", "I0812 00:00:18.67599412399999999999       1 event.go:291] m"},
		{"fraction runs into pid", "I0812 00:00:18.6759941 event.go:291] m"},
		{"fraction then letter", "I0812 00:00:18.675994x      1 event.go:291] m"},
		{"fraction then tab", "I0812 00:00:18.675994\t1 event.go:291] m"},
		{"comma fraction", "I0812 00:00:18,675994       1 event.go:291] m"},
		{"pid no padding", "I0812 00:00:18.675994 1 event.go:291] m"},
		{"pid wide padding", "I0812 00:00:18.675994" + pad(" ", 40) + "1 event.go:291] m"},
		{"pid 7 digits", "I0812 00:00:18.675994 1234567 event.go:291] m"},
		{"pid 8 digits", "I0812 00:00:18.675994 12345678 event.go:291] m"},
		{"pid 12 digits", "I0812 00:00:18.675994 123456789012 event.go:291] m"},
		{"pid 13 digits", "I0812 00:00:18.675994 1234567890123 event.go:291] m"},
		{"pid 20 digits", "I0812 00:00:18.675994 12345678901234567890 event.go:291] m"},
		{"pid then file", "I0812 00:00:18.675994       1event.go:291] m"},
		{"pid then two blanks", "I0812 00:00:18.675994       1  event.go:291] m"},
		{"pid at the end", "I0812 00:00:18.675994       1"},
		{"pid then blanks at the end", "I0812 00:00:18.675994       1   "},
		{"no pid", "I0812 03:10:00.612388 r.go:1] m"},
		{"tab padding", "I0812 03:10:00.612388\t1 r.go:1] m"},
		{"no file", "I0812 00:00:18.675994       1 no bracket here"},
		{"bracket in message", "I0812 00:00:18.675994       1 hello world] x"},
		{"bracket pair in message", "I0812 03:10:00.612388       1 no file here [x] y"},
		{"dir prefix", "I0812 00:00:18.675994       1 k8s.io/client-go/tools/cache/reflector.go:167] x"},
		{"blank before the dir", "I0812 00:00:18.675994       1 a b/c.go:12] x"},
		{"blank after the colon", "I0812 00:00:18.675994       1 c.go:1 2] x"},
		{"blank in the file", "I0812 00:00:18.675994       1 c d.go:12] x"},
		{"blank after the slash", "I0812 00:00:18.675994       1 a/ c.go:12] x"},
		{"slash after the colon", "I0812 00:00:18.675994       1 a.go:1/2] x"},
		{"no colon", "I0812 00:00:18.675994       1 c.go] x"},
		{"no colon, dir", "I0812 00:00:18.675994       1 a/b/c.go] x"},
		{"two colons", "I0812 00:00:18.675994       1 c:d:1] x"},
		{"slash only", "I0812 00:00:18.675994       1 /] x"},
		{"leading slash", "I0812 00:00:18.675994       1 /x.go:1] x"},
		{"empty file before colon", "I0812 00:00:18.675994       1 x/:1] x"},
		{"colon only", "I0812 00:00:18.675994       1 :1] x"},
		{"bracket right away", "I0812 00:00:18.675994       1 ] x"},
		{"bracket at the end", "I0812 00:00:18.675994       1 f.go:1]"},
		{"bracket then letter", "I0812 00:00:18.675994       1 f.go:1]x"},
		{"bracket then two blanks", "I0812 00:00:18.675994       1 f.go:1]  x"},
		{"bracket then tab", "I0812 00:00:18.675994       1 f.go:1]\tx"},
		{"newline before bracket", "I0812 00:00:18.675994       1 f.go:1\nnext] x"},
		{"continuation lines", "I0812 00:00:18.675994       1 f.go:1] x\n  more\n  lines]"},
		{"carriage return", "I0812 00:00:18.675994       1 f.go:1]\r"},
		{"NUL in file", "I0812 00:00:18.675994       1 f\x00.go:1] x"},
		{"high bytes in file", "I0812 00:00:18.675994       1 f\xff\x80.go:1] x"},
		{"bracket at 511", "I0812 00:00:18.675994 1 " + pad("a", 511) + "] x"},
		{"bracket at 512", "I0812 00:00:18.675994 1 " + pad("a", 512) + "] x"},
		{"bracket at 513", "I0812 00:00:18.675994 1 " + pad("a", 513) + "] x"},
		{"long file", "I0812 00:00:18.675994 1 " + pad("d/", 100) + "f.go:1] x"},
		{"long file, blank early", "I0812 00:00:18.675994 1 x " + pad("d/", 100) + "f.go:1] x"},
		{"month 00", "I0012 00:00:18.675994       1 f.go:1] x"},
		{"month 12", "I1212 00:00:18.675994       1 f.go:1] x"},
		{"month 13", "I1312 00:00:18.675994       1 f.go:1] x"},
		{"month 99", "I9912 00:00:18.675994       1 f.go:1] x"},
		{"day 00", "I0800 00:00:18.675994       1 f.go:1] x"},
		{"day 31", "I0831 00:00:18.675994       1 f.go:1] x"},
		{"day 32", "I0832 00:00:18.675994       1 f.go:1] x"},
		{"hour 23", "I0812 23:00:18.675994       1 f.go:1] x"},
		{"hour 24", "I0812 24:00:18.675994       1 f.go:1] x"},
		{"minute 59", "I0812 00:59:18.675994       1 f.go:1] x"},
		{"minute 60", "I0812 00:60:18.675994       1 f.go:1] x"},
		{"second 60", "I0812 00:00:60.675994       1 f.go:1] x"},
		{"second 61", "I0812 00:00:61.675994       1 f.go:1] x"},
		{"all nines", "I9999 99:99:99.999999 999999999999 f.go:1] x"},
		{"bad time, no pid", "I1312 00:00:18.675994 f.go:1] x"},
		{"letter in month", "I08a2 00:00:18.675994       1 f.go:1] x"},
		{"letter in hour", "I0812 0a:00:18.675994       1 f.go:1] x"},
		{"letter in minute", "I0812 00:0a:18.675994       1 f.go:1] x"},
		{"letter in second", "I0812 00:00:1a.675994       1 f.go:1] x"},
		{"letter in minute and second", "I0812 00:a0:1a.675994       1 f.go:1] x"},
		{"blank in second", "I0812 00:00: 8.675994       1 f.go:1] x"},
		{"no blank after date", "I0812T00:00:18.675994       1 f.go:1] x"},
		{"dash for colon", "I0812 00-00:18.675994       1 f.go:1] x"},
		{"second colon missing", "I0812 00:00-18.675994       1 f.go:1] x"},
		{"slash in second", "I0812 00:00:/8.675994       1 f.go:1] x"},
		{"colon in second", "I0812 00:00:1:.675994       1 f.go:1] x"},
		{"slash in fraction", "I0812 00:00:18.67/994       1 f.go:1] x"},
		{"colon in fraction", "I0812 00:00:18.67:994       1 f.go:1] x"},
		{"slash in pid", "I0812 00:00:18.675994       / f.go:1] x"},
		{"colon in pid", "I0812 00:00:18.675994       : f.go:1] x"},
		{"logrus", `time="2022-06-03T11:58:13Z" level=debug msg="Wrote ping"`},
	}
	for _, tt := range tests {
		checkKlogHeader(t, tt.name, []byte(tt.line))
	}

	var lines [][]byte
	lines = append(lines, testdataKlogLines(t, 500)...)
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured} {
		lines = append(lines, loggenKlogLines(t, era, 256<<10, 7)...)
	}
	for _, tt := range tests {
		lines = append(lines, []byte(tt.line))
	}
	for _, l := range lines {
		checkKlogHeader(t, "line", l)
	}

	// every prefix of a few lines (each length where a check may begin or
	// end), and each byte of their headers replaced by a byte of every
	// class the parser tells apart
	subst := []byte(" \t\n\r\x00\xff0159:/].,aIWEFx")
	for _, l := range []string{
		"I0812 00:00:18.675994       1 event.go:291] message",
		"E0812 03:21:41.118760    2783 nestedpendingoperations.go:348] Operation for",
		"W0101 00:00:00.000001 123456789 x.go:1] m",
		"I0812 03:10:00 1 reconciler/reconciler.go:288] m",
		"I0812 00:00:18.675994123456       1 event.go:291] message",
		"I0812 00:00:18.675994 1 a b/c.go:12] x",
	} {
		for n := range len(l) + 1 {
			checkKlogHeader(t, "prefix", []byte(l[:n]))
		}
		for i := range min(len(l), 64) {
			for _, c := range subst {
				p := []byte(l)
				p[i] = c
				checkKlogHeader(t, "substituted", p)
				checkKlogHeader(t, "substituted prefix", p[:i+1])
			}
		}
	}
}

func FuzzParseKlogHeader(f *testing.F) {
	for _, l := range testdataKlogLines(f, 200) {
		f.Add(l)
	}
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured} {
		for _, l := range loggenKlogLines(f, era, 64<<10, 23) {
			f.Add(l)
		}
	}
	f.Add([]byte("I0812 00:00:18.6759941239       1 a b/c.go:12] x"))
	f.Add([]byte("I0812 00:00:18 1234567890123 c.go:1 2] x"))
	f.Fuzz(func(t *testing.T, p []byte) {
		checkKlogHeader(t, "fuzz", p)
	})
}

// klogHeaderSink keeps the benchmarked results alive.
var klogHeaderSink int

// BenchmarkParseKlogHeader decodes real header lines (the test data's) and
// generated ones (loggen's KCM and kubelet logs of the legacy and
// structured eras), with the new function and the reference. One op is
// one pass over all the lines; ns/line is the time per call.
func BenchmarkParseKlogHeader(b *testing.B) {
	lines := testdataKlogLines(b, 500)
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured} {
		lines = append(lines, loggenKlogLines(b, era, 1<<20, 5)...)
	}
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.Run("new", func(b *testing.B) { benchKlogHeaders(b, lines, size, parseKlogHeader) })
	b.Run("ref", func(b *testing.B) { benchKlogHeaders(b, lines, size, parseKlogHeaderReference) })
}

// benchKlogHeaders parses every line of lines (size bytes in all) with
// parse, once per iteration.
func benchKlogHeaders(b *testing.B, lines [][]byte, size int, parse func([]byte) (klogHeader, bool)) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	sum := 0
	for b.Loop() {
		for _, l := range lines {
			if h, ok := parse(l); ok {
				sum += h.rest + len(h.file) + h.w.nsec
			}
		}
	}
	klogHeaderSink = sum
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/line")
}
