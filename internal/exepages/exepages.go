// Package exepages gives the kernel back the pages of the program's own
// executable that are mapped in (resident), so that only those the rest
// of the run reads come back.
//
// Why: a page of a file mapping, once faulted in, stays mapped and counted
// in the process's RSS (unless memory runs short), and the kernel maps a
// page's neighbours with it ("fault-around", 64 KiB at a time by default).
// kcmtrace's package initialisers, its command line and its parser touch
// code and tables spread over the whole 18 MB binary: by the time a large
// input is parsed 12 MB of it are resident, which the timeline, the rules
// and the report mostly never read again — a fifth of the 64 MiB a 1 GiB
// input is held to. internal/mempolicy releases them before and after the
// parse of a large input; each stage brings back the 5–9 MB it reads.
//
// Only the executable's read-only mappings (code, read-only data) are
// released, and only when none of their pages is a private copy (a
// position-independent binary's relocated tables are: releasing those
// would lose the relocations): they read back from the file, unchanged,
// as they would after the kernel reclaimed them under memory pressure,
// which it may do at any time anyway. Elsewhere than on Linux Release
// does nothing.
package exepages

import (
	"bytes"
	"strconv"
)

// mapping is one mapping of /proc/self/smaps, as far as Release reads it.
type mapping struct {
	beg, end  uintptr
	perms     string
	file      string // dev:inode, "" for anonymous memory
	rss, anon int    // Rss: kB resident; Anonymous: kB of private copies in it
}

// parseSmaps reads the mappings of an smaps listing.
func parseSmaps(b []byte) []mapping {
	var out []mapping
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := bytes.Cut(f[0], []byte("-")); ok && len(f) >= 5 && !bytes.HasSuffix(f[0], []byte(":")) {
			beg, err1 := strconv.ParseUint(string(lo), 16, 64)
			end, err2 := strconv.ParseUint(string(hi), 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			m := mapping{beg: uintptr(beg), end: uintptr(end), perms: string(f[1])}
			if inode := string(f[4]); inode != "0" {
				m.file = string(f[3]) + ":" + inode
			}
			out = append(out, m)
			continue
		}
		if len(out) == 0 || len(f) < 2 {
			continue
		}
		switch m := &out[len(out)-1]; string(f[0]) {
		case "Rss:":
			m.rss, _ = strconv.Atoi(string(f[1]))
		case "Anonymous:":
			m.anon, _ = strconv.Atoi(string(f[1]))
		}
	}
	return out
}

// releasable returns the mappings of the file mapped at pc (the code of
// this program) that may be released: read-only, private, and holding no
// private copy of a page.
func releasable(ms []mapping, pc uintptr) []mapping {
	file := ""
	for _, m := range ms {
		if pc >= m.beg && pc < m.end {
			file = m.file
		}
	}
	if file == "" {
		return nil
	}
	var out []mapping
	for _, m := range ms {
		if m.file == file && (m.perms == "r-xp" || m.perms == "r--p") && m.anon == 0 {
			out = append(out, m)
		}
	}
	return out
}

// tracerPID is the TracerPid field of a /proc/PID/status listing ("" when
// missing).
func tracerPID(status []byte) string {
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("TracerPid:")); ok {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}
