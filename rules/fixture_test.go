package rules

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Rule fixtures are small event scripts, one event per line, read into a
// hand-built *timeline.Timeline (see loadFixture). A line reads
//
//	HH:MM:SS[.fff] KIND key=value … [err="…"] [detail="…"]
//
// keys: vol (volume key, default the first "volume" line), node, pod, code,
// backoff (durationBeforeRetry), origin (event|describe), count, span, comp.
// Directives: "volume KEY [pv=…] [multi]", "@PATH" (the file the following
// lines pretend to come from), "end HH:MM:SS" (the logs go on until then),
// "restart HH:MM:SS REASON". Evidence points back at fixture lines, and its
// text is the fixture line itself.
//
// A sibling <fixture>.state.yaml (kubectl get -o yaml of the objects the
// rules may ask about) becomes the timeline's cluster state; its times are
// on the fixture's day (2024-08-12). The golden dump then shows the
// findings' checks and state evidence.

var fixtureDay = time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)

func loadFixture(t testing.TB, path string) *timeline.Timeline {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tl := &timeline.Timeline{}
	vols := map[string]*timeline.Volume{}
	var order []string
	defVol := ""
	src := filepath.Base(path)
	sc := bufio.NewScanner(f)
	line := 0
	parseTime := func(s string) time.Time {
		tm, err := time.Parse("15:04:05.999999", s)
		if err != nil {
			t.Fatalf("%s:%d: bad time %q", path, line, s)
		}
		return fixtureDay.Add(time.Duration(tm.Hour())*time.Hour + time.Duration(tm.Minute())*time.Minute + time.Duration(tm.Second())*time.Second + time.Duration(tm.Nanosecond()))
	}
	getVol := func(k string) *timeline.Volume {
		if v := vols[k]; v != nil {
			return v
		}
		v := &timeline.Volume{UniqueName: k}
		v.SetKey(k)
		vols[k] = v
		order = append(order, k)
		return v
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := splitFields(text)
		switch {
		case fields[0] == "volume":
			k := strings.Trim(fields[1], `"`)
			v := getVol(k)
			if defVol == "" {
				defVol = k
			}
			for _, kv := range fields[2:] {
				k, val, _ := strings.Cut(kv, "=")
				switch k {
				case "pv":
					v.PV = val
				case "multi":
					v.Multi = true
				case "driver":
					v.SetDriver(val)
				}
			}
			continue
		case strings.HasPrefix(fields[0], "@"):
			src = fields[0][1:]
			continue
		case fields[0] == "end":
			tl.End = parseTime(fields[1])
			continue
		case fields[0] == "restart":
			tl.Restarts = append(tl.Restarts, timeline.Restart{Time: parseTime(fields[1]), Reason: strings.Join(fields[2:], " "), Source: parser.Source{File: parser.InternPath(src), Line: parser.Int32(line)}})
			continue
		}
		kind, ok := parser.ParseKind(fields[1])
		if !ok || kind == 0 {
			t.Fatalf("%s:%d: unknown event kind %q", path, line, fields[1])
		}
		e := parser.Draft{
			Time:   parser.StampOf(parseTime(fields[0])),
			Kind:   kind,
			Source: parser.Source{File: parser.InternPath(src), Line: parser.Int32(line)},
			Text:   parser.TextOf(text),
			RWXKey: parser.HasRWXKey(text), // as the parser sets it
		}
		vol := defVol
		for _, kv := range fields[2:] {
			k, val, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("%s:%d: want key=value, got %q", path, line, kv)
			}
			val = strings.Trim(val, `"`)
			switch k {
			case "vol":
				vol = val
			case "node":
				e.Node = val
			case "pod":
				e.Pod = val
			case "code":
				e.Code = val
			case "err":
				e.Error = val
			case "detail":
				e.Detail = val
			case "origin":
				if err := e.Origin.UnmarshalText([]byte(val)); err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
			case "comp":
				e.Component = parser.ComponentOf(val)
			case "count":
				n, _ := strconv.Atoi(val)
				e.Count = parser.Int32(n)
			case "span":
				e.Span, _ = time.ParseDuration(val)
			case "backoff":
				d, _ := time.ParseDuration(val)
				e.Retry = &parser.Retry{Backoff: d}
			default:
				t.Fatalf("%s:%d: unknown key %q", path, line, k)
			}
		}
		if e.Component == 0 {
			e.Component = parser.ComponentKCM
			if strings.Contains(src, "kubelet") {
				e.Component = parser.ComponentKubelet
			}
		}
		if vol == "-" {
			tl.Other = append(tl.Other, e.Event())
		} else {
			if vol == "" {
				vol = "kubernetes.io/csi/test.csi.example.com^disk-test"
				defVol = vol
			}
			v := getVol(vol)
			e.Volume, e.PV = v.UniqueName, v.PV
			v.Events = append(v.Events, e.Event())
		}
		if e.Time.UTC().After(tl.End) {
			tl.End = e.Time.UTC()
		}
		if tl.Start.IsZero() || e.Time.UTC().Before(tl.Start) {
			tl.Start = e.Time.UTC()
		}
	}
	for _, k := range order {
		v := vols[k]
		byTime(v.Events)
		finishVolume(v)
		tl.Volumes = append(tl.Volumes, v)
	}
	sort.SliceStable(tl.Volumes, func(i, j int) bool { return tl.Volumes[i].First().Before(tl.Volumes[j].First()) })
	if sp := strings.TrimSuffix(path, ".txt") + ".state.yaml"; fileExists(sp) {
		snap := &state.Snapshot{}
		if err := snap.ReadFile(sp); err != nil {
			t.Fatal(err)
		}
		for _, p := range snap.Problems {
			t.Fatalf("%s", p)
		}
		tl.State = snap
	}
	return tl
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// finishVolume fills the derived facts a timeline.Build would: nodes, pods,
// first/last, and controller and kubelet intervals per node (the semantics
// documented in timeline/types.go, simplified).
func finishVolume(v *timeline.Volume) {
	open := map[string]int{}  // node → index of open controller interval
	kopen := map[string]int{} // node → index of open kubelet interval
	var first, last time.Time
	for i, e := range v.Events {
		if first.IsZero() || e.Time.UTC().Before(first) {
			first = e.Time.UTC()
		}
		if e.Time.UTC().After(last) {
			last = e.Time.UTC()
		}
		v.SetSpan(first, last)
		v.SetNodes(append(v.Nodes(), e.Node))
		v.SetPods(append(v.Pods(), e.Pod))
		if e.Origin != 0 || e.Node == "" {
			continue
		}
		if st, ok := controllerState(e.Kind); ok {
			if j, ok := open[e.Node]; ok {
				if v.Intervals[j].State == st {
					continue
				}
				v.Intervals[j].SetTimes(v.Intervals[j].Start(), e.Time.UTC())
				v.Intervals[j].To = int32(i)
			}
			v.Intervals = append(v.Intervals, timeline.NewInterval(e.Node, st, e.Time.UTC(), time.Time{}, int32(i), -1))
			open[e.Node] = len(v.Intervals) - 1
		}
		var ks timeline.State
		switch e.Kind {
		case parser.VerifyAttachedStarted, parser.MountStarted:
			ks = timeline.Mounting
		case parser.MountDeviceSucceeded, parser.SetupSucceeded:
			ks = timeline.Mounted
		case parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed:
			ks = timeline.MountFailing
		case parser.UnmountDeviceSucceeded, parser.TeardownSucceeded:
			ks = timeline.Unmounted
		default:
			continue
		}
		if j, ok := kopen[e.Node]; ok {
			kubelet := v.Kubelet()
			if kubelet[j].State == ks {
				continue
			}
			kubelet[j].SetTimes(kubelet[j].Start(), e.Time.UTC())
			kubelet[j].To = int32(i)
		}
		v.SetKubelet(append(v.Kubelet(), timeline.NewInterval(e.Node, ks, e.Time.UTC(), time.Time{}, int32(i), -1)))
		kopen[e.Node] = len(v.Kubelet()) - 1
	}
	v.SetNodes(uniqSorted(v.Nodes()))
	v.SetPods(uniqSorted(v.Pods()))
	v.LinkEchoes()
}

// splitFields splits on blanks, keeping key="quoted value" together.
func splitFields(s string) []string {
	var out []string
	var cur strings.Builder
	inQ := false
	for _, r := range s {
		switch {
		case r == '"':
			inQ = !inQ
			cur.WriteRune(r)
		case (r == ' ' || r == '\t') && !inQ:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// dump renders a Result one record per line, for golden files.
func dump(res Result) string {
	var b strings.Builder
	ts := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("01-02T15:04:05.000")
	}
	for i, f := range res.Findings {
		id := fmt.Sprintf("F%d", i)
		fmt.Fprintf(&b, "%s %s %s vol=%s pv=%s nodes=%s pods=%s %s→%s count=%d code=%s\n", id, f.Severity, f.Rule, f.Volume, orDash(f.PV),
			strings.Join(f.Nodes, ","), orDash(strings.Join(f.Pods, ",")), ts(f.Start), ts(f.End), f.Count, orDash(f.Code))
		fmt.Fprintf(&b, "%s summary: %s\n", id, f.Summary)
		for _, e := range f.Evidence {
			fmt.Fprintf(&b, "%s evidence: %s:%d %s — %s\n", id, e.Path, e.Line, ts(e.Time), e.Note)
			if e.SourceKind != "" {
				fmt.Fprintf(&b, "%s %s: %s\n", id, e.SourceKind, e.Text)
			}
		}
		for _, c := range f.Checks {
			fmt.Fprintf(&b, "%s check %s %s: %s\n", id, c.Check, c.Verdict, c.Text)
		}
		for _, s := range f.Steps {
			if strings.Contains(s.Text, "by the cluster state") {
				fmt.Fprintf(&b, "%s step: %s\n", id, s.Text)
			}
		}
	}
	for i, inc := range res.Incidents {
		id := fmt.Sprintf("I%d", i)
		var chain []string
		for _, c := range inc.Chain {
			chain = append(chain, fmt.Sprintf("F%d", c))
		}
		fmt.Fprintf(&b, "%s %s vol=%s chain=%s\n", id, inc.Severity, inc.Volume, strings.Join(chain, ","))
		fmt.Fprintf(&b, "%s summary: %s\n", id, inc.Summary)
		fmt.Fprintf(&b, "%s component: %s\n", id, orDash(inc.Component))
		for _, s := range inc.Story {
			fmt.Fprintf(&b, "%s story: %s\n", id, s)
		}
	}
	for _, e := range res.Errors {
		fmt.Fprintf(&b, "E %s\n", e)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// fixtures lists rules/testdata/<rule>/*.txt.
func fixtures(t testing.TB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "golden" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("testdata", d.Name(), "*.txt"))
		slices.Sort(files)
		out[d.Name()] = files
	}
	return out
}
