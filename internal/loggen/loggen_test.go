package loggen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

type generated struct {
	kcm, kubelet []byte
	m            *Manifest
}

func generate(t testing.TB, size int64, era Era, seed uint64) generated {
	t.Helper()
	var kcm, kl bytes.Buffer
	m, err := Generate(&kcm, Config{Size: size, Era: era, Seed: seed, Kubelet: &kl})
	if err != nil {
		t.Fatal(err)
	}
	return generated{kcm.Bytes(), kl.Bytes(), m}
}

func TestDeterministic(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			a := generate(t, 2<<20, era, 7)
			b := generate(t, 2<<20, era, 7)
			if sha256.Sum256(a.kcm) != sha256.Sum256(b.kcm) || sha256.Sum256(a.kubelet) != sha256.Sum256(b.kubelet) {
				t.Fatal("same seed produced different bytes")
			}
			var alone bytes.Buffer
			if _, err := Generate(&alone, Config{Size: 2 << 20, Era: era, Seed: 7}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(alone.Bytes(), a.kcm) {
				t.Fatal("the KCM log depends on whether a kubelet log is written")
			}
			c := generate(t, 2<<20, era, 8)
			if bytes.Equal(a.kcm, c.kcm) {
				t.Fatal("different seeds produced the same bytes")
			}
			// A larger file starts with different bytes (the clock and the
			// incident times scale with the size), but the same size and seed
			// hash the same across runs: pin the first MiB's hash stability.
			ha := sha256.Sum256(a.kcm[:1<<20])
			hb := sha256.Sum256(b.kcm[:1<<20])
			if ha != hb {
				t.Fatal("first MiB differs")
			}
		})
	}
}

func TestSizeAccuracy(t *testing.T) {
	for _, era := range Eras {
		for _, size := range []int64{1 << 20, 3 << 20} {
			t.Run(fmt.Sprintf("%s/%d", era, size), func(t *testing.T) {
				g := generate(t, size, era, 1)
				if int64(len(g.kcm)) != g.m.Bytes {
					t.Fatalf("manifest says %d bytes, wrote %d", g.m.Bytes, len(g.kcm))
				}
				if d := float64(g.m.Bytes-size) / float64(size); d < 0 || d > 0.01 {
					t.Fatalf("size %d, want %d (±1%%): off by %.3f%%", g.m.Bytes, size, 100*d)
				}
				if n := int64(bytes.Count(g.kcm, []byte("\n"))); n != g.m.Lines {
					t.Fatalf("manifest says %d lines, file has %d", g.m.Lines, n)
				}
				if g.kcm[len(g.kcm)-1] != '\n' {
					t.Fatal("last line not terminated")
				}
			})
		}
	}
}

var volumeFiles = [][]byte{[]byte("reconciler.go"), []byte("operation_generator.go"), []byte("nestedpendingoperations.go")}

func TestVolumeFraction(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			g := generate(t, 4<<20, era, 3)
			var lines, vol int64
			sc := bufio.NewScanner(bytes.NewReader(g.kcm))
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				lines++
				for _, f := range volumeFiles {
					if bytes.Contains(sc.Bytes(), f) {
						vol++
						break
					}
				}
			}
			if vol != g.m.VolumeLines {
				t.Errorf("manifest counts %d volume lines, grep counts %d", g.m.VolumeLines, vol)
			}
			frac := float64(vol) / float64(lines)
			if frac < 0.008 || frac > 0.02 {
				t.Errorf("volume lines %d of %d = %.3f%%, want ≈1%%", vol, lines, 100*frac)
			}
			if g.m.Lifecycles < 10 {
				t.Errorf("only %d healthy lifecycles", g.m.Lifecycles)
			}
		})
	}
}

var (
	textTime = regexp.MustCompile(`^[IWEF](\d{4} \d\d:\d\d:\d\d\.\d{6}) +\d+ [a-z_]+\.go:\d+\] `)
	jsonTS   = regexp.MustCompile(`^\{"ts":(\d+(?:\.\d+)?),`)
)

// lineTime returns a sortable time key for one line.
func lineTime(t *testing.T, era Era, line []byte) float64 {
	t.Helper()
	if era == JSON {
		m := jsonTS.FindSubmatch(line)
		if m == nil {
			t.Fatalf("no ts: %.200s", line)
		}
		f, _ := strconv.ParseFloat(string(m[1]), 64)
		return f
	}
	m := textTime.FindSubmatch(line)
	if m == nil {
		t.Fatalf("bad klog header: %.200s", line)
	}
	tm, err := time.Parse("0102 15:04:05.000000", string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return float64(tm.UnixMicro()) / 1000
}

func TestWellFormedAndMonotonic(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			g := generate(t, 3<<20, era, 5)
			for name, data := range map[string][]byte{"kcm": g.kcm, "kubelet": g.kubelet} {
				prev := math.Inf(-1)
				longest := 0
				for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
					if !utf8.Valid(line) || bytes.IndexByte(line, 0) >= 0 {
						t.Fatalf("%s:%d: invalid UTF-8 or NUL", name, i+1)
					}
					if era == JSON && !json.Valid(line) {
						t.Fatalf("%s:%d: invalid JSON: %.300s", name, i+1, line)
					}
					ts := lineTime(t, era, line)
					if ts < prev {
						t.Fatalf("%s:%d: time goes back: %.120s", name, i+1, line)
					}
					prev = ts
					longest = max(longest, len(line))
				}
				if name == "kcm" && longest < 2048 {
					t.Errorf("no multi-KB line (longest %d)", longest)
				}
			}
		})
	}
}

// TestPlanted checks that the planted incidents' lines are present, in the
// right order and with the real backoff cadence.
func TestPlanted(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			g := generate(t, 4<<20, era, 11)
			if len(g.m.Incidents) != 3 {
				t.Fatalf("%d incidents", len(g.m.Incidents))
			}
			lines := strings.Split(string(g.kcm), "\n")
			find := func(data []string, subs ...string) []int {
				var idx []int
			next:
				for i, l := range data {
					for _, s := range subs {
						if !strings.Contains(l, s) {
							continue next
						}
					}
					idx = append(idx, i)
				}
				return idx
			}
			seed := g.m.Incidents[0]
			storm := find(lines, "nestedpendingoperations.go", "disk-7x9qk2mz", "ZoneNotMatch")
			if len(storm) < 15 {
				t.Fatalf("storm has %d failures", len(storm))
			}
			for _, d := range []string{"500ms", "1s", "2s", "4s", "8s", "16s", "32s", "1m4s", "2m2s"} {
				if len(find(lines, "nestedpendingoperations.go", "disk-7x9qk2mz", "(durationBeforeRetry "+d+")")) == 0 {
					t.Errorf("no retry with backoff %s", d)
				}
			}
			span := lineTime(t, era, []byte(lines[storm[len(storm)-1]])) - lineTime(t, era, []byte(lines[storm[0]]))
			if span < 30*60*1000 {
				t.Errorf("storm spans %.0fs, want > 30 min", span/1000)
			}
			if !strings.Contains(lines[storm[0]], "No retries permitted until 2024-08-12 ") || !strings.Contains(lines[storm[0]], " +0000 UTC m=+") {
				t.Errorf("retry deadline without year/zone: %.300s", lines[storm[0]])
			}
			attachB := find(lines, "AttachVolume.Attach succeeded", "disk-7x9qk2mz", nodeB)
			detachA := find(lines, "DetachVolume.Detach succeeded", "disk-7x9qk2mz", nodeA)
			if len(attachB) != 1 || len(detachA) != 1 || attachB[0] > detachA[0] || storm[len(storm)-1] > attachB[0] {
				t.Errorf("seed chain out of order: storm end %d, attach B %v, detach A %v", storm[len(storm)-1], attachB, detachA)
			}
			if len(find(lines, "Multi-Attach", "disk-7x9qk2mz")) != 0 {
				t.Error("seed chain must not log Multi-Attach (A is only uncertain)")
			}
			klines := strings.Split(string(g.kubelet), "\n")
			if n := len(find(klines, "nestedpendingoperations.go", "can not find diskId disk-7x9qk2mz by serial")); n < 5 {
				t.Errorf("kubelet has %d MountDevice serial failures", n)
			}
			if want := []string{RuleAttachRetryStorm, RuleAttachBeforeDetach, RuleMountDeviceNotFound}; strings.Join(seed.ExpectRules, ",") != strings.Join(want, ",") {
				t.Errorf("seed expects %v", seed.ExpectRules)
			}

			ma := find(lines, "Multi-Attach error", "disk-k3m9p2xq")
			force := find(lines, "disk-k3m9p2xq", "force detaching")
			attachD := find(lines, "AttachVolume.Attach succeeded", "disk-k3m9p2xq", nodeD)
			if len(ma) != 1 || len(force) != 1 || len(attachD) != 1 || !(ma[0] < force[0] && force[0] < attachD[0]) {
				t.Fatalf("multi-attach chain: multi %v force %v attach D %v", ma, force, attachD)
			}
			if era != JSON && !strings.Contains(lines[ma[0]], nodeC) {
				t.Errorf("multi-attach line does not name %s", nodeC)
			}
			if d := lineTime(t, era, []byte(lines[force[0]])) - lineTime(t, era, []byte(lines[ma[0]])); d < 5*60*1000 || d > 7*60*1000 {
				t.Errorf("force detach %.0fs after the multi-attach error, want ≈6m", d/1000)
			}

			det := find(lines, "DetachVolume.Detach succeeded", "disk-q8w7e6r5", nodeE)
			att := find(lines, "disk-q8w7e6r5", "AttachVolume started", nodeF)
			if len(det) != 1 || len(att) != 1 || det[0] > att[0] {
				t.Errorf("clean move: detach E %v, attach F %v", det, att)
			}
			if !g.m.Incidents[2].ExpectNone {
				t.Error("clean move must expect no finding")
			}
		})
	}
}

func TestEraFormats(t *testing.T) {
	cases := map[Era][]string{
		Legacy: {
			`       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz") from node "10.0.3.15" ` + "\n",
			`nestedpendingoperations.go:301] Operation for "{volumeName:kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz podName: nodeName:}" failed. No retries permitted until 2024-08-12 `,
			`(durationBeforeRetry 500ms). Error: "AttachVolume.Attach failed for volume \"pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f\" (UniqueName: \"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz\") from node \"10.0.3.15\" : rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch`,
			`reconciler.go:232] attacherDetacher.DetachVolume started for volume "pvc-1c7e4b2a-3f5d-4a8e-b9c1-6d2e8f0a7b3c" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-k3m9p2xq") on node "10.0.5.41" This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching`,
			`reconciler.go:328] Multi-Attach error for volume "pvc-1c7e4b2a-3f5d-4a8e-b9c1-6d2e8f0a7b3c" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-k3m9p2xq") from node "10.0.5.62" Volume is already exclusively attached to node 10.0.5.41 and can't be attached to another`,
		},
		Structured: {
			`       1 reconciler.go:360] "attacherDetacher.AttachVolume started" logger="persistentvolume-attach-detach-controller" volumeName="kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz" nodeName="10.0.3.15" scheduledPods=["default/mysql-0"]` + "\n",
			`nestedpendingoperations.go:348] Operation for "{volumeName:kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz podName: nodeName:}" failed. No retries permitted until 2024-08-12 `,
			`(durationBeforeRetry 2m2s). Error: AttachVolume.Attach failed for volume "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz") from node "10.0.3.15" : rpc error: code = Aborted desc = attachVolume disk-7x9qk2mz failed, err: [rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch`,
			`reconciler.go:279] "attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching" logger="persistentvolume-attach-detach-controller" duration="6m0s" node="10.0.5.41" volumeName="kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-k3m9p2xq"`,
			`reconciler.go:379] "Multi-Attach error: volume is already exclusively attached and can't be attached to another node" logger="persistentvolume-attach-detach-controller" attachedTo=["10.0.5.41"] volume={"MultiAttachErrorReported":false,"VolumeName":"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-k3m9p2xq"`,
			`reconciler.go:264] "attacherDetacher.DetachVolume started" logger="persistentvolume-attach-detach-controller" node="10.0.3.15" volumeName="kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz"` + "\n",
		},
		JSON: {
			`,"logger":"persistentvolume-attach-detach-controller","caller":"reconciler/reconciler.go:360","msg":"attacherDetacher.AttachVolume started","v":0,"volumeName":"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz","nodeName":"10.0.3.15","scheduledPods":[{"name":"mysql-0","namespace":"default"}]}` + "\n",
			`"caller":"nestedpendingoperations/nestedpendingoperations.go:348","msg":"Operation for \"{volumeName:kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz podName: nodeName:}\" failed. No retries permitted until 2024-08-12 `,
			`"msg":"attacherDetacher.DetachVolume started","v":0,"node":{"name":"10.0.3.15"},"volumeName":"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz"}` + "\n",
		},
	}
	for era, wants := range cases {
		g := generate(t, 1<<20, era, 1)
		for _, w := range wants {
			if !bytes.Contains(g.kcm, []byte(w)) {
				t.Errorf("%s: missing %q", era, w)
			}
		}
	}
	// klog header: pid right-aligned in 7 columns after one blank.
	g := generate(t, 1<<20, Legacy, 1)
	if !regexp.MustCompile(`(?m)^I0812 00:00:00\.\d{6}       1 serving\.go:341\] `).Match(g.kcm) {
		t.Errorf("bad header: %.100s", g.kcm)
	}
	if !regexp.MustCompile(`(?m)^E0812 \d\d:\d\d:\d\d\.\d{6}    2783 nestedpendingoperations\.go:301\] `).Match(g.kubelet) {
		t.Error("bad kubelet header")
	}
}

func TestVerify(t *testing.T) {
	g := generate(t, 1<<20, Legacy, 1)
	seed, ma, clean := g.m.Incidents[0], g.m.Incidents[1], g.m.Incidents[2]
	full := &Report{Findings: []ReportFinding{
		{Rule: RuleAttachRetryStorm, Volume: seed.Volume},
		{Rule: RuleAttachBeforeDetach, Volume: seed.Volume},
		{Rule: RuleMountDeviceNotFound, PV: seed.PV},
		{Rule: RuleMultiAttach, Volume: ma.Volume},
		{Rule: RuleForceDetach, Volume: ma.Volume},
		{Rule: "slow-attach", Volume: "kubernetes.io/csi/x^disk-other"},
	}}
	v := Verify(g.m, full)
	if !v.OK || v.Other["slow-attach"] != 1 {
		t.Fatalf("full report: %+v", v)
	}
	missing := &Report{Findings: full.Findings[1:]}
	if v := Verify(g.m, missing); v.OK || v.Checks[0].Missing[0] != RuleAttachRetryStorm {
		t.Fatalf("missing rule not reported: %+v", v)
	}
	noisy := &Report{Findings: append(append([]ReportFinding{}, full.Findings...), ReportFinding{Rule: RuleMultiAttach, Volume: clean.Volume})}
	if v := Verify(g.m, noisy); v.OK {
		t.Fatal("finding on the clean move not reported")
	}
	var buf bytes.Buffer
	Verify(g.m, missing).Print(&buf)
	if !strings.Contains(buf.String(), "MISSED") {
		t.Error(buf.String())
	}
}

func TestWriteError(t *testing.T) {
	if _, err := Generate(failWriter{}, Config{Size: 1 << 20}); err == nil {
		t.Fatal("write error not reported")
	}
	if _, err := Generate(io.Discard, Config{Size: 1 << 20, Era: "nope"}); err == nil {
		t.Fatal("bad era accepted")
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, io.ErrClosedPipe }
