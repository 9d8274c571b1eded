package parser

import "testing"

func TestMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"I0812 03:10:00.123456       1 operation_generator.go:412] AttachVolume.Attach succeeded", "AttachVolume.Attach succeeded"},
		{"E0812 03:10:00 1 reconciler.go:7]no blank", "no blank"},
		{"W1312 25:10:00.123456 1 f.go:1] out-of-range clock is still a header", "out-of-range clock is still a header"},
		{"I0812 03:10:00.123456 1 no file:line", "no file:line"},
		{"I0812 03:10:00.123456 1 a b.go:1] x", "a b.go:1] x"}, // "] " inside the message
		{"Aug 12 03:10:00 host kubelet[12]: I0812 03:10:00.123456 1 f.go:1] journald", "journald"},
		{"2024-08-12T03:10:00.000000000Z stderr F I0812 03:10:00.123456 1 f.go:1] cri", "cri"},
		{`{"log":"I0812 03:10:00.123456 1 f.go:1] docker\n","stream":"stderr","time":"2024-08-12T03:10:00Z"}`, "docker"},
		{"kubelet.log:I0812 03:10:00.123456 1 f.go:1] grep", "grep"},
		{"I0812 03:10:00.123456 1 f.go:1] first\n  continued", "first\n  continued"},
		{`{"ts":1723432200.1,"msg":"structured"}`, `{"ts":1723432200.1,"msg":"structured"}`},
		{"  Warning  FailedMount  3m  kubelet  MountVolume failed", "  Warning  FailedMount  3m  kubelet  MountVolume failed"},
		{`{"log":"broken`, `{"log":"broken`},
		{"", ""},
	} {
		if got := Message(c.in); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
