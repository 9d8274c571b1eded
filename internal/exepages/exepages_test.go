package exepages

import (
	"reflect"
	"testing"
)

// A listing in the shape of /proc/self/smaps: the program's code and
// read-only data; a position-independent binary's relocated read-only
// tables (private copies: Anonymous); its data; another file; the heap.
const smapsFixture = `00400000-00c41000 r-xp 00000000 fe:00 9977943                            /usr/bin/kcmtrace
Size:               8452 kB
Rss:                6144 kB
Anonymous:             0 kB
AnonHugePages:         0 kB
VmFlags: rd ex mr mw me dw sd
00c41000-014a4000 r--p 00841000 fe:00 9977943                            /usr/bin/kcmtrace
Size:               8588 kB
Rss:                4300 kB
Anonymous:             0 kB
VmFlags: rd mr mw me dw sd
014a4000-014b0000 r--p 010a4000 fe:00 9977943                            /usr/bin/kcmtrace
Rss:                  48 kB
Anonymous:            48 kB
014b0000-01571000 rw-p 010b0000 fe:00 9977943                            /usr/bin/kcmtrace
Rss:                 372 kB
Anonymous:           200 kB
7f1d38833000-7f1d38865000 r--p 00000000 fe:00 1234                       /usr/lib/locale/C.utf8/LC_CTYPE
Rss:                  32 kB
Anonymous:             0 kB
22ccd000000-22ccd800000 rw-p 00000000 00:00 0 
Rss:                1532 kB
Anonymous:          1532 kB
7ffd50295000-7ffd502b6000 rw-p 00000000 00:00 0                          [stack]
Rss:                  16 kB
Anonymous:            16 kB
`

func TestReleasable(t *testing.T) {
	ms := parseSmaps([]byte(smapsFixture))
	if len(ms) != 7 {
		t.Fatalf("parsed %d mappings, want 7: %+v", len(ms), ms)
	}
	if ms[0].rss != 6144 || ms[0].anon != 0 || ms[2].rss != 48 || ms[2].anon != 48 {
		t.Errorf("Rss and Anonymous of the first and third mappings: %+v, %+v", ms[0], ms[2])
	}
	for name, tc := range map[string]struct {
		pc   uintptr
		want []uintptr // the starts of the mappings released
	}{
		"code":            {pc: 0x401234, want: []uintptr{0x400000, 0xc41000}},
		"read-only data":  {pc: 0xc41000, want: []uintptr{0x400000, 0xc41000}},
		"another file":    {pc: 0x7f1d38833010, want: []uintptr{0x7f1d38833000}},
		"anonymous":       {pc: 0x22ccd000100},
		"outside any map": {pc: 0x10},
	} {
		var got []uintptr
		for _, m := range releasable(ms, tc.pc) {
			got = append(got, m.beg)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: released %#x, want %#x", name, got, tc.want)
		}
	}
}

func TestTracerPID(t *testing.T) {
	for name, tc := range map[string]struct{ status, want string }{
		"untraced":                  {"Name:\tkcmtrace\nState:\tR (running)\nTracerPid:\t0\nUid:\t0\n", "0"},
		"traced":                    {"Name:\tkcmtrace\nTracerPid:\t4242\n", "4242"},
		"last line without newline": {"Name:\tx\nTracerPid:\t0", "0"},
		"missing":                   {"Name:\tkcmtrace\n", ""},
	} {
		if got := tracerPID([]byte(tc.status)); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
