package parser

import "testing"

func TestParseKlogHeader(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		ok      bool
		level   byte
		w       wall
		pid     int
		file    string
		rest    string
		badTime bool
	}{
		{name: "kcm", line: `I0812 03:10:00.612388       1 reconciler.go:288] attacherDetacher.AttachVolume started`, ok: true, level: 'I', w: wall{8, 12, 3, 10, 0, 612388000}, pid: 1, file: "reconciler.go", rest: "attacherDetacher.AttachVolume started"},
		{name: "kubelet pid", line: `E0812 03:21:41.118760    2783 nestedpendingoperations.go:348] Operation for`, ok: true, level: 'E', w: wall{8, 12, 3, 21, 41, 118760000}, pid: 2783, file: "nestedpendingoperations.go", rest: "Operation for"},
		{name: "wide pid", line: `W0101 00:00:00.000001 123456789 x.go:1] m`, ok: true, level: 'W', w: wall{1, 1, 0, 0, 0, 1000}, pid: 123456789, file: "x.go", rest: "m"},
		{name: "add_dir_header", line: `I0812 03:10:00.612388       1 reconciler/reconciler.go:288] m`, ok: true, level: 'I', w: wall{8, 12, 3, 10, 0, 612388000}, pid: 1, file: "reconciler.go", rest: "m"},
		{name: "no fraction", line: `F0812 03:10:00 1 main.go:1] boom`, ok: true, level: 'F', w: wall{8, 12, 3, 10, 0, 0}, pid: 1, file: "main.go", rest: "boom"},
		{name: "month 13", line: `I1312 03:10:00.612388       1 r.go:1] m`, ok: true, level: 'I', w: wall{13, 12, 3, 10, 0, 612388000}, pid: 1, file: "r.go", rest: "m", badTime: true},
		{name: "hour 25", line: `I0112 25:10:00.612388       1 r.go:1] m`, ok: true, level: 'I', w: wall{1, 12, 25, 10, 0, 612388000}, pid: 1, file: "r.go", rest: "m", badTime: true},
		{name: "bracket in message only", line: `I0812 03:10:00.612388       1 no file here [x] y`, ok: true, level: 'I', w: wall{8, 12, 3, 10, 0, 612388000}, pid: 1, rest: "no file here [x] y"},
		{name: "not a level", line: `X0812 03:10:00.612388       1 r.go:1] m`},
		{name: "logrus", line: `time="2022-06-03T11:58:13Z" level=debug msg="Wrote ping"`},
		{name: "short", line: `I0812`},
		{name: "no pid", line: `I0812 03:10:00.612388 r.go:1] m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ok := parseKlogHeader([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			rest := tt.line[h.rest:]
			if h.level != tt.level || h.w != tt.w || h.pid != tt.pid || string(h.file) != tt.file || rest != tt.rest || h.badTime != tt.badTime {
				t.Errorf("got level=%c w=%+v pid=%d file=%q rest=%q bad=%v", h.level, h.w, h.pid, h.file, rest, h.badTime)
			}
		})
	}
}
