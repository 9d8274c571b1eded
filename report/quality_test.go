package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var q0 = time.Date(2021, 1, 13, 9, 51, 0, 0, time.UTC)

func qev(sec int, kind parser.Kind, node, code string, origin parser.Origin) parser.Event {
	return parser.Draft{Time: parser.StampOf(q0.Add(time.Duration(sec) * time.Second)), Kind: kind, Node: node, Code: code,
		Origin: origin, Component: parser.ComponentKubelet, Source: parser.Source{File: parser.InternPath("kubelet.log"), Line: parser.Int32(sec + 1)}}.Event()
}

// A kubelet MountDevice loop (mount started, bookkeeping, WaitForAttach
// succeeded, MountDevice failed, with mount timeouts in between) folds into
// one row per (kind, node, code); a success ends the run.
func TestKeyRowsFoldLoop(t *testing.T) {
	const b = "172.28.1.72"
	var evs []parser.Event
	for i := range 35 {
		s := i * 100
		evs = append(evs,
			qev(s, parser.MountStarted, b, "", 0),
			qev(s, parser.Bookkeeping, b, "", 0),
			qev(s+1, parser.WaitForAttachSucceeded, b, "", 0),
			qev(s+2, parser.MountDeviceFailed, b, parser.CodeSerialNotFound, 0),
			qev(s+2, parser.MountDeviceFailed, b, parser.CodeSerialNotFound, parser.OriginEvent), // Event echo
		)
		if i%2 == 1 {
			evs = append(evs, qev(s+50, parser.MountTimeout, b, parser.CodeDeadlineExceeded, 0))
		}
	}
	evs = append(evs, qev(4000, parser.WaitForAttachSucceeded, b, "", 0), qev(4001, parser.MountDeviceSucceeded, b, "", 0),
		qev(4100, parser.MountDeviceFailed, b, parser.CodeSerialNotFound, 0))
	(&timeline.Volume{Events: evs}).LinkEchoes() // as timeline.Build does
	rows := keyRows(evs)
	var got []string
	for _, r := range rows {
		got = append(got, r.step(utc))
	}
	want := []string{
		"MountDevice failed ×35 SerialNotFound until 10:47:42 (56m40s)",
		"mount timed out ×17 DeadlineExceeded until 10:46:50 (53m20s)",
		"MountDevice succeeded",
		"MountDevice failed SerialNotFound",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("key rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// the full view keeps every kind
	if n := len(collapse(evs)); n <= len(rows) {
		t.Errorf("collapse gave %d rows, key view %d", n, len(rows))
	}
}

// At 80 columns no input file name is cut in the middle, and evidence keeps
// the node and the error code.
func TestNoMidNameElision(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/seed-legacy/*.log")
	files = append(files, "../testdata/real-logs/017-aws-ebs-v1.4-old-events-volumeinuse-retry.log")
	res, errs := parser.ParseAll(files, parser.Options{})
	for _, err := range errs {
		t.Fatal(err)
	}
	tl := timeline.Build(res, timeline.Options{})
	r, err := rules.Run(tl, rules.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Text(&out, &Analysis{Timeline: tl, Result: r, Events: 1}, Options{Width: 80}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.Contains(s, base) {
			t.Errorf("file name %s not shown whole:\n%s", base, s)
		}
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line of %d cells: %q", w, l)
		}
	}
	for _, want := range []string{`from node "10.0.3.27"`, `on node "10.0.3.15"`, "ZoneNotMatch", "by serial"} {
		if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(s, "│", "")), " "), want) {
			t.Errorf("evidence lost %q", want)
		}
	}
	if strings.Contains(s, " ? ") {
		t.Errorf("unknown time shown as ?")
	}
	// next steps: numbered, none repeated
	if strings.Count(s, "ControllerUnpublishVolume (driver") > 1 {
		t.Errorf("ControllerUnpublishVolume step repeated:\n%s", s)
	}
}
