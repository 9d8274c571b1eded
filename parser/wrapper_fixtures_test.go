package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wrapFixture is one seed scenario log rendered into one wrapper shape.
type wrapFixture struct {
	name    string // shape/seed/file
	wrapper string // the Input.Wrapper it must be read as
	plain   string // the seed file it was rendered from
	data    []byte
}

// seedLine is one physical line of a seed log without its wrapper, with
// the instant its klog header (or the header above it) names.
type seedLine struct {
	bare string
	at   time.Time
}

// seedSources are the seed logs the wrapper fixtures are rendered from,
// with the zone of their klog clocks (testdata/incidents/README.md), the
// process writing them and its pid.
var seedSources = []struct {
	file, proc, pod string
	zone            *time.Location
	pid             int
}{
	{"seed-legacy/kcm.log", "kube-controller-manager", "kube-controller-manager-master-1", time.FixedZone("CST", 8*3600), 1},
	{"seed-legacy/kubelet.log", "kubelet", "kubelet", time.UTC, 2783},
	{"seed-1.28/kcm.log", "kube-controller-manager", "kube-controller-manager-master-1", time.UTC, 1},
	{"seed-1.28/kubelet.log", "kubelet", "kubelet", time.UTC, 2783},
}

// readSeed returns the lines of a seed log with their wrappers removed
// (by the parser's own unwrapper) and their klog instants (year 2024).
func readSeed(t testing.TB, path string, zone *time.Location) []seedLine {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var u unwrapper
	var out []seedLine
	var at time.Time
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		p := string(u.unwrap([]byte(l)).payload)
		if h, ok := parseKlogHeader([]byte(p)); ok {
			w := h.w
			at = time.Date(2024, time.Month(w.mon), w.day, w.hour, w.min, w.sec, w.nsec, zone)
		}
		out = append(out, seedLine{bare: p, at: at})
	}
	return out
}

// wrapShapes render one seed line (host, process, pid, pod) into a shape.
var wrapShapes = []struct {
	name, wrapper string
	kubeletOnly   bool
	render        func(l seedLine, zone *time.Location, host, proc, pod string, pid int) string
}{
	{"short-precise", "journald", false, func(l seedLine, z *time.Location, host, proc, _ string, pid int) string {
		return fmt.Sprintf("%s %s %s[%d]: %s", l.at.In(z).Format("Jan _2 15:04:05.000000"), host, proc, pid, l.bare)
	}},
	{"node-log-query", "journald", true, func(l seedLine, _ *time.Location, host, proc, _ string, pid int) string {
		// journalctl --utc --output=short-precise
		return fmt.Sprintf("%s %s %s[%d]: %s", l.at.UTC().Format("Jan _2 15:04:05.000000"), host, proc, pid, l.bare)
	}},
	{"short-full", "journald", false, func(l seedLine, _ *time.Location, host, proc, _ string, pid int) string {
		return fmt.Sprintf("%s %s %s[%d]: %s", l.at.UTC().Format("Mon 2006-01-02 15:04:05 MST"), host, proc, pid, l.bare)
	}},
	{"with-unit", "journald", false, func(l seedLine, _ *time.Location, host, proc, _ string, pid int) string {
		return fmt.Sprintf("%s %s %s.service[%d]: %s", l.at.UTC().Format("Mon 2006-01-02 15:04:05 MST"), host, proc, pid, l.bare)
	}},
	{"short-unix", "journald", false, func(l seedLine, _ *time.Location, host, proc, _ string, pid int) string {
		return fmt.Sprintf("%d.%06d %s %s[%d]: %s", l.at.Unix(), l.at.Nanosecond()/1000, host, proc, pid, l.bare)
	}},
	{"oc-node-prefix", "journald", true, func(l seedLine, _ *time.Location, host, proc, _ string, pid int) string {
		return fmt.Sprintf("10.0.3.27 %s %s %s[%d]: %s", l.at.UTC().Format("Jan _2 15:04:05.000000"), host, proc, pid, l.bare)
	}},
	{"locale-zh", "journald", false, func(l seedLine, z *time.Location, host, proc, _ string, pid int) string {
		t := l.at.In(z)
		return fmt.Sprintf("%d月 %02d %s %s %s[%d]: %s", t.Month(), t.Day(), t.Format("15:04:05"), host, proc, pid, l.bare)
	}},
	{"locale-fr", "journald", false, func(l seedLine, z *time.Location, host, proc, _ string, pid int) string {
		t := l.at.In(z)
		fr := [...]string{"janv.", "févr.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."}
		return fmt.Sprintf("%s %02d %s %s %s[%d]: %s", fr[t.Month()-1], t.Day(), t.Format("15:04:05"), host, proc, pid, l.bare)
	}},
	{"kubetail", "pod-prefix", false, func(l seedLine, _ *time.Location, _, _, pod string, _ int) string {
		return "[" + pod + "] " + l.bare
	}},
	{"kubectl-prefix", "pod-prefix", false, func(l seedLine, _ *time.Location, _, proc, pod string, _ int) string {
		return "[pod/" + pod + "/" + proc + "] " + l.bare
	}},
	{"stern", "pod-prefix", false, func(l seedLine, _ *time.Location, _, proc, pod string, _ int) string {
		return pod + " " + proc + " " + l.bare
	}},
	{"k9s", "k9s", false, func(l seedLine, _ *time.Location, _, _, _ string, _ int) string {
		return "│ " + l.bare + "   │"
	}},
	{"gcp-console", "gcp-console", false, func(l seedLine, _ *time.Location, _, _, _ string, _ int) string {
		if !looksKlog([]byte(l.bare)) {
			return l.bare // the further lines of a multi-line entry
		}
		sev := map[byte]string{'I': "INFO", 'W': "WARNING", 'E': "ERROR", 'F': "CRITICAL"}[l.bare[0]]
		consoleRow++
		return fmt.Sprintf("%d\t%s\t%s\t%s", consoleRow, sev, l.at.UTC().Format("2006-01-02 15:04:05.000 MST"), l.bare)
	}},
	{"kubectl-prefix-timestamps", "pod-prefix", false, func(l seedLine, z *time.Location, _, proc, pod string, _ int) string {
		return pod + " " + proc + " " + l.at.In(z).Format(time.RFC3339Nano) + " " + l.bare
	}},
	{"blockquote", "none", false, func(l seedLine, _ *time.Location, _, _, _ string, _ int) string {
		return "> " + l.bare
	}},
	{"backticks", "none", false, func(l seedLine, _ *time.Location, _, _, _ string, _ int) string {
		return "`" + l.bare + "`"
	}},
}

// consoleRow numbers the rows of the gcp-console shape.
var consoleRow int

// wrapperFixtures renders every seed log into every shape.
func wrapperFixtures(t testing.TB) []wrapFixture {
	var out []wrapFixture
	for _, src := range seedSources {
		path := filepath.Join("..", "testdata", "incidents", src.file)
		lines := readSeed(t, path, src.zone)
		host := "vm-3-27-centos"
		if src.proc != "kubelet" {
			host = "master-1"
		}
		for _, sh := range wrapShapes {
			if sh.kubeletOnly && src.proc != "kubelet" {
				continue
			}
			var b strings.Builder
			if sh.name == "k9s" {
				b.WriteString("┌──── Logs(kube-system/" + src.pod + ") ────┐\n")
			}
			for _, l := range lines {
				b.WriteString(sh.render(l, src.zone, host, src.proc, src.pod, src.pid))
				b.WriteByte('\n')
			}
			if sh.name == "k9s" {
				b.WriteString("└────────┘\n")
			}
			out = append(out, wrapFixture{name: sh.name + "/" + src.file, wrapper: sh.wrapper, plain: path, data: []byte(b.String())})
		}
	}
	// a kubectl describe seen through k9s
	d := filepath.Join("..", "testdata", "incidents", "seed-2021", "describe.txt")
	data, err := os.ReadFile(d)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("┌──── Describe(db/redis-master-0) ────┐\n")
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		b.WriteString("│ " + l + strings.Repeat(" ", max(0, 200-len(l))) + "│\n")
	}
	b.WriteString("└────────┘\n")
	out = append(out, wrapFixture{name: "k9s/seed-2021/describe.txt", wrapper: "k9s", plain: d, data: []byte(b.String())})
	return out
}

// TestWrapperFixturesMatchPlain: every seed log rendered into every
// wrapper shape gives the events of the plain seed log — the same kinds,
// volumes, nodes, pods and times — and names its wrapper.
func TestWrapperFixturesMatchPlain(t *testing.T) {
	for _, f := range wrapperFixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			want := parseFile(t, f.plain, Options{})
			got := ParseReader(bytes.NewReader(f.data), "x.log", Options{now: testNow})
			if got.Input.Wrapper != f.wrapper {
				t.Errorf("Wrapper = %q, want %q", got.Input.Wrapper, f.wrapper)
			}
			if got.Input.Component != want.Input.Component {
				t.Errorf("Component = %q, want %q", got.Input.Component, want.Input.Component)
			}
			if u := got.Input.Unaccounted(); u != 0 {
				t.Errorf("%d lines unaccounted", u)
			}
			if len(got.Events) != len(want.Events) {
				t.Fatalf("%d events, want %d", len(got.Events), len(want.Events))
			}
			for i := range got.Events {
				g, w := got.Events[i], want.Events[i]
				if g.Kind != w.Kind || g.Volume != w.Volume || g.PV != w.PV || g.Node != w.Node || g.Pod != w.Pod || !g.Time.Equal(w.Time) || g.Source.Line-w.Source.Line != got.Events[0].Source.Line-want.Events[0].Source.Line {
					t.Fatalf("event %d:\n got %s %s %s %s %s line %d\nwant %s %s %s %s %s line %d", i,
						g.Kind, g.PV, g.Node, g.Pod, g.Time, g.Source.Line, w.Kind, w.PV, w.Node, w.Pod, w.Time, w.Source.Line)
				}
			}
		})
	}
}

// TestWrapperFixturesBlockPath: the block path reads every wrapper
// fixture as the line path does.
func TestWrapperFixturesBlockPath(t *testing.T) {
	for _, f := range wrapperFixtures(t) {
		compareBlockPath(t, f.name, f.data, Options{}, nil)
	}
}
