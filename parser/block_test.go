package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// refLineReader is the line-at-a-time reader the block reader replaced; it
// is kept here as the reference the block path must agree with.
type refLineReader struct {
	br        *bufio.Reader
	max       int
	long      []byte
	tooLong   bool
	eof       bool
	noNewline bool
	err       error
	bytes     int64
}

func (lr *refLineReader) next() (line []byte, ok bool) {
	if lr.eof {
		return nil, false
	}
	line, err := lr.br.ReadSlice('\n')
	total := len(line)
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line[:min(len(line), lr.max+1)]...)
		for err == bufio.ErrBufferFull {
			line, err = lr.br.ReadSlice('\n')
			total += len(line)
			if room := lr.max + 1 - len(lr.long); room > 0 {
				lr.long = append(lr.long, line[:min(len(line), room)]...)
			}
		}
		line = lr.long
	}
	lr.bytes += int64(total)
	content := total
	if err == nil {
		content--
	}
	lr.tooLong = content > lr.max
	switch {
	case err == nil:
	case err == io.EOF:
		lr.eof = true
		if len(line) == 0 {
			return nil, false
		}
		lr.noNewline = true
	default:
		lr.eof = true
		lr.err = err
		if len(line) == 0 {
			return nil, false
		}
		lr.noNewline = true
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, true
}

// runReference is scanner.run as it was before the block reader: every
// physical line through physical.
func (sc *scanner) runReference(r io.Reader) {
	st := sc.st
	lr := &refLineReader{br: bufio.NewReaderSize(r, readBufSize), max: sc.max}
	if !sc.unw.forced {
		b, _ := lr.br.Peek(readBufSize)
		sc.unw.prefer = sniffWrapper(b)
	}
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		sc.physical(line, lr.tooLong)
	}
	sc.flushPartial()
	sc.close()
	st.in.Bytes = lr.bytes
	if lr.err != nil {
		st.in.Truncated = true
		st.problem(0, "%s after %d lines; the lines read are kept", describeReadErr(lr.err, sc.comp), st.in.Lines)
	}
	if lr.noNewline && st.in.Lines > 0 {
		st.problem(st.in.Lines, "last line has no newline (half-written?); parsed as is")
	}
	if st.in.Lines == 0 && lr.err == nil {
		st.problem(0, "empty input")
	}
}

// parseReference is ParseReader over runReference.
func parseReference(r io.Reader, path string, opt Options) Result {
	st := newInputState(path, 0)
	st.readWith(r, opt, (*scanner).runReference)
	return st.alone(opt)
}

// withBlockSize runs f with smaller blocks (and sniff window).
func withBlockSize(n int, f func()) {
	ob, or := blockSize, readBufSize
	blockSize, readBufSize = n, min(n, or)
	defer func() { blockSize, readBufSize = ob, or }()
	f()
}

// errReader fails after its data.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}

func compareBlockPath(t testing.TB, name string, data []byte, opt Options, readErr error) {
	t.Helper()
	opt.now = testNow
	mk := func() io.Reader {
		var r io.Reader = bytes.NewReader(data)
		if readErr != nil {
			r = &errReader{r: r, err: readErr}
		}
		return r
	}
	for _, bs := range []int{4 << 20, 1 << 16, 4096, 257, 64} {
		withBlockSize(bs, func() {
			got := ParseReader(mk(), "x.log", opt)
			want := parseReference(mk(), "x.log", opt)
			if !reflect.DeepEqual(*texttest.Canon(&got), *texttest.Canon(&want)) {
				t.Errorf("%s (block %d, max %d): block path differs from line path:\n%s", name, bs, opt.MaxLineBytes, firstDiff(got, want))
				return
			}
			// what the Result does not show: journald host and process
			// counts, clock extent, year steps, wrapper evidence, votes,
			// the unwrapper's preference
			gs, ws := readState(mk(), opt, false), readState(mk(), opt, true)
			if !reflect.DeepEqual(gs, ws) {
				t.Errorf("%s (block %d, max %d): block path state differs from line path:\n got  %+v\n want %+v", name, bs, opt.MaxLineBytes, gs, ws)
			}
		})
	}
}

// scanState is the state of a scanner and its input after reading.
type scanState struct {
	Host                string
	Procs               map[string]int
	Evid                []evidence
	WrapVotes           [numWraps]int
	GrepVotes           int
	FormatVotes         [numFormats]int
	FirstW, LastW       wall
	FirstYoff, LastYoff int
	HaveWall            bool
	MinAbs, MaxAbs      time.Time
	Entries             int
	PrevMon, Yoff       int
	Prefer              wrapKind
}

// readState reads r with the block path or (ref) the line path.
func readState(r io.Reader, opt Options, ref bool) scanState {
	st := newInputState("x.log", 0)
	sc := newScanner(st, opt)
	func() {
		defer func() { _ = recover() }()
		r, _, closeFn, err := decompress(r, 0)
		if err != nil {
			return
		}
		if closeFn != nil {
			defer closeFn()
		}
		if ref {
			sc.runReference(r)
		} else {
			sc.run(r)
		}
	}()
	return scanState{
		Host: st.host, Procs: st.procs, Evid: st.evid, WrapVotes: st.wrapVotes, GrepVotes: st.grepVotes, FormatVotes: st.formatVotes,
		FirstW: st.firstW, LastW: st.lastW, FirstYoff: st.firstYoff, LastYoff: st.lastYoff, HaveWall: st.haveWall,
		MinAbs: st.minAbs, MaxAbs: st.maxAbs, Entries: sc.entries, PrevMon: sc.prevMon, Yoff: sc.yoff, Prefer: sc.unw.prefer,
	}
}

func firstDiff(got, want Result) string {
	if !reflect.DeepEqual(got.Input, want.Input) {
		return fmt.Sprintf("input\n got  %+v\n want %+v", got.Input, want.Input)
	}
	if len(got.Events) != len(want.Events) {
		return fmt.Sprintf("%d events, want %d", len(got.Events), len(want.Events))
	}
	for i := range got.Events {
		if !reflect.DeepEqual(*texttest.Canon(&got.Events[i]), *texttest.Canon(&want.Events[i])) {
			return fmt.Sprintf("event %d\n got  %+v\n want %+v", i, got.Events[i], want.Events[i])
		}
	}
	return "?"
}

// blockEdgeCases are inputs built to cross every rule of analyzeBlock.
func blockEdgeCases() map[string]string {
	plain := "I0812 03:10:00.000001       1 event.go:291] \"Event occurred\" object=\"ns/x\" kind=\"Pod\"\n"
	vol := "I0812 03:10:01.000002       1 reconciler.go:219] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^disk-1\") from node \"n1\"\n"
	// js is an irrelevant --logging-format=json line; its "ts" grows with i
	js := func(i int) string {
		return fmt.Sprintf(`{"ts":17234322006%02d.388,"caller":"prober/prober.go:107","msg":"Probe failed","v":0,"probeType":"Readiness","pod":{"name":"cart-%d","namespace":"orders"},"probeResult":"failure"}`, i, i) + "\n"
	}
	jsVol := `{"ts":1723432200650.5,"logger":"persistentvolume-attach-detach-controller","caller":"reconciler/reconciler.go:264","msg":"attacherDetacher.DetachVolume started","v":0,"node":{"name":"10.0.3.15"},"volumeName":"kubernetes.io/csi/x^disk-1"}` + "\n"
	c := map[string]string{
		"plain-only":   strings.Repeat(plain, 50),
		"mixed":        strings.Repeat(plain+plain+vol, 20),
		"continuation": strings.Repeat(plain+plain+"  goroutine 1 [running]: volume attach\n"+plain+"\tat x.go:12\n", 10),
		"crlf":         strings.ReplaceAll(strings.Repeat(plain+vol+plain, 10), "\n", "\r\n"),
		"nul":          strings.Repeat(plain, 5) + "I0812 03:10:00.000001 1 a.go:1] x\x00y\n" + strings.Repeat(plain, 5) + "\x00\x00\x00\n" + plain,
		"nbsp":         strings.Repeat(plain, 5) + "I0812 03:10:00.000001\u00a0 1 a.go:1] No\u00a0retries permitted until 2024-08-12 03:10:10 +0000 UTC\n" + strings.Repeat(plain, 5) + "I0812 03:10:00.000001       1 a.go:1] µs text\n" + plain,
		"no-newline":   strings.Repeat(plain, 5) + "I0812 03:10:00.000001       1 a.go:1] half",
		"no-newline-2": strings.Repeat(plain, 5) + strings.TrimSuffix(plain, "\n"),
		"rollover":     strings.Repeat(strings.Replace(plain, "0812", "1231", 1), 3) + strings.Repeat(strings.Replace(plain, "0812", "0101", 1), 3) + strings.Repeat(strings.Replace(plain, "0812", "1231", 1), 3) + vol,
		"bad-time":     strings.Repeat(plain, 3) + strings.Replace(plain, "0812", "1312", 1) + strings.Replace(plain, "03:10", "25:10", 1) + plain + vol,
		"no-pid":       strings.Repeat(plain, 3) + "I0812 03:10:00.000001 event.go:291] x\n" + plain + "I0812 03:10:00        x\n" + plain,
		"blank":        strings.Repeat(plain+"\n"+plain+"\r\n", 10) + vol,
		"long":         strings.Repeat(plain, 3) + "I0812 03:10:00.000001       1 a.go:1] " + strings.Repeat("volume ", 3000) + "\n" + strings.Repeat(plain, 3) + strings.Repeat("x", 70000) + "\n" + plain + vol,
		"long-last":    strings.Repeat(plain, 3) + strings.Repeat("y", 70000),
		"cri-partial":  strings.Repeat(plain, 3) + "2024-08-12T03:10:00.000000001Z stderr P I0812 03:10:00.000001       1 a.go:1] part \n" + plain + strings.Repeat(plain, 3) + vol,
		"journald":     strings.Repeat("Aug 12 03:10:00 node-1 kubelet[123]: "+plain, 5) + strings.Repeat(plain, 5),
		"prompt":       "[root@node ~]# journalctl -u kubelet\n" + strings.Repeat(plain, 3) + "# comment\n" + plain + "```\n" + plain + vol,
		"json":         strings.Repeat(plain, 3) + `{"ts":1723432200.5,"caller":"reconciler.go:219","msg":"attacherDetacher.AttachVolume started","volumeName":"pvc-1"}` + "\n" + strings.Repeat(plain, 3),
		"describe":     strings.Repeat(plain, 3) + "Events:\n  Type     Reason              Age   From                     Message\n  ----     ------              ----  ----                     -------\n  Warning  FailedAttachVolume  2m    attachdetach-controller  Multi-Attach error for volume \"pvc-1\"\n" + strings.Repeat(plain, 3),
		"spec-cont":    strings.Repeat(plain+vol+"  continued volume text\n\tat x.go:12\n"+vol+"Output: mount failed\n"+plain, 8),
		"spec-utf8":    strings.Repeat(plain+strings.Replace(vol, "started", "st\xff\xfe\xfdarted", 1)+vol+plain, 6),
		"spec-header":  strings.Repeat(plain+"I0812 03:10:01.000002       1 reconciler.go:219]\n  volume\n"+plain, 6),
		// an entry whose continuation lines run through whole blocks
		// (257 and 4096 bytes): its spec's block is recycled while it is
		// still open
		"spec-span":    strings.Repeat(plain+vol+strings.Repeat("  continued text of the attach error, one of many lines\n", 90)+vol+plain, 4),
		"json-runs":    strings.Repeat(js(1)+js(2)+js(3), 30) + jsVol + strings.Repeat(js(5)+js(4), 30) + jsVol + js(9),
		"json-order":   strings.Repeat(js(7)+js(2)+js(9)+js(1), 20) + plain + plain + js(3) + plain + jsVol + js(8) + plain,
		"json-bad":     strings.Repeat(js(1), 5) + "{\"ts\":1723432200612.5,\"msg\":\"x\"\n" + `{"ts":1723432200612.5, "msg":"x" , "v":0}` + "\n" + `{"ts":"x","msg":"y"}` + "\n" + `{"ts":99,"msg":"old"}` + "\n" + `{"msg":"no ts here","v":0}` + "\n" + `{"log":"I0812 x\n","time":"2024-08-12T03:10:00Z"}` + "\n" + `{"ts":1723432200612.5,"msg":"x","v":0` + "\n" + strings.Repeat(js(2), 5),
		"json-string":  strings.Repeat(js(1), 5) + `{"ts":1723432200613.5,"msg":"Event occurred","v":0,"object":"ns/pod","reason":"SuccessfulAttachVolume","message":"AttachVolume.Attach succeeded for volume \"pvc-1\""}` + "\n" + strings.Repeat(js(2), 5),
		"json-crlf":    strings.ReplaceAll(strings.Repeat(js(1)+js(3)+jsVol+js(2), 10), "\n", "\r\n"),
		"json-escapes": strings.Repeat(js(1), 3) + `{"ts":1723432200614.5,"caller":"x/y.go:1","msg":"AttachVolume \u00e9 \"q\"","v":0}` + "\n" + "{\"ts\":1723432200614.5,\"msg\":\"MountVolume \xff\",\"v\":0}\n" + `{"ts":1723432200614.5,"msg":"MountVolume","v":0,"x":[1,{"a":null}]}` + "\n" + strings.Repeat(js(2), 3),
		"json-cri":     strings.Repeat("2024-08-12T03:10:00.000000001Z stderr F "+js(1), 5) + strings.Repeat(js(2), 5) + "2024-08-12T03:10:00.000000001Z stderr P " + strings.TrimSuffix(js(3), "\n") + "\n" + js(4) + js(5),
		"empty":        "",
		"only-newline": "\n",
	}
	for k, v := range wrappedEdgeCases(plain, vol) {
		c[k] = v
	}
	return c
}

// wrappedEdgeCases cross the rules of the journald and CRI runs (plainWrapped,
// plainRun). The first evidenceEntries entries of an input are read line by
// line, so most cases start with that many lines of another kind.
func wrappedEdgeCases(plain, vol string) map[string]string {
	jd := func(stamp, host, proc, payload string) string {
		return stamp + " " + host + " " + proc + ": " + payload
	}
	j := func(payload string) string { return jd("Aug 12 03:10:00", "node-1", "kubelet[123]", payload) }
	cri := func(payload string) string { return "2024-08-12T03:10:00.301223000Z stderr F " + payload }
	mon := func(line, mmdd string) string { return strings.Replace(line, "0812", mmdd, 1) }
	head := strings.Repeat(plain, 20)
	var procs strings.Builder
	for i := 0; i < 70; i++ {
		procs.WriteString(jd("Aug 12 03:10:00", "node-1", fmt.Sprintf("proc%d[1]", i), plain))
	}
	var hosts strings.Builder
	for i := 0; i < 40; i++ {
		hosts.WriteString(jd("Aug 12 03:10:00", fmt.Sprintf("host-%d", i%3), "kubelet[123]", plain))
	}
	var reversed strings.Builder
	for _, mmdd := range []string{"0102", "0101", "1231", "1230"} {
		for i := 0; i < 12; i++ {
			reversed.WriteString(jd("Jan  2 00:00:01", "node-1", "kube-controller-manager[9]", mon(plain, mmdd)))
		}
		reversed.WriteString(jd("Jan  2 00:00:01", "node-1", "kube-controller-manager[9]", mon(vol, mmdd)))
	}
	// runs whose last clock is the input's last one (JSON lines after them
	// have no clock)
	var clocks strings.Builder
	for i := 0; i < 40; i++ {
		clocks.WriteString(j(strings.Replace(plain, "03:10:00", fmt.Sprintf("03:10:%02d", i), 1)))
	}
	clocks.WriteString(`{"ts":1723432200612.5,"msg":"x","v":0}` + "\n")
	for i := 0; i < 40; i++ {
		clocks.WriteString(cri(strings.Replace(plain, "03:10:00", fmt.Sprintf("03:11:%02d", i), 1)))
	}
	clocks.WriteString(`{"ts":1723432200612.5,"msg":"x","v":0}` + "\n")
	// runs of plain JSON lines (their "ts" range), broken by every kind of
	// line the JSON run fast path leaves to the general loop
	js := func(ts string) string {
		return `{"ts":` + ts + `,"caller":"x/event.go:291","msg":"Event occurred","object":"ns/x","v":2}` + "\n"
	}
	var jsonRuns strings.Builder
	for i := range 30 {
		jsonRuns.WriteString(js(fmt.Sprintf("17234322%02d612.%d", (i*37)%60, i%7)))
		switch i % 10 {
		case 3:
			jsonRuns.WriteString(`{"ts":1723432200612.5,"caller":"reconciler/reconciler.go:219","msg":"attacherDetacher.AttachVolume started","volumeName":"kubernetes.io/csi/x^disk-1","node":"n1","v":0}` + "\n")
		case 4:
			jsonRuns.WriteString(strings.TrimSuffix(js("1723432201612.25"), "\n") + "\r\n")
		case 5:
			jsonRuns.WriteString("\n" + `{"log":"` + strings.TrimSuffix(plain, "\n") + `\n","stream":"stderr","time":"2024-08-12T03:10:00Z"}` + "\n")
		case 6:
			jsonRuns.WriteString(`{"ts":1.7234322e12,"msg":"x","v":0}` + "\n" + `{not json` + "\n" + plain)
		case 7:
			jsonRuns.WriteString(`{"ts":1723432200612.5,"msg":"` + strings.Repeat("y", 150) + `","v":0}` + "\n")
		}
	}
	return map[string]string{
		"json-runs":         jsonRuns.String() + js("1723432299612.5"),
		"wrapped-clocks":    head + clocks.String(),
		"journald-runs":     strings.Repeat(j(plain), 60) + j(vol) + strings.Repeat(j(plain), 60) + j(vol) + strings.Repeat(j(plain), 3),
		"journald-late":     head + strings.Repeat(j(plain), 80) + plain + strings.Repeat(j(plain), 40),
		"journald-procs":    head + strings.Repeat(jd("Aug 12 03:10:00", "n", "kubenswrapper[1]", plain), 20) + strings.Repeat(jd("Aug 12 03:10:00", "n", "hyperkube[2]", plain), 20) + strings.Repeat(jd("Aug 12 03:10:00", "n", "k3s", plain), 20) + jd("Aug 12 03:10:00", "n", "kubelet[3]", vol),
		"journald-procs-64": head + procs.String() + strings.Repeat(jd("Aug 12 03:10:00", "node-1", "late[1]", plain), 30) + strings.Repeat(jd("Aug 12 03:10:00", "node-1", "proc3[1]", plain), 30) + strings.Repeat(jd("Aug 12 03:10:00", "node-1", "kubelet", plain), 30),
		"journald-hosts":    head + hosts.String() + strings.Repeat(jd("Aug 12 03:10:00", "node-2", "kubelet[123]", plain)+jd("Aug 12 03:10:00", "node-2", "kubelet[124]", plain)+jd("Aug 12 03:10:00", "node-2", "kube-controller-manager[5]", plain), 20),
		"journald-first":    strings.Repeat(jd("Feb  3 03:10:00", "node-9", "kube-controller-manager[77]", mon(plain, "0203")), 100) + j(vol),
		"journald-reversed": reversed.String() + strings.Repeat(jd("Dec 30 23:59:59", "node-1", "kube-controller-manager[9]", mon(plain, "1230")), 10),
		"journald-rollover": strings.Repeat(j(mon(plain, "1231")), 30) + strings.Repeat(j(mon(plain, "0101")), 30) + strings.Repeat(j(mon(plain, "1231")), 30) + j(mon(vol, "0101")),
		"journald-odd":      head + strings.Repeat(j(plain), 10) + "Aug 12 03:10:00 node-1 kubelet[123]:\n" + strings.Repeat(j(plain), 10) + "Aug 12 03:10:00 node-1 kube let[1]: " + plain + strings.Repeat(j(plain), 10) + "Aug 12 03:10:00 node-1 kubelet[1: " + plain + strings.Repeat(j(plain), 10) + "Aug 12 03:10:00 root@node-1 $ kubelet[1]: " + plain + strings.Repeat(j(plain), 10) + j(mon(plain, "1312")) + j("I0812 03:10:00.000001 x\n") + strings.Repeat(j(plain), 10) + j("  "+plain) + strings.Repeat(j(plain), 10) + "Aug 12 03:10:00 node-1 kubelet[123]: `" + plain + strings.Repeat(j(plain), 10),
		"journald-cont":     head + strings.Repeat(j(plain)+j(plain)+j("  goroutine 1 [running]:\n")+j(plain)+"  raw continuation\n", 20),
		"journald-iso":      head + strings.Repeat("2024-08-12T03:10:00+0000 node-1 kubelet[123]: "+plain, 30) + strings.Repeat(j(plain), 30),
		"journald-crlf":     strings.ReplaceAll(head+strings.Repeat(j(plain)+j(plain)+j(vol), 20), "\n", "\r\n"),
		"cri-runs":          strings.Repeat(cri(plain), 60) + cri(vol) + strings.Repeat(cri(plain), 60) + cri(vol) + strings.Repeat(cri(plain), 3),
		"cri-late":          head + strings.Repeat(cri(plain), 80) + "2024-08-12T03:10:00.301223000Z stdout F " + plain + strings.Repeat(cri(plain), 40),
		"cri-partials":      head + strings.Repeat(cri(plain), 30) + "2024-08-12T03:10:00.301223000Z stderr P I0812 03:10:00.000001       1 a.go:1] part \n" + strings.Repeat(cri(plain), 30) + "2024-08-12T03:10:00.301223000Z stderr P " + plain + "2024-08-12T03:10:00.301223000Z stderr P x\n" + "\n" + strings.Repeat(cri(plain), 30),
		"cri-crlf":          strings.ReplaceAll(head+strings.Repeat(cri(plain)+cri(plain)+cri(vol)+cri(plain), 20), "\n", "\r\n"),
		"cri-rollover":      strings.Repeat(cri(mon(plain, "1231")), 30) + strings.Repeat(cri(mon(plain, "0101")), 30) + cri(mon(vol, "0101")) + strings.Repeat(cri(mon(plain, "1231")), 30),
		"cri-odd":           head + strings.Repeat(cri(plain), 10) + "2024-08-12T03:10:00.301223000Z stderr F\n" + strings.Repeat(cri(plain), 10) + "2024-08-12T03:10:00.301223000Z " + plain + strings.Repeat(cri(plain), 10) + "2024-08-12 03:10:00.301223000Z stderr F " + plain + strings.Repeat(cri(plain), 10) + "2024-08-12T03:10:00.301223000+02:00 stderr F " + plain + strings.Repeat(cri(plain), 10) + "2/24-08-12T03:10:00.301223000Z stderr F " + plain + strings.Repeat(cri(plain), 10) + "2024-08-12T03:10:00Z stderr F " + plain + strings.Repeat(cri(plain), 10) + "2024-08-12T03:10:00.3Z stderr F root@n:~$ " + plain + strings.Repeat(cri(plain), 10),
		"cri-kubectl":       head + strings.Repeat("2024-08-12T03:10:00.301223000Z "+plain, 30) + strings.Repeat(cri(plain), 30) + strings.Repeat("2024-08-12T03:10:00.301223000Z "+plain, 30) + "7/29/2016 7:38:17 PM" + plain + strings.Repeat(cri(plain), 30),
		// "1/34-…T 2:4 AM Z …" is read by unwrapUI and by unwrapRFC3339: the
		// unwrapper's preference decides
		"prefer-ui":      strings.Repeat("7/29/2016 7:38:17 PM"+plain, 20) + strings.Repeat(cri(plain), 20) + plain + "1/34-67-90T 2:4 AM Z stderr F " + plain + strings.Repeat("7/29/2016 7:38:17 PM"+plain, 20) + strings.Repeat(j(plain), 20) + plain + "1/34-67-90T 2:4 AM Z stderr F " + plain + strings.Repeat(cri(plain), 3),
		"mixed-wrappers": strings.Repeat(strings.Repeat(j(plain), 7)+strings.Repeat(cri(plain), 7)+strings.Repeat(plain, 7)+cri(vol)+strings.Repeat(cri(plain), 5)+`{"log":"`+strings.TrimSuffix(plain, "\n")+`\n","stream":"stderr","time":"2024-08-12T03:10:00Z"}`+"\n"+strings.Repeat(j(plain), 5)+j(vol), 6),
	}
}

// TestBlockPathMatchesLinePath: reading block by block with runs of plain
// lines gives exactly the Result of reading every line through physical,
// for every test input and edge case, at several block sizes.
func TestBlockPathMatchesLinePath(t *testing.T) {
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		compareBlockPath(t, f, data, Options{}, nil)
	}
	for name, in := range blockEdgeCases() {
		compareBlockPath(t, name, []byte(in), Options{}, nil)
		compareBlockPath(t, name+"/max100", []byte(in), Options{MaxLineBytes: 100}, nil)
		compareBlockPath(t, name+"/klog", []byte(in), Options{Format: "klog"}, nil)
		compareBlockPath(t, name+"/readerr", []byte(in), Options{}, io.ErrUnexpectedEOF)
	}
	compareBlockPath(t, "synthetic", syntheticKCM(3000), Options{}, nil)
	for _, era := range []loggen.Era{loggen.Structured, loggen.JSON} {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 256 << 10, Era: era, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		compareBlockPath(t, "generated "+string(era), buf.Bytes(), Options{}, nil)
	}
}

func FuzzBlockPath(f *testing.F) {
	for _, in := range blockEdgeCases() {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		compareBlockPath(t, "fuzz", b, Options{MaxLineBytes: 200}, nil)
	})
}

func FuzzPlainKlogWall(f *testing.F) {
	f.Add([]byte("I0812 03:10:00.000001       1 event.go:291] x"))
	f.Add([]byte("I1312 03:10:00 1 x"))
	f.Fuzz(func(t *testing.T, p []byte) {
		w, ok := plainKlogWall(p)
		h, hok := parseKlogHeader(p)
		if ok != (hok && !h.badTime) || ok && w != h.w {
			t.Fatalf("%q: plain %v %+v, header %v %+v", p, ok, w, hok, h)
		}
	})
}

// indexTokenSlow is the reference of indexToken.
func indexTokenSlow(b []byte) int { return indexNaive(prefilterTokens, b) }

func TestIndexTokenAgreesWithReference(t *testing.T) {
	ins := []string{"", "olume", "xolume", "xxolume", "ab No retries", "Mount", "xMount", "evic", "diskIdd", "ZoneNotMatc", "ZoneNotMatch"}
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, strings.Split(string(data), "\n")...)
		for i := 0; i < len(data); i += 997 {
			ins = append(ins, string(data[i:]))
		}
	}
	for _, in := range ins {
		if got, want := indexToken([]byte(in)), indexTokenSlow([]byte(in)); got != want {
			t.Errorf("indexToken(%.80q) = %d, reference %d", in, got, want)
		}
	}
}

func FuzzIndexToken(f *testing.F) {
	f.Add([]byte("x No retries"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := indexToken(b), indexTokenSlow(b); got != want {
			t.Fatalf("indexToken(%q) = %d, reference %d", b, got, want)
		}
	})
}

func FuzzPlainKlog(f *testing.F) {
	f.Add([]byte("I0812 03:10:00.000001       1 event.go:291] x"))
	f.Add([]byte("I1312 03:10:00 1 x"))
	f.Add([]byte("W0101 23:59:60 1 x"))
	f.Add([]byte("I0812 03:10:00.123456789012345678                  1 x"))
	f.Add([]byte("E0812 03:10:00.12345678        \xff"))
	f.Fuzz(func(t *testing.T, p []byte) {
		mon, ok := plainKlog(p)
		h, hok := parseKlogHeader(p)
		if ok != (hok && !h.badTime) || ok && mon != h.w.mon {
			t.Fatalf("%q: plain %v %d, header %v %+v", p, ok, mon, hok, h)
		}
	})
}

// TestLeadingDigitsAndSpaces: the 8-byte-at-a-time counts agree with a
// byte loop for every byte value after every run length.
func TestLeadingDigitsAndSpaces(t *testing.T) {
	naive := func(b []byte, in func(byte) bool) int {
		n := 0
		for n < len(b) && in(b[n]) {
			n++
		}
		return n
	}
	isSpace := func(c byte) bool { return c == ' ' }
	for k := 0; k <= 20; k++ {
		for c := 0; c < 256; c++ {
			for _, tail := range []string{"", "7", "        ", "12345678"} {
				d := []byte(strings.Repeat("9", k) + string([]byte{byte(c)}) + tail)
				if got, want := leadingDigits(d), naive(d, isDigit); got != want {
					t.Fatalf("leadingDigits(%q) = %d, want %d", d, got, want)
				}
				sp := []byte(strings.Repeat(" ", k) + string([]byte{byte(c)}) + tail)
				if got, want := leadingSpaces(sp), naive(sp, isSpace); got != want {
					t.Fatalf("leadingSpaces(%q) = %d, want %d", sp, got, want)
				}
			}
		}
	}
}

// TestSpecsDecodeAhead: the analysis goroutines decode relevant klog entries
// ahead (buildSpecs), and each spec is the entry starting at its offset.
func TestSpecsDecodeAhead(t *testing.T) {
	data := syntheticKCM(3000)
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	specs := buildSpecs(data, analyzeBlock(data, DefaultMaxLineBytes, true, nil), DefaultMaxLineBytes)
	if len(specs) == 0 {
		t.Fatal("no specs")
	}
	for _, s := range specs {
		if !bytes.HasPrefix(data[s.off:], s.buf[:s.len0]) || s.rel0 != mayMatter(s.buf[:s.len0]) {
			t.Fatalf("spec at %d: %q", s.off, s.buf)
		}
		if s.json {
			t.Fatalf("spec at %d: a JSON spec in klog text", s.off)
		}
		want := klogEmit(s.buf)
		want.prepare()
		if want.ok || want.panicV != nil {
			if s.res == nil || !reflect.DeepEqual(*s.res, want) {
				t.Fatalf("spec at %d: result differs", s.off)
			}
		} else if s.res != nil {
			t.Fatalf("spec at %d: a non-event carries a result", s.off)
		}
	}
}

// TestWrappedRuns: journald and CRI "F" lines carrying irrelevant klog
// lines are read as runs (plainWrapped), with their host and process;
// CRI "P" lines and lines some other rule applies to are not.
func TestWrappedRuns(t *testing.T) {
	plain := "I0812 03:10:00.000001       1 event.go:291] x\n"
	for _, tc := range []struct {
		line string
		kind wrapKind
		host string
		proc string
	}{
		{"Aug 12 03:10:00 node-1 kubelet[123]: " + plain, wrapJournald, "node-1", "kubelet"},
		{"Feb  3 03:10:00 n k3s: " + plain, wrapJournald, "n", "k3s"},
		{"2024-08-12T03:10:00.301223000Z stderr F " + plain, wrapCRI, "", ""},
		{"2024-08-12T03:10:00.3+02:00 stdout F " + plain, wrapCRI, "", ""},
		{"2024-08-12T03:10:00.301223000Z stderr P " + plain, wrapNone, "", ""},
		{"2024-08-12T03:10:00.301223000Z " + plain, wrapNone, "", ""},
		{"2024-08-12T03:10:00+0000 node-1 kubelet[1]: " + plain, wrapNone, "", ""},
		{"Aug 12 03:10:00 node-1 kubelet[123]: I1312 03:10:00.000001 1 x.go:1] x\n", wrapNone, "", ""},
		{"Aug 12 03:10:00 node-1 kubelet[123]: I0812 03:10:00.000001 1 x.go:1] volume\n", wrapNone, "", ""},
	} {
		data := []byte(strings.Repeat(tc.line, 3))
		segs := analyzeBlock(data, DefaultMaxLineBytes, true, nil)
		if tc.kind == wrapNone {
			for _, g := range segs {
				if g.n > 0 {
					t.Errorf("%q: a run of %d lines", tc.line, g.n)
				}
			}
			continue
		}
		if len(segs) != 2 || segs[0].n != 2 || segs[0].wk != tc.kind || string(segs[0].host) != tc.host || string(segs[0].proc) != tc.proc ||
			!bytes.HasPrefix(data[segs[0].pay0:], []byte(plain)) || !bytes.HasPrefix(data[segs[0].payL:], []byte(plain)) || segs[0].payL <= segs[0].pay0 {
			t.Errorf("%q: segs %+v", tc.line, segs)
		}
	}
}

// FuzzPlainWrapped: a line plainWrapped accepts is unwrapped by physical to
// the same wrapper, payload, host and process whatever wrapper the
// unwrapper prefers, is not skipped, and carries a klog header with a valid
// clock of the month found.
func FuzzPlainWrapped(f *testing.F) {
	for _, in := range blockEdgeCases() {
		for _, l := range strings.Split(in, "\n") {
			f.Add([]byte(strings.TrimSuffix(l, "\r")))
		}
	}
	f.Add([]byte("2024-08-12T03:10:0"))
	f.Add([]byte("2024-08-12T03:10:00"))
	f.Fuzz(func(t *testing.T, p []byte) {
		w, ok := plainWrapped(p)
		if !ok {
			return
		}
		if len(p) == 0 || bytes.ContainsAny(p[:1], "#[$`-") || isPromptLoose(p) {
			t.Fatalf("%q: physical skips it", p)
		}
		for k := wrapNone; k < numWraps; k++ {
			u := unwrapper{prefer: k}
			out := u.unwrap(p)
			if out.kind != w.kind || out.grep || out.partial || out.broken || !bytes.Equal(out.payload, p[w.pay:]) ||
				!bytes.Equal(out.host, w.host) || !bytes.Equal(out.proc, w.proc) {
				t.Fatalf("%q (prefer %s): unwrap %+v, plainWrapped %+v", p, wrapNames[k], out, w)
			}
		}
		h, hok := parseKlogHeader(p[w.pay:])
		if !hok || h.badTime || h.w.mon != w.mon {
			t.Fatalf("%q: header %v %+v, plainWrapped %+v", p, hok, h, w)
		}
	})
}

// TestSpecPlumbing: a spec's plumbing verdict, found while it is decoded
// ahead, is fromPlumbing of its text (close takes it instead of parsing
// the header again), for klog entries plumbing or not and for JSON lines
// (never plumbing: such a line stays in a run).
func TestSpecPlumbing(t *testing.T) {
	var b bytes.Buffer
	b.Write(syntheticKCM(300))
	// entries with a continuation line cannot stay in a run
	b.WriteString("I0812 03:10:00.612388       1 reflector.go:255] Watch close - *v1.PersistentVolume total 12 items received\n  goroutine 12 [running]:\n")
	b.WriteString("I0812 03:10:00.612388       1 reconciler.go:288] attacherDetacher.AttachVolume started for volume \"pvc-1\"\n  more\n")
	b.WriteString(`{"ts":1723432200612.388,"caller":"cache/reflector.go:255","msg":"Watch close","type":"*v1.PersistentVolume"}` + "\n")
	b.WriteString(`{"ts":1723432200612.388,"caller":"reconciler/reconciler.go:288","msg":"attacherDetacher.AttachVolume started","volume":"pvc-2"}` + "\n")
	data := b.Bytes()
	specs := buildSpecs(data, analyzeBlock(data, DefaultMaxLineBytes, true, nil), DefaultMaxLineBytes)
	seen := map[[2]bool]int{}
	for _, s := range specs {
		if want := fromPlumbing(s.json, s.buf); s.plumbing != want {
			t.Fatalf("spec at %d (json %v): plumbing %v, fromPlumbing %v: %q", s.off, s.json, s.plumbing, want, s.buf)
		}
		seen[[2]bool{s.json, s.plumbing}]++
	}
	for _, k := range [][2]bool{{false, false}, {false, true}, {true, false}} {
		if seen[k] == 0 {
			t.Errorf("no spec with json %v, plumbing %v (specs %v)", k[0], k[1], seen)
		}
	}
}

// TestSpecTextsAndHeaders: a spec's text is its entry's lines joined with
// "\n" whether they end in LF or CR LF (pointing into the block only when
// they all end in LF), and the header it carries from the first line is
// the one parseKlogHeader reads from the whole text, its file name within
// the text; a first line whose header scan could read on into the next
// lines (no "]" in it) carries none.
func TestSpecTextsAndHeaders(t *testing.T) {
	const op = `attacherDetacher.AttachVolume started for volume "pvc-1" (UniqueName: "kubernetes.io/csi/d^v-1") from node "n1"`
	entries := []struct {
		lines []string
		eol   []string
		hdr   bool
	}{
		{[]string{"I0812 03:10:00.612388       1 reconciler.go:288] " + op}, []string{"\n"}, true},
		{[]string{"I0812 03:10:00.612388       1 reconciler.go:288] " + op, "  more volume text", "\tand more"}, []string{"\n", "\n", "\n"}, true},
		{[]string{"I0812 03:10:00.612388       1 reconciler.go:288] " + op, "  more volume text"}, []string{"\r\n", "\r\n"}, true},
		{[]string{"I0812 03:10:00.612388       1 reconciler.go:288] " + op, "  more volume text", "  last"}, []string{"\n", "\r\n", "\n"}, true},
		{[]string{"I0812 03:10:00.612388       1 reconciler.go:288] " + op}, []string{"\r\n"}, true},
		// no "]" on the first line: the continuation's is the header's
		{[]string{"I0812 03:10:00.612388       1 reconciler.go:288 volume", "  x] " + op}, []string{"\n", "\n"}, false},
		{[]string{"I0812 03:10:00.612388 1 a:1] volume"}, []string{"\n"}, true},
	}
	var b bytes.Buffer
	var want []string
	for _, e := range entries {
		for i, l := range e.lines {
			b.WriteString(l + e.eol[i])
		}
		want = append(want, strings.Join(e.lines, "\n"))
		b.WriteString("I0812 03:10:01.000000       1 leaderelection.go:278] successfully renewed lease\n")
	}
	data := b.Bytes()
	specs := buildSpecs(data, analyzeBlock(data, DefaultMaxLineBytes, true, nil), DefaultMaxLineBytes)
	if len(specs) != len(entries) {
		t.Fatalf("%d specs, want %d", len(specs), len(entries))
	}
	inBlock := func(p []byte) bool {
		for i := range data {
			if &data[i] == &p[0] {
				return true
			}
		}
		return false
	}
	for i, s := range specs {
		if string(s.buf) != want[i] {
			t.Errorf("spec %d: text %q, want %q", i, s.buf, want[i])
		}
		lf := !strings.Contains(strings.Join(entries[i].eol[:len(entries[i].eol)-1], ""), "\r")
		if inBlock(s.buf) != lf {
			t.Errorf("spec %d: text in the block %v, want %v", i, inBlock(s.buf), lf)
		}
		if s.hdrOK != entries[i].hdr {
			t.Errorf("spec %d: hdrOK %v, want %v", i, s.hdrOK, entries[i].hdr)
		}
		if !s.hdrOK {
			continue
		}
		h, _ := parseKlogHeader(s.buf)
		if !reflect.DeepEqual(s.hdr, h) || &s.hdr.file[0] != &h.file[0] {
			t.Errorf("spec %d: header %+v, parseKlogHeader %+v", i, s.hdr, h)
		}
		r := klogEmit(s.buf)
		r.prepare()
		if r.ok != (s.res != nil) || r.ok && !reflect.DeepEqual(*s.res, r) {
			t.Errorf("spec %d: result %+v, klogEmit's %+v", i, s.res, r)
		}
	}
}

// TestEventMemo: an event line found to be no event is remembered
// (eventMemo) and the lines that share its verdict are recognised by it;
// every spec's verdict is klogEmit's, for lines whose tail differs, and
// whose object's name holds a backslash or bytes that are not UTF-8 (the
// pairs may then decode otherwise: the shifted lines).
func TestEventMemo(t *testing.T) {
	const hdr = "I0812 00:00:18.641732       1 "
	pending := ` kind="PersistentVolumeClaim" apiVersion="v1" type="Normal" reason="ExternalProvisioning" message="waiting for a volume to be created, either by external provisioner \"x\" or manually created by system administrator"`
	// no reason for the names below; with an escaped quote ending the
	// name, "reason" is a key and the line an event
	shifted := `" k=" reason="FailedAttachVolume" message="AttachVolume.Attach failed for volume \"pvc-1\" : rpc error: code = Internal desc = boom" z="`
	lines := []string{
		`event.go:291] "Event occurred" object="ns/a"` + pending,
		`event.go:291] "Event occurred" object="ns/b"` + pending,
		`event.go:291] "Event occurred" object="ns/d"` + pending,
		`event.go:291] "Event occurred" object="ns/e" kind="Pod" apiVersion="v1" type="Warning" reason="FailedAttachVolume" message="AttachVolume.Attach failed for volume \"pvc-1\" : rpc error: code = Internal desc = boom"`,
		`event.go:291] "Event occurred" object="ns/f"` + pending,
		`event.go:291] "Event occurred" object="ns/g\"` + pending,
		"event.go:291] \"Event occurred\" object=\"ns/\xff\"" + pending,
		`event.go:291] "Event occurred" object="ns/h` + shifted,
		`event.go:291] "Event occurred" object="ns/i\` + shifted,
		`event.go:291] "Event occurred" object="ns/j"` + pending + "\n  continued",
		`event.go:291] "Event occurred" object="ns/k"` + pending,
	}
	var data []byte
	for _, l := range lines {
		data = append(data, hdr+l+"\n"...)
	}
	a := &ahead{}
	a.build(data, analyzeBlock(data, DefaultMaxLineBytes, true, nil), DefaultMaxLineBytes)
	if len(a.specs) != len(lines) {
		t.Fatalf("%d specs, want %d", len(a.specs), len(lines))
	}
	events := 0
	for i, s := range a.specs {
		want := klogEmit(s.buf)
		if (s.res != nil) != want.ok || s.plumbing != want.plumbing {
			t.Errorf("spec %d (%q): event %v plumbing %v, klogEmit's %v %v", i, s.buf, s.res != nil, s.plumbing, want.ok, want.plumbing)
		}
		if want.ok {
			events++
		}
	}
	if events != 2 {
		t.Errorf("%d events, want the FailedAttachVolume line and the escaped shifted one", events)
	}
	if string(a.rejected.tail) != `"`+pending || string(a.rejected.file) != "event.go" {
		t.Errorf("remembered %q %q", a.rejected.file, a.rejected.tail)
	}
}

// TestReaderYieldsOnFilesOnly: the block reader yields its core before
// each read (produceChunks) when it reads the input's file with read(2)
// itself, and not when a decompressor stands between (zstd's decoder runs
// goroutines of its own: yielding to them made a zstd input 1.5 times as
// slow) or when there is no file (stdin, archive members).
func TestReaderYieldsOnFilesOnly(t *testing.T) {
	dir := t.TempDir()
	plain := dir + "/kcm.log"
	text := strings.Repeat("I0812 00:00:00.000000       1 reconciler.go:1] x\n", 20000)
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		file   bool
		comp   string
		yields bool
	}{
		{"a file read as it is", true, "", true},
		{"a gzip file", true, "gzip", false},
		{"a zstd file", true, "zstd", false},
		{"no file (stdin, an archive member)", false, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			withMapping(false, mapWindow, nil, func() {
				f, err := os.Open(plain)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				st := newInputState(plain, 0)
				if c.file {
					st.file = f
				}
				src := st.blocks(bufio.NewReaderSize(f, sniffBufSize), DefaultMaxLineBytes, c.comp, nil)
				br, ok := src.(*blockReader)
				if !ok {
					t.Fatalf("blocks gave a %T, want a *blockReader (mapping is off)", src)
				}
				if br.yield != c.yields {
					t.Errorf("yield = %v, want %v", br.yield, c.yields)
				}
			})
		})
	}
}
