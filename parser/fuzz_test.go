package parser

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes to the envelope and message sides. It is
// seeded with every line of the shipped logs (and a few whole files).
// Invariants: no panic, every physical line accounted for, events point at
// lines that exist, times are UTC.
func FuzzParse(f *testing.F) {
	for _, path := range testInputs(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 4096 {
			f.Add(data) // whole small files; big ones make minimisation slow
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" && !strings.HasPrefix(line, "# ") {
				f.Add([]byte(line + "\n"))
			}
		}
	}
	for _, fx := range wrapperFixtures(f) {
		for i, line := range strings.Split(string(fx.data), "\n") {
			if i < 8 && line != "" {
				f.Add([]byte(line + "\n"))
			}
		}
	}
	// paste shapes (wrap_markup.go, payload_eventmsg.go) and an
	// event-exporter record
	for _, s := range []string{
		"```  Warning  FailedMount  94s (x21 over 28m)  kubelet, n1  MountVolume.MountDevice failed for volume \"pvc-1\" : driver name x not found```\n",
		"`MountVolume.MountDevice failed for volume \"pvc-1\": mount failed`\n",
		".AttachVolume.Attach succeeded for volume \"pvc-1\"\n\nMountVolume.SetUp failed for volume \"pvc-1\" : x\n continued\n",
		"> E0803 03:23:15.172341       1 utils.go:119] GRPC error: Aborted\n> Mounting command: mount\n",
		"Multi-Attach error for volume \"pvc-1\" Volume is already exclusively attached to one node\n",
		"csi-node-x csi 2023-02-20T02:47:31.360297931-03:00 W0220 05:47:31.359104       1 n.go:1] Failed to find device for the volumeID: \"v\"\n",
		"3\tWARNING\t2024-08-12 03:10:00.612 UTC\tW0812 03:10:00.612388       1 reconciler.go:1] attach\n",
		"7\tERROR\t2024-08-12 03:10:00 UTC\tcontroller-manager\tAttachVolume.Attach failed for volume \"pvc-1\"\n",
		`{"metadata":{"uid":"u"},"reason":"FailedMount","message":"MountVolume.SetUp failed for volume \"pvc-1\" : x","source":{"component":"kubelet","host":"n1"},"lastTimestamp":"2024-08-12T03:10:00Z","count":2,"type":"Warning","involvedObject":{"kind":"Pod","namespace":"ns","name":"p"}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Add(gzHeaderOnly)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := ParseReader(bytes.NewReader(data), "fuzz.log", Options{MaxLineBytes: 4096, now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		in := res.Input
		if u := in.Unaccounted(); u != 0 {
			t.Fatalf("%d lines unaccounted: %+v", u, in)
		}
		if n := bytes.Count(data, []byte("\n")); in.Lines > n+1 || (len(data) > 0 && !in.Truncated && in.Lines < n && !isCompressed(data)) {
			t.Fatalf("read %d lines from %d newlines", in.Lines, n)
		}
		if in.Events != len(res.Events) {
			t.Fatalf("Input.Events %d, %d events", in.Events, len(res.Events))
		}
		for _, ev := range res.Events {
			if int(ev.Source.Line) < 1 || int(ev.Source.Line) > in.Lines {
				t.Fatalf("event at line %d of %d", ev.Source.Line, in.Lines)
			}
		}
	})
}

var gzHeaderOnly = []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff}
