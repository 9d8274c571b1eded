package parser

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	kcmRetry2021 = `I0113 16:25:19.123000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-1" (UniqueName: "kubernetes.io/csi/x^disk-1") from node "n1" 
E0113 16:27:19.123000       1 nestedpendingoperations.go:301] Operation for "{volumeName:kubernetes.io/csi/x^disk-1 podName: nodeName:}" failed. No retries permitted until 2021-01-13 16:27:21.123 +0800 CST m=+100.5 (durationBeforeRetry 2s). Error: "AttachVolume.Attach failed for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^disk-1\") from node \"n1\" : rpc error: code = Internal desc = boom"
`
	kubeletNoEvidence = `Jan 13 16:30:00 host-a kubelet[2783]: I0113 16:30:00.000000    2783 reconciler.go:224] operationExecutor.MountVolume started for volume "pvc-1" (UniqueName: "kubernetes.io/csi/x^disk-1") pod "p" (UID: "u") 
`
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestYearZoneFromRetryDeadline(t *testing.T) {
	res := ParseReader(strings.NewReader(kcmRetry2021), "kcm.log", Options{now: time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)})
	in := res.Input
	if in.Year != 2021 || in.YearFrom != FromRetry || in.Zone != "+08:00" || in.ZoneFrom != FromRetry {
		t.Fatalf("year %d from %s, zone %s from %s; want 2021 from retry-deadline, +08:00 from retry-deadline", in.Year, in.YearFrom, in.Zone, in.ZoneFrom)
	}
	if len(res.Events) != 2 {
		t.Fatalf("got %d events, want 2", len(res.Events))
	}
	want := []string{"2021-01-13T08:25:19.123Z", "2021-01-13T08:27:19.123Z"}
	for i, ev := range res.Events {
		if got := ev.Time.Format("2006-01-02T15:04:05.000Z07:00"); got != want[i] {
			t.Errorf("event %d time %s, want %s", i, got, want[i])
		}
	}
}

func TestOtherInputSharesClock(t *testing.T) {
	kcm := writeTemp(t, "kcm.log", kcmRetry2021)
	kubelet := writeTemp(t, "kubelet.log", kubeletNoEvidence)
	res, errs := ParseAll([]string{kcm, kubelet}, Options{})
	if len(errs) != 0 || len(res) != 2 {
		t.Fatalf("errs %v, %d results", errs, len(res))
	}
	in := res[1].Input
	if in.Year != 2021 || in.YearFrom != FromOtherInput || in.Zone != "+08:00" || in.ZoneFrom != FromOtherInput {
		t.Fatalf("kubelet: year %d from %s, zone %s from %s", in.Year, in.YearFrom, in.Zone, in.ZoneFrom)
	}
	if got := res[1].Events[0].Time.Format(time.RFC3339); got != "2021-01-13T08:30:00Z" {
		t.Errorf("kubelet event at %s, want 2021-01-13T08:30:00Z", got)
	}
	if res[1].Events[0].Source.Input != 1 {
		t.Errorf("Source.Input = %d, want 1", res[1].Events[0].Source.Input)
	}
}

func TestSameHostPreferred(t *testing.T) {
	// host-b has +08:00 evidence, host-a has -05:00 evidence; the kubelet on
	// host-a must take -05:00 although the evidenced inputs disagree.
	a := "Jan 13 03:27:19 host-a kube-controller-manager[7]: E0113 03:27:19.123000       7 nestedpendingoperations.go:301] Operation for \"{volumeName:v podName: nodeName:}\" failed. No retries permitted until 2021-01-13 03:27:21.123 -0500 EST m=+100.5 (durationBeforeRetry 2s). Error: \"AttachVolume.Attach failed for volume \\\"pvc-1\\\" (UniqueName: \\\"v\\\") from node \\\"n1\\\" : x\"\n"
	b := strings.Replace(kcmRetry2021, "I0113", "I0113", 1)
	pa := writeTemp(t, "a.log", a)
	pb := writeTemp(t, "b.log", b)
	pk := writeTemp(t, "k.log", kubeletNoEvidence)
	res, _ := ParseAll([]string{pb, pa, pk}, Options{})
	if z := res[1].Input.Zone; z != "-05:00" {
		t.Fatalf("host-a kcm zone %s, want -05:00", z)
	}
	if in := res[2].Input; in.Zone != "-05:00" || in.ZoneFrom != FromOtherInput {
		t.Errorf("kubelet zone %s from %s, want -05:00 from other-input", in.Zone, in.ZoneFrom)
	}
}

func TestYearZoneSources(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	shanghai := time.FixedZone("CST", 8*3600)
	tests := []struct {
		name     string
		in       string
		opt      Options
		year     int
		yearFrom string
		zone     string
		zoneFrom string
		first    string // time of the first event
	}{
		{
			name: "wrapper offset differs from klog clock",
			in:   "2025-07-23T03:20:43.248292357-04:00 I0723 07:20:43.246861       1 csi_handler.go:292] \"Detaching\" VolumeAttachment=\"csi-aa\"\n",
			year: 2025, yearFrom: FromWrapper, zone: "+00:00", zoneFrom: FromWrapper,
			first: "2025-07-23T07:20:43.246861Z",
		},
		{
			name: "cri in local zone",
			in:   "2024-08-12T03:14:10.912376Z stderr F I0812 11:14:10.912376       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"p\" (UniqueName: \"v\") from node \"n\" \n",
			year: 2024, yearFrom: FromWrapper, zone: "+08:00", zoneFrom: FromWrapper,
			first: "2024-08-12T03:14:10.912376Z",
		},
		{
			name: "flags win",
			in:   kcmRetry2021,
			opt:  Options{Year: 2019, Location: shanghai},
			year: 2019, yearFrom: FromFlag, zone: "CST", zoneFrom: FromFlag,
			first: "2019-01-13T08:25:19.123Z",
		},
		{
			name: "assumed",
			in:   "I0812 03:10:00.612388       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"p\" (UniqueName: \"v\") from node \"n\" \n",
			year: 2025, yearFrom: FromAssumed, zone: "+00:00", zoneFrom: FromAssumed,
			first: "2025-08-12T03:10:00.612388Z",
		},
		{
			name: "json ts",
			in:   `{"ts":1723432455619.804,"caller":"operationexecutor/operation_generator.go:298","msg":"AttachVolume.Attach succeeded for volume \"p\" (UniqueName: \"v\") from node \"n\" ","v":0}` + "\n",
			year: 2024, yearFrom: FromJSONTS, zone: "+00:00", zoneFrom: FromJSONTS,
			first: "2024-08-12T03:14:15.619804Z",
		},
		{
			// stern's paste of several pods: the attacher's klog lines
			// beside the plugin's logrus lines, which carry the year
			name: "klog beside logrus time=",
			in: "[csi-attacher-7cb4] I1208 08:35:46.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"p\" (UniqueName: \"v\") from node \"n\" \n" +
				"[longhorn-csi-plugin-gcprq longhorn-csi-plugin] time=\"2020-12-08T08:35:47Z\" level=error msg=\"GRPC error: rpc error: code = Aborted desc = The volume pvc-e4bc72b8 is attaching\"\n",
			year: 2020, yearFrom: FromJSONTS, zone: "+00:00", zoneFrom: FromAssumed,
			first: "2020-12-08T08:35:46Z",
		},
		{
			// the year that puts the last clock reading nearest the latest
			// absolute time, across a new year
			name: "klog beside json ts across a new year",
			in: "I1231 23:59:59.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"p\" (UniqueName: \"v\") from node \"n\" \n" +
				`{"ts":1641000001000.0,"caller":"operationexecutor/operation_generator.go:298","msg":"AttachVolume.Attach succeeded for volume \"p\" (UniqueName: \"v\") from node \"n\" ","v":0}` + "\n",
			year: 2021, yearFrom: FromJSONTS, zone: "+00:00", zoneFrom: FromAssumed,
			first: "2021-12-31T23:59:59Z",
		},
		{
			name: "rollover Dec to Jan",
			in: "I1231 23:59:59.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"p\" (UniqueName: \"v\") from node \"n\" \n" +
				"E0101 00:00:01.000000       1 nestedpendingoperations.go:301] Operation for \"{volumeName:v podName: nodeName:}\" failed. No retries permitted until 2022-01-01 00:00:03 +0000 UTC m=+1.5 (durationBeforeRetry 2s). Error: \"AttachVolume.Attach failed for volume \\\"p\\\" (UniqueName: \\\"v\\\") from node \\\"n\\\" : x\"\n",
			year: 2021, yearFrom: FromRetry, zone: "+00:00", zoneFrom: FromRetry,
			first: "2021-12-31T23:59:59Z",
		},
		{
			name: "reversed paste Jan to Dec",
			in: "E0101 00:00:01.000000       1 nestedpendingoperations.go:301] Operation for \"{volumeName:v podName: nodeName:}\" failed. No retries permitted until 2022-01-01 00:00:03 +0000 UTC m=+1.5 (durationBeforeRetry 2s). Error: \"AttachVolume.Attach failed for volume \\\"p\\\" (UniqueName: \\\"v\\\") from node \\\"n\\\" : x\"\n" +
				"I1231 23:59:59.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"p\" (UniqueName: \"v\") from node \"n\" \n",
			year: 2022, yearFrom: FromRetry, zone: "+00:00", zoneFrom: FromRetry,
			first: "2022-01-01T00:00:01Z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := tt.opt
			opt.now = now
			res := ParseReader(strings.NewReader(tt.in), "x.log", opt)
			in := res.Input
			if in.Year != tt.year || in.YearFrom != tt.yearFrom || in.Zone != tt.zone || in.ZoneFrom != tt.zoneFrom {
				t.Errorf("year %d from %s, zone %s from %s; want %d from %s, %s from %s", in.Year, in.YearFrom, in.Zone, in.ZoneFrom, tt.year, tt.yearFrom, tt.zone, tt.zoneFrom)
			}
			if len(res.Events) == 0 {
				t.Fatalf("no events; problems %v", in.Problems)
			}
			if got := res.Events[0].Time.Format("2006-01-02T15:04:05.999999999Z07:00"); got != tt.first {
				t.Errorf("first event at %s, want %s", got, tt.first)
			}
		})
	}
}

func TestMatchWall(t *testing.T) {
	tests := []struct {
		name string
		w    wall
		t    string
		year int
		off  time.Duration
		ok   bool
	}{
		{name: "same zone", w: wall{1, 13, 16, 27, 19, 123000000}, t: "2021-01-13T16:27:19.123+08:00", year: 2021, off: 8 * time.Hour, ok: true},
		{name: "utc", w: wall{8, 12, 3, 10, 1, 0}, t: "2024-08-12T03:10:01.2Z", year: 2024, ok: true},
		{name: "new year boundary", w: wall{12, 31, 23, 0, 0, 0}, t: "2022-01-01T04:00:00Z", year: 2021, off: -5 * time.Hour, ok: true},
		{name: "india", w: wall{3, 1, 10, 30, 0, 0}, t: "2024-03-01T05:00:00Z", year: 2024, off: 5*time.Hour + 30*time.Minute, ok: true},
		{name: "unexplained", w: wall{3, 1, 10, 37, 0, 0}, t: "2024-03-01T05:00:00Z"},
		{name: "invalid wall", w: wall{13, 1, 10, 0, 0, 0}, t: "2024-03-01T05:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := time.Parse(time.RFC3339Nano, tt.t)
			if err != nil {
				t.Fatal(err)
			}
			y, off, ok := matchWall(tt.w, ts)
			if ok != tt.ok || (ok && (y != tt.year || off != tt.off)) {
				t.Errorf("matchWall = %d %v %v, want %d %v %v", y, off, ok, tt.year, tt.off, tt.ok)
			}
		})
	}
}

func TestRetryFromText(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		until   string
		backoff time.Duration
		ok      bool
	}{
		{name: "new", text: `Operation for "{…}" failed. No retries permitted until 2023-02-17 12:11:29.160347027 -0600 CST m=+676618.002244475 (durationBeforeRetry 2m2s). Error: x`, until: "2023-02-17T18:11:29.160347027Z", backoff: 2*time.Minute + 2*time.Second, ok: true},
		{name: "goroutinemap no mono", text: `Operation for "v" failed. No retries permitted until 2016-07-29 17:40:17.644903469 +0000 UTC (durationBeforeRetry 2m0s). error: x`, until: "2016-07-29T17:40:17.644903469Z", backoff: 2 * time.Minute, ok: true},
		{name: "numeric zone name", text: `No retries permitted until 2023-02-17 12:11:29 -0700 -07 m=+1.0 (durationBeforeRetry 500ms)`, until: "2023-02-17T19:11:29Z", backoff: 500 * time.Millisecond, ok: true},
		{name: "garbage", text: `No retries permitted until tomorrow (durationBeforeRetry 1s)`},
		{name: "absent", text: `nothing here`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, b, ok := retryFromText(tt.text)
			if ok != tt.ok {
				t.Fatalf("ok = %v", ok)
			}
			if ok && (u.UTC().Format(time.RFC3339Nano) != tt.until || b != tt.backoff) {
				t.Errorf("got %s %v, want %s %v", u.UTC().Format(time.RFC3339Nano), b, tt.until, tt.backoff)
			}
		})
	}
}

func TestYearInheritedWithTZFlag(t *testing.T) {
	kcm := writeTemp(t, "kcm.log", kcmRetry2021)
	kubelet := writeTemp(t, "kubelet.log", kubeletNoEvidence)
	res, _ := ParseAll([]string{kcm, kubelet}, Options{Location: time.FixedZone("CST", 8*3600)})
	in := res[1].Input
	if in.Year != 2021 || in.YearFrom != FromOtherInput || in.ZoneFrom != FromFlag {
		t.Fatalf("year %d from %s, zone from %s", in.Year, in.YearFrom, in.ZoneFrom)
	}
	if got := res[1].Events[0].Time.Format(time.RFC3339); got != "2021-01-13T08:30:00Z" {
		t.Errorf("kubelet event at %s", got)
	}
}

// wallStamp gives what time.Date gives (wallTime, then StampOf) for every
// reading of a fixed zone: month ends run into the next month, February 29
// of a common year into March 1, a leap second is the end of 23:59:59, and
// years beyond a Stamp's are left to time.Date.
func TestWallStampMatchesTimeDate(t *testing.T) {
	check := func(t *testing.T, c clockReading, y int, off time.Duration) {
		t.Helper()
		got, ok := wallStamp(c, y, off)
		if y < 1679 || y > 2261 {
			if ok {
				t.Errorf("wallStamp(%+v, %d, %v) read a year a Stamp clamps", c, y, off)
			}
			return
		}
		if want := StampOf(wallTime(c.wall(), y, nil, off)); !ok || got != want {
			t.Errorf("wallStamp(%+v, %d, %v) = %v, %v; time.Date gives %v", c, y, off, got.UTC(), ok, want.UTC())
		}
	}
	for _, tc := range []struct {
		name string
		c    clockReading
		y    int
		off  time.Duration
	}{
		{"epoch", clockReading{mon: 1, day: 1}, 1970, 0},
		{"april 31", clockReading{mon: 4, day: 31, hour: 12}, 2024, 0},
		{"feb 29 of a common year", clockReading{mon: 2, day: 29}, 2023, 0},
		{"feb 29 of a leap year", clockReading{mon: 2, day: 29}, 2024, 0},
		{"feb 29 of 1900", clockReading{mon: 2, day: 29}, 1900, 0},
		{"feb 29 of 2000", clockReading{mon: 2, day: 29}, 2000, 0},
		{"leap second", clockReading{mon: 12, day: 31, hour: 23, min: 59, sec: 60, nsec: 5}, 2016, 0},
		{"east of UTC", clockReading{mon: 8, day: 12, hour: 3, min: 10, sec: 1, nsec: 734512000}, 2024, 8 * time.Hour},
		{"west of UTC, odd offset", clockReading{mon: 1, day: 1, hour: 0, nsec: 1}, 2025, -(9*time.Hour + 30*time.Minute + 7*time.Second)},
		{"nanoseconds past a second", clockReading{mon: 3, day: 1, sec: 59, nsec: 1<<31 - 1}, 2024, 0},
		{"first year", clockReading{mon: 1, day: 1}, 1679, 0},
		{"last year", clockReading{mon: 12, day: 31, hour: 23, min: 59, sec: 59, nsec: 999999999}, 2261, -14 * time.Hour},
		{"before", clockReading{mon: 6, day: 1}, 1678, 0},
		{"after", clockReading{mon: 6, day: 1}, 2262, 0},
		{"long ago", clockReading{mon: 6, day: 1}, -5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.c, tc.y, tc.off) })
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		c := clockReading{
			mon: uint8(1 + r.IntN(12)), day: uint8(1 + r.IntN(31)), hour: uint8(r.IntN(24)),
			min: uint8(r.IntN(60)), sec: uint8(r.IntN(61)), nsec: uint32(r.IntN(1 << 31)),
		}
		check(t, c, 1600+r.IntN(800), time.Duration(r.Int64N(int64(28*time.Hour)))-14*time.Hour)
	}
}

// FuzzWallStamp: any reading of valid fields, any year and offset.
func FuzzWallStamp(f *testing.F) {
	f.Add(uint8(8), uint8(12), uint8(3), uint8(10), uint8(1), uint32(734512000), 2024, int64(0))
	f.Add(uint8(2), uint8(29), uint8(0), uint8(0), uint8(60), uint32(0), 2023, int64(-8*time.Hour))
	f.Fuzz(func(t *testing.T, mon, day, hour, min, sec uint8, nsec uint32, y int, off int64) {
		c := clockReading{mon: mon, day: day, hour: hour, min: min, sec: sec, nsec: nsec}
		if !c.wall().valid() || nsec > math.MaxInt32 || off < -int64(48*time.Hour) || off > int64(48*time.Hour) {
			return
		}
		got, ok := wallStamp(c, y, time.Duration(off))
		if !ok {
			return
		}
		if want := StampOf(wallTime(c.wall(), y, nil, time.Duration(off))); got != want {
			t.Errorf("wallStamp(%+v, %d, %d) = %v; time.Date gives %v", c, y, off, got.UTC(), want.UTC())
		}
	})
}
