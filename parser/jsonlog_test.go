package parser

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDecodeJSONLog(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		msg   string
		file  string
		level byte
		kv    []kv
	}{
		{
			name: "info with objects",
			line: `{"ts":1723432460318.201,"logger":"persistentvolume-attach-detach-controller","caller":"reconciler/reconciler.go:264","msg":"attacherDetacher.DetachVolume started","v":0,"node":{"name":"10.0.3.15"},"volumeName":"v"}`,
			msg:  "attacherDetacher.DetachVolume started", file: "reconciler.go", level: 'I',
			kv: []kv{{"logger", "persistentvolume-attach-detach-controller"}, {"v", "0"}, {"node", `{"name":"10.0.3.15"}`}, {"volumeName", "v"}},
		},
		{
			name: "error has no v",
			line: `{"ts":1723433024121.915,"caller":"kubelet/kubelet.go:2049","msg":"Unable to attach\n","pod":{"name":"mysql-0","namespace":"default"},"err":"timed out"}`,
			msg:  "Unable to attach", file: "kubelet.go", level: 'E',
			kv: []kv{{"pod", `{"name":"mysql-0","namespace":"default"}`}, {"err", "timed out"}},
		},
		{
			name: "duplicate keys kept",
			line: `{"ts":1,"msg":"m","v":2,"duration":"1h0m0s","duration":"1m0s"}`,
			msg:  "m", level: 'I',
			kv: []kv{{"v", "2"}, {"duration", "1h0m0s"}, {"duration", "1m0s"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec record
			if err := decodeJSONLog([]byte(tt.line), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Msg != tt.msg || rec.File != tt.file || rec.Level != tt.level || len(rec.KV) != len(tt.kv) {
				t.Fatalf("got %+v", rec)
			}
			for i := range tt.kv {
				if rec.KV[i] != tt.kv[i] {
					t.Errorf("kv %d = %+v, want %+v", i, rec.KV[i], tt.kv[i])
				}
			}
		})
	}
	var rec record
	if err := decodeJSONLog([]byte(`{"ts":1,"msg":`), &rec); err == nil {
		t.Error("truncated JSON decoded without error")
	}
}

func TestJSONTS(t *testing.T) {
	tests := []struct {
		line string
		want string
		ok   bool
	}{
		{line: `{"ts":1723432200612.388,"msg":"x"}`, want: "2024-08-12T03:10:00.612388Z", ok: true},
		{line: `{"ts":1648546681782,"msg":"x"}`, want: "2022-03-29T09:38:01.782Z", ok: true},
		{line: `{"ts":1.6485466817829036e12,"msg":"x"}`, want: "2022-03-29T09:38:01.782903671Z", ok: true},
		{line: `{"ts":"soon","msg":"x"}`},
		{line: `{"ts":-5,"msg":"x"}`},
	}
	for _, tt := range tests {
		got, ok := jsonTS([]byte(tt.line))
		if ok != tt.ok || (ok && got.Format(time.RFC3339Nano) != tt.want) {
			t.Errorf("jsonTS(%s) = %s %v, want %s %v", tt.line, got.Format(time.RFC3339Nano), ok, tt.want, tt.ok)
		}
	}
}

// jsonTSReference is jsonTS as it was before parseMillis, kept as the
// reference jsonTS must agree with.
func jsonTSReference(p []byte) (time.Time, bool) {
	i := bytes.Index(p, []byte(`"ts":`))
	if i < 0 {
		return time.Time{}, false
	}
	v := p[i+5:]
	j := 0
	for j < len(v) && (isDigit(v[j]) || v[j] == '.' || v[j] == 'e' || v[j] == 'E' || v[j] == '+' || v[j] == '-') {
		j++
	}
	num := v[:j]
	// exact decimal decoding: float64 cannot hold 13 digits of ms plus 6 of ns
	if dot := bytes.IndexByte(num, '.'); bytes.IndexAny(num, "eE+-") < 0 && (dot < 0 || dot > 0) {
		intPart, frac := num, []byte(nil)
		if dot > 0 {
			intPart, frac = num[:dot], num[dot+1:]
		}
		ms, err := strconv.ParseInt(string(intPart), 10, 64)
		if err == nil && ms <= 1e15 {
			ns := int64(0)
			for i := 0; i < 6; i++ {
				ns *= 10
				if i < len(frac) && isDigit(frac[i]) {
					ns += int64(frac[i] - '0')
				}
			}
			t := time.UnixMilli(ms).Add(time.Duration(ns)).UTC()
			return t, plausibleYear(t.Year())
		}
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e15 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f / 1000)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	return t, plausibleYear(t.Year())
}

var jsonTSSeeds = []string{
	`{"ts":1723432200612.388,"msg":"x"}`, `{"ts":1723432200612,"msg":"x"}`, `{"ts":1723432200612.3881234}`,
	`{"ts":.5}`, `{"ts":1.5e12}`, `{"ts":-1723432200612}`, `{"ts":+1723432200612}`, `{"ts":}`, `{"ts":"1"}`,
	`{"ts":1723432200612.3.8}`, `{"ts":99999999999999999999999}`, `{"ts":999999999999999999}`, `{"ts":1000000000000000}`,
	`{"ts":1000000000000001}`, `{"ts":0001723432200612.5}`, `{"ts":1723432200612.}`, `{"ts":1723432200612.38e}`, `{"msg":"no ts"}`,
	`{"ts":4102444800000.5}`, `{"ts":7258118400000}`, `{"ts":1723432200612.388-`,
}

func TestJSONTSMatchesReference(t *testing.T) {
	for _, s := range jsonTSSeeds {
		gt, gok := jsonTS([]byte(s))
		wt, wok := jsonTSReference([]byte(s))
		if gok != wok || !gt.Equal(wt) || gt.Location() != wt.Location() {
			t.Errorf("jsonTS(%s) = %v %v, reference %v %v", s, gt, gok, wt, wok)
		}
	}
}

func FuzzJSONTS(f *testing.F) {
	for _, s := range jsonTSSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		gt, gok := jsonTS(p)
		wt, wok := jsonTSReference(p)
		if gok != wok || gt != wt {
			t.Fatalf("jsonTS(%q) = %v %v, reference %v %v", p, gt, gok, wt, wok)
		}
	})
}

var jsonLogSeeds = []string{
	`{"ts":1723432460318.201,"logger":"persistentvolume-attach-detach-controller","caller":"reconciler/reconciler.go:264","msg":"attacherDetacher.DetachVolume started","v":0,"node":{"name":"10.0.3.15"},"volumeName":"v"}`,
	`{"ts":1723433024121.915,"caller":"kubelet/kubelet.go:2049","msg":"Unable to attach\n","pod":{"name":"mysql-0","namespace":"default"},"err":"timed out"}`,
	`{"ts":1,"msg":"m","v":2,"duration":"1h0m0s","duration":"1m0s"}`,
	`{"ts":1,"msg":"a \"q\" \\ \/ \b\f\n\r\t","v":0,"x":[1,-2.5e+3,true,false,null,{},[],{"a":[{"b":"\u00e9"}]}]}`,
	`{"ts":1,"msg":"\u00e9","v":0}`, `{"ts":1,"msg":"é µs","v":0}`, "{\"ts\":1,\"msg\":\"\xff\",\"v\":0}",
	`{"ts":1, "msg":"x"}`, `{"ts":1,"msg":"x"} trailing`, `{"ts":1,"msg":"x"`, `{"ts":1,"msg":"x",}`, `{}`, `{"a":01}`,
	`{"a":1.}`, `{"a":-}`, `{"a":tru}`, `{"a":"\x"}`, `{"a":{"b" :1}}`, `{"a":[1,]}`, `{"caller":"x/y.go:12","caller":"z.go"}`,
	`{"msg":" padded ","v":null}`, `{"a":1e5}`, `{"a":"x"}garbage`, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
}

func checkJSONLogFast(t *testing.T, p []byte) {
	var fast, slow record
	handled := decodeJSONLogFast(p, &fast)
	err := decodeJSONLogSlow(p, &slow)
	if !handled {
		if !reflect.DeepEqual(fast, record{}) {
			t.Fatalf("%q: not handled but rec set: %+v", p, fast)
		}
		return
	}
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q: fast %+v, slow %+v (%v)", p, fast, slow, err)
	}
	// given the line as a string (jsonEmit), the same record
	var in record
	kvs, ok := decodeJSONLogFastTo(p, string(p), &in, nil, nil)
	if in.KV = kvs; !ok || !reflect.DeepEqual(in, fast) {
		t.Fatalf("%q: with the line given %+v, without %+v", p, in, fast)
	}
}

func TestDecodeJSONLogFastMatchesSlow(t *testing.T) {
	for _, s := range jsonLogSeeds {
		checkJSONLogFast(t, []byte(s))
	}
	for _, line := range testJSONLines(t) {
		checkJSONLogFast(t, bytes.TrimSuffix(line, []byte("\r")))
	}
}

// testJSONLines returns the lines of the test inputs that start like a
// JSON object.
func testJSONLines(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 && line[0] == '{' {
				out = append(out, line)
			}
		}
	}
	return out
}

func FuzzDecodeJSONLogFast(f *testing.F) {
	for _, s := range jsonLogSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkJSONLogFast)
}

// foldTS is what a run of plain JSON lines gives jsonRun: the range of
// their "ts" values, folded by trackTS (fast) or by trackAbs(jsonTS).
func foldTS(lines []string, fast bool) (lo, hi time.Time) {
	var g seg
	for _, l := range lines {
		if fast {
			g.trackTS([]byte(l))
		} else if t, ok := jsonTS([]byte(l)); ok {
			g.trackAbs(t)
		}
	}
	var st inputState
	st.trackAbs(g.minAbs)
	st.trackAbs(g.maxAbs)
	if g.hasNS {
		st.trackAbs(time.Unix(0, g.minNS).UTC())
		st.trackAbs(time.Unix(0, g.maxNS).UTC())
	}
	return st.minAbs, st.maxAbs
}

// TestTrackTSMatchesJSONTS: a run's "ts" range is the same whether each
// line's time is built (jsonTS) or only its decimal is compared (trackTS),
// at the edges of the plausible years too.
func TestTrackTSMatchesJSONTS(t *testing.T) {
	seeds := append([]string{}, jsonTSSeeds...)
	for _, y := range []int{minPlausibleYear, maxPlausibleYear + 1} {
		ms := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		for _, d := range []int64{-1, 0, 1} {
			seeds = append(seeds, `{"ts":`+strconv.FormatInt(ms+d, 10)+`.999999,"msg":"x"}`, `{"ts":`+strconv.FormatInt(ms+d, 10)+`}`)
		}
	}
	for i, a := range seeds {
		for _, b := range seeds[i:] {
			lines := []string{a, b, `{"ts":1723432200612.388,"msg":"x"}`}
			for n := 1; n <= len(lines); n++ {
				glo, ghi := foldTS(lines[:n], true)
				wlo, whi := foldTS(lines[:n], false)
				if glo != wlo || ghi != whi {
					t.Fatalf("%q: trackTS range %v..%v, jsonTS %v..%v", lines[:n], glo, ghi, wlo, whi)
				}
			}
		}
	}
}

func FuzzTrackTS(f *testing.F) {
	for _, s := range jsonTSSeeds {
		f.Add([]byte(s), []byte(`{"ts":1723432200612.388,"msg":"x"}`))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		lines := []string{string(a), string(b)}
		glo, ghi := foldTS(lines, true)
		wlo, whi := foldTS(lines, false)
		if glo != wlo || ghi != whi {
			t.Fatalf("%q: trackTS range %v..%v, jsonTS %v..%v", lines, glo, ghi, wlo, whi)
		}
	})
}

func TestJSONFromInformerPlumbing(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{line: `{"ts":1723420817080.957,"caller":"cache/reflector.go:800","msg":"Watch close - *v1.PersistentVolume total 7 items received","v":0}`, want: true},
		{line: `{"ts":1723420817080.957,"caller":"cache/shared_informer.go:320","msg":"Caches are synced for attach detach","v":0}`, want: true},
		{line: `{"ts":1723420817080.957,"caller":"reflector.go:800","msg":"x","v":0}`, want: true},
		{line: `{"ts":1723420817080.957,"caller":"reconciler/reconciler.go:264","msg":"attacherDetacher.DetachVolume started","v":0}`},
		{line: `{"ts":1723420817080.957,"caller":"record/event.go:389","msg":"Event occurred","v":0,"reason":"SuccessfulAttachVolume"}`},
		// not in the logger's layout, or a second caller: decoded as usual
		{line: `{"caller":"cache/reflector.go:800","ts":1723420817080.957,"msg":"x"}`},
		{line: `{"ts":1723420817080.957,"caller":"cache/reflector.go:800","msg":"x","caller":"reconciler.go:1"}`},
		{line: `{"ts":1723420817080.957,"caller":"cache/reflector\u002ego:800","msg":"x"}`},
		{line: `{"ts":1723420817080.957,"caller":"cache/reflector.go:800`},
		{line: `{"ts":1,"msg":"x"}`},
	} {
		if got := jsonFromInformerPlumbing([]byte(tc.line)); got != tc.want {
			t.Errorf("jsonFromInformerPlumbing(%s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// jsonFromInformerPlumbingRef is the first jsonFromInformerPlumbing, which
// looked for a second "caller" key (bytes.LastIndex, byte by byte) before
// the file: the reference of the one that looks up the file first.
func jsonFromInformerPlumbingRef(p []byte) bool {
	v, at, ok := loggerCaller(p)
	if !ok || bytes.LastIndex(p, []byte(`"caller"`)) != at+1 {
		return false
	}
	f, ok := callerFile(v)
	return ok && informerPlumbing[string(f)]
}

// plumbingCases are JSON log lines around jsonFromInformerPlumbing's checks.
var plumbingCases = []string{
	`{"ts":1723420817080.957,"caller":"cache/reflector.go:800","msg":"Watch close - *v1.PersistentVolume","v":0}`,
	`{"ts":1,"caller":"a/b/shared_informer.go:1","msg":"x","v":0,"o":{"caller":"x.go"}}`,
	`{"ts":1,"caller":"reflector.go:1","msg":"x","caller":"y.go:2"}`,
	`{"ts":1,"caller":"reflector.go:1","msg":"x "caller" in text"}`,
	`{"ts":1,"caller":"reflector.go","msg":"x"}`,
	`{"ts":1,"caller":"cache/reflector.go:800"`,
	`{"ts":1,"caller":"cache/reflector.go:800","msg":"\"caller\""}`,
	`{"ts":1,"caller":"x/reconciler.go:1","msg":"y","caller":"reflector.go:2"}`,
	`{"ts":1,"caller":"ref\u006cector.go:1","msg":"x"}`,
	`{"ts":"1","caller":"reflector.go:1","msg":"x"}`,
	`{"ts":1e3,"caller":"reflector.go:1","msg":"x"}`,
	`{"ts":1, "caller":"reflector.go:1","msg":"x"}`,
	`{"caller":"reflector.go:1","ts":1,"msg":"x"}`,
	`{"ts":1,"caller":"reflector.go:1"caller"`,
}

// plumbingInputs are plumbingCases, every cut of them (both halves) and
// every line of the test inputs.
func plumbingInputs(t *testing.T) []string {
	ins := append([]string(nil), plumbingCases...)
	for _, c := range plumbingCases {
		for i := range c {
			ins = append(ins, c[:i], c[i:])
		}
	}
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, strings.Split(string(data), "\n")...)
	}
	return ins
}

// TestJSONFromInformerPlumbingMatchesReference compares the two on the
// cases above, every line of the test inputs and every cut of the cases.
func TestJSONFromInformerPlumbingMatchesReference(t *testing.T) {
	agreeOnPlumbing(t, plumbingInputs(t), "jsonFromInformerPlumbing", jsonFromInformerPlumbing, jsonFromInformerPlumbingRef)
}

// TestJSONEmitPlumbing: the plumbing jsonEmit reports (which decoding
// ahead takes for the spec's) is jsonFromInformerPlumbing, on
// plumbingInputs and on a line whose second caller key is escaped: the
// decoder (encoding/json's, the line having a \u escape) then names that
// one's file, not plumbing's.
func TestJSONEmitPlumbing(t *testing.T) {
	ins := append(plumbingInputs(t), `{"ts":1,"caller":"cache/reflector.go:1","msg":"x","c\u0061ller":"r.go:1"}`)
	agreeOnPlumbing(t, ins, "jsonEmit(…).plumbing", func(p []byte) bool { return jsonEmit(p).plumbing }, jsonFromInformerPlumbing)
}

// agreeOnPlumbing checks that f (named name) and its reference agree on
// every input, of which at least 3 must be taken for plumbing: else the
// inputs no longer exercise it.
func agreeOnPlumbing(t *testing.T, ins []string, name string, f, ref func([]byte) bool) {
	t.Helper()
	taken := 0
	for _, in := range ins {
		got, want := f([]byte(in)), ref([]byte(in))
		if got != want {
			t.Errorf("%s(%q) = %v, reference %v", name, in, got, want)
		}
		if got {
			taken++
		}
	}
	if taken < 3 {
		t.Errorf("only %d lines taken for plumbing: the cases no longer exercise it", taken)
	}
}

// FuzzJSONFromInformerPlumbing: jsonFromInformerPlumbing agrees with its
// reference, and a line taken for informer plumbing is one whose decoded
// caller is an informer-plumbing file (or one that does not decode at all).
func FuzzJSONFromInformerPlumbing(f *testing.F) {
	for _, c := range plumbingCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := jsonFromInformerPlumbing(p), jsonFromInformerPlumbingRef(p); got != want {
			t.Fatalf("%q: %v, reference %v", p, got, want)
		}
		if !jsonFromInformerPlumbing(p) {
			return
		}
		var rec record
		if err := decodeJSONLog(p, &rec); err == nil && !informerPlumbing[rec.File] {
			t.Fatalf("%q: taken for informer plumbing, but its caller decodes to %q", p, rec.File)
		}
	})
}

// slowTS is trackTS's general path for one line: the "ts" in nanoseconds
// when it is a plausible decimal.
func slowTS(p []byte) (int64, bool) {
	num, other, found := jsonTSNumber(p)
	if !found {
		return 0, false
	}
	ms, ns, ok := decimalMillis(num, other)
	if !ok || ms < plausibleMillis[0] || ms >= plausibleMillis[1] {
		return 0, false
	}
	return ms*1e6 + ns, true
}

// TestLoggerTSMatchesSlowPath: whatever loggerTS takes, it reads as the
// general path does, around the plausible range, with fractions of every
// length, every terminator and a byte broken anywhere; and it takes the
// JSON logger's own lines.
func TestLoggerTSMatchesSlowPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var lines []string
	for _, y := range []int{minPlausibleYear, 2024, maxPlausibleYear + 1} {
		base := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		for _, d := range []int64{-1, 0, 1, 86400000 * 17} {
			ms := strconv.FormatInt(base+d, 10)
			for _, frac := range []string{"", "5", "388", "000001", "1234567", "999999999"} {
				for _, term := range []string{`,"caller":"x.go:1"}`, "}", ".5,", "e3,", "E3", "+1", "-1", " ,", ""} {
					num := ms
					if frac != "" || term == "" {
						num += "." + frac
					}
					lines = append(lines, `{"ts":`+num+term)
				}
			}
		}
	}
	n := len(lines)
	for i := 0; i < n; i++ {
		b := []byte(lines[i])
		for k := 0; k < 3; k++ {
			c := append([]byte(nil), b...)
			c[rng.IntN(len(c))] = "0123456789.:x\"/eE+-"[rng.IntN(19)]
			lines = append(lines, string(c))
		}
	}
	taken := 0
	for _, l := range lines {
		got, ok := loggerTS([]byte(l))
		want, wok := slowTS([]byte(l))
		if ok && (!wok || got != want) {
			t.Fatalf("loggerTS(%q) = %d, general path %d %v", l, got, want, wok)
		}
		if ok {
			taken++
		}
	}
	if _, ok := loggerTS([]byte(`{"ts":1723432200612.388,"caller":"x.go:1","msg":"x","v":0}`)); !ok || taken < 200 {
		t.Fatalf("loggerTS takes too little (%d lines)", taken)
	}
}

func TestEightDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		var b [8]byte
		for j := range b {
			b[j] = byte('0' + rng.IntN(10))
		}
		if i%3 == 1 {
			b[rng.IntN(8)] = byte(rng.IntN(256))
		}
		want, err := strconv.ParseUint(string(b[:]), 10, 64)
		got, ok := eightDigits(binary.LittleEndian.Uint64(b[:]))
		if ok != (err == nil && !bytes.ContainsAny(b[:], "+-")) || ok && got != want {
			t.Fatalf("eightDigits(%q) = %d %v, want %d %v", b, got, ok, want, err)
		}
	}
}

func FuzzLoggerTS(f *testing.F) {
	f.Add([]byte(`{"ts":1723432200612.388,"msg":"x"}`))
	f.Add([]byte(`{"ts":1723432200612.38e8,"msg":"x"}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		got, ok := loggerTS(p)
		want, wok := slowTS(p)
		if ok && (!wok || got != want) {
			t.Fatalf("loggerTS(%q) = %d, general path %d %v", p, got, want, wok)
		}
	})
}

// FuzzUnescapeShort: unescapeShort decodes what jsonScanString accepts
// without \u escapes exactly as encoding/json does.
func FuzzUnescapeShort(f *testing.F) {
	for _, s := range []string{``, `plain`, `a\"b`, `\\`, `\n\t\r\b\f\/`, `end\"`, `\"start`, `x\\\"y`, "ünï\\\"cödé"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := append(append([]byte{'"'}, body...), '"')
		q, _, u, _, ok := jsonScanString(p, 0)
		if !ok || u || q != len(p)-1 || !utf8.Valid(body) {
			return
		}
		var want string
		if err := json.Unmarshal(p, &want); err != nil {
			t.Fatalf("jsonScanString took %q, encoding/json refuses it: %v", p, err)
		}
		if got := unescapeShort(body); got != want {
			t.Fatalf("unescapeShort(%q) = %q, want %q", body, got, want)
		}
	})
}
