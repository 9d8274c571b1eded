package parser

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// checkAnalyzeBlock compares analyzeBlock with the reference on data for
// several line limits (the default, small ones, and the lengths of lines
// of data and one less).
func checkAnalyzeBlock(t testing.TB, name string, data []byte, maxes ...int) {
	t.Helper()
	maxes = append(maxes, DefaultMaxLineBytes, 0, 7, 8, 9, 24, 31, 64, 200)
	var segs []seg
	for _, max := range maxes {
		if max < 0 {
			continue
		}
		segs = analyzeBlock(data, max, true, segs)
		want := analyzeLines(data, max, true, false, nil)
		if !reflect.DeepEqual(segs, want) {
			for i := range min(len(segs), len(want)) {
				if !reflect.DeepEqual(segs[i], want[i]) {
					t.Fatalf("%s (max %d): seg %d of %d/%d:\n got %+v\nwant %+v\nin %q", name, max, i, len(segs), len(want), segs[i], want[i], data[segs[i].off:min(len(data), segs[i].end+200)])
				}
			}
			t.Fatalf("%s (max %d): %d segs, want %d", name, max, len(segs), len(want))
		}
	}
}

// jsonLogLines builds n lines around jsonLogRun's rules: JSON logger lines
// with "ts" of every shape (fractions of every width, none, exponents,
// signs, strings, implausible or short stamps), CRLF, lines too short to
// be plain, docker and other JSON lines, klog lines, blank lines, tokens
// (volume lines and plumbing), NUL and no-break space.
func jsonLogLines(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	ms := int64(1723420800018)
	for range n {
		ms += int64(rng.IntN(50))
		ts := fmt.Sprintf("%d.%03d", ms, rng.IntN(1000))
		switch rng.IntN(16) {
		case 0:
			ts = fmt.Sprintf("%d", ms)
		case 1:
			ts = fmt.Sprintf("%d.%s", ms, strings.Repeat("7", rng.IntN(12)))
		case 2:
			ts = []string{"1.7234208e12", "-1723420800018.5", "1723420800018.5e0", `"2024-08-12T03:10:00Z"`, "99", "0000000000001.500", "172342080001.123", "17234208000180.123", "9999999999999.999", "1723420800018.", ".5", "1723420800018.12x", "", "1723420800018.123.4", "1723420800018.1234567890123"}[rng.IntN(15)]
		}
		msg := strings.Repeat("y", rng.IntN(100))
		line := fmt.Sprintf(`{"ts":%s,"caller":"app/controllermanager.go:761","msg":"Started %s","v":0}`, ts, msg)
		switch rng.IntN(28) {
		case 0:
			line = line[:rng.IntN(len(line)+1)] // cut anywhere, to nothing
		case 1:
			line += "\r"
		case 2:
			line = `{"log":"I0812 03:10:00.000001 1 a.go:1] x\n","stream":"stderr","time":"2024-08-12T03:10:00Z"}`
		case 3:
			line = `{"msg":"x","ts":1723420800018.5}`
		case 4:
			line = "I0812 03:10:00.000001       1 event.go:291] " + msg
		case 5:
			line = ""
		case 6:
			line = strings.Replace(line, "Started", "AttachVolume.Attach succeeded for volume", 1)
		case 7:
			line = `{"ts":1723420817080.957,"caller":"cache/reflector.go:800","msg":"Watch close - *v1.PersistentVolume","v":0}`
		case 8:
			p := rng.IntN(len(line) + 1)
			line = line[:p] + string("\x00"[0]) + line[p:]
		case 9:
			p := rng.IntN(len(line) + 1)
			line = line[:p] + "\u00a0" + line[p:]
		case 10:
			line = []string{`{"ts":`, `{"ts":1`, `{"ts":12`, `{"ts":1}`, "{\"ts\":\r", "{\"ts\":1\r", "{\"ts\":12\r", `{"t`, `{`, `{"ts":17234208000`}[rng.IntN(10)]
		case 11:
			line = strings.Replace(line, `{"ts":`, []string{`{"tS":`, `{"ts" :`, `{ "ts":`, `["ts":`, `{"ts":"`}[rng.IntN(5)], 1)
		case 12:
			line += "\r\r"
		case 13:
			line = "2024-08-12T03:10:00.000000001Z stderr F " + line
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// lineLengths returns the content lengths of data's first lines and one
// less, as line limits.
func lineLengths(data []byte) []int {
	var m []int
	for k, s := 0, 0; k < 4 && s < len(data); k++ {
		i := bytes.IndexByte(data[s:], '\n')
		if i < 0 {
			break
		}
		m = append(m, i, i-1, i-2)
		s += i + 1
	}
	return m
}

func TestAnalyzeBlockMatchesReference(t *testing.T) {
	for name, in := range blockEdgeCases() {
		checkAnalyzeBlock(t, name, []byte(in), lineLengths([]byte(in))...)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 400 {
		data := jsonLogLines(rng, 1+rng.IntN(80))
		if i%3 == 0 {
			data = bytes.TrimSuffix(data, []byte("\n")) // no final newline
		}
		if i%5 == 0 {
			data = append(klogLines(rng, rng.IntN(5)), data...)
		}
		checkAnalyzeBlock(t, fmt.Sprint("random ", i), data, lineLengths(data)...)
	}
	for _, era := range loggen.Eras {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 256 << 10, Era: era, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		checkAnalyzeBlock(t, string(era), buf.Bytes())
	}
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkAnalyzeBlock(t, f, data)
	}
}

// TestAnalyzeBlockHitAnywhere puts a hit (a NUL, a no-break space, a
// token) at every position of short JSON and klog inputs.
func TestAnalyzeBlockHitAnywhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	in := append(jsonLogLines(rng, 6), []byte(`{"ts":1723420800018.756,"caller":"a/b.go:1","msg":"x","v":0}`+"\r\n"+`{"ts":1723420800019.756,"caller":"a/b.go:1","msg":"y","v":0}`)...)
	in = append(in, klogLines(rng, 3)...)
	for _, hit := range []string{"\x00", "\u00a0", "reconciler.go"} {
		for p := 0; p <= len(in); p++ {
			data := append(append(append([]byte(nil), in[:p]...), hit...), in[p:]...)
			checkAnalyzeBlock(t, fmt.Sprintf("hit %q at %d", hit, p), data)
		}
	}
}

// TestJSONHeadPlain holds jsonLogRun's assumption (jsonHeadPlain) to the
// wrapper registry and to plainJSON: no wrapper claims a line starting
// jsonHead, and plainJSON takes every such line of 8 bytes or more.
func TestJSONHeadPlain(t *testing.T) {
	if !jsonHeadPlain {
		t.Fatal("jsonHeadPlain is false: the JSON runs are off")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	lines := bytes.Split(jsonLogLines(rng, 2000), []byte("\n"))
	lines = append(lines, []byte(`{"ts":`+"\x00\x00"), []byte(`{"ts":"log":"x"}`), []byte(`{"ts":{"log":"`))
	n := 0
	for _, l := range lines {
		if len(l) < 8 || !bytes.HasPrefix(l, []byte(jsonHead)) {
			continue
		}
		n++
		for k := wrapJournald; k < numWraps; k++ {
			var u unwrapper
			var out unwrapped
			if wrappers[k].decode(&u, l, &out) || out.broken {
				t.Errorf("%s decodes %q", wrapNames[k], l)
			}
		}
		if !plainJSON(l) {
			t.Errorf("plainJSON(%q) = false", l)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d lines starting %s", n, jsonHead)
	}
}

func FuzzAnalyzeBlock(f *testing.F) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 6 {
		f.Add(jsonLogLines(rng, 8), uint16(65535))
	}
	// the JSON and docker lines of the test inputs (the catalog's
	// examples, the real logs)
	for _, name := range testInputs(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if bytes.HasPrefix(l, []byte("{")) {
				f.Add(bytes.Repeat(l, 3), uint16(len(l)))
			}
		}
	}
	f.Add([]byte(`{"ts":1723420800018.756,"msg":"x"}`+"\r\n"+`{"ts":1}`+"\n"+`{"log":"x\n"}`), uint16(30))
	f.Fuzz(func(t *testing.T, data []byte, max uint16) {
		checkAnalyzeBlock(t, "fuzz", data, int(max))
	})
}

// checkLoggerMicros holds loggerMicros to the general path (slowTS):
// where it reads a stamp, the general path reads the same one.
func checkLoggerMicros(t testing.TB, p []byte) bool {
	t.Helper()
	us, ok := loggerMicros(p)
	if !ok {
		return false
	}
	if k, ok := slowTS(p); !ok || k != us*1e3 {
		t.Fatalf("loggerMicros(%q) = %d; general path: %d, %v", p, us, k, ok)
	}
	return true
}

func TestLoggerMicros(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := 0
	for _, l := range bytes.Split(jsonLogLines(rng, 5000), []byte("\n")) {
		if checkLoggerMicros(t, l) {
			n++
		}
	}
	for l, want := range map[string]bool{
		`{"ts":1723420800018.756}`: true, `{"ts":1723420800018.756,`: true,
		`{"ts":7289654399999.999,`: true, `{"ts":7289654400000.000,`: false, // plausibleMillis
		`{"ts":1000000000000.000}`: true, `{"ts":0946684799999.999}`: false,
		`{"ts":1723420800018.756]`: false, `{"ts":1723420800018,756,`: false, `{"ts":1723420800018.7567`: false,
		`{"ts":1723420800018.75,"`: true, `{"ts":1723420800018.7,"c`: true, `{"ts":1723420800018.75}}`: true,
		`{"ts":1723420800018.7}}}`: true, `{"ts":1723420800018.,"ca`: false, `{"ts":1723420800018,"cal`: false,
		`{"ts":1723420800018.7a,"`: false, `{"ts":1723420800018.75 ,`: false, `{"ts":1723420800018.7,,"`: true,
		`{"tS":1723420800018.756,`: false, `{"ts":1723420800018.756`: false, `{"ts":172342080001x.756,`: false,
	} {
		if got := checkLoggerMicros(t, []byte(l)); got != want {
			t.Errorf("loggerMicros(%q): ok %v, want %v", l, got, want)
		}
	}
	if n < 2000 {
		t.Fatalf("only %d of 5000 lines read", n)
	}
}

func FuzzLoggerMicros(f *testing.F) {
	f.Add([]byte(`{"ts":1723420800018.756,"caller":"a.go:1"}`))
	f.Add([]byte(`{"ts":1723420800018.75,"caller":"a.go:1"}`))
	f.Fuzz(func(t *testing.T, p []byte) { checkLoggerMicros(t, p) })
}
