// Package smapstest lets tests read what the kernel says of the mapping
// that holds an address (/proc/self/smaps): whether it is marked for huge
// pages (VmFlags "hg"), how much of it is on them (AnonHugePages). The
// tests of internal/hugeheap and internal/earlyheap use it; elsewhere
// than Linux Field says there is no such file.
package smapstest

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Field returns the value of field name ("VmFlags", "AnonHugePages", …)
// of the mapping in /proc/self/smaps that holds addr, trimmed.
func Field(addr uintptr, name string) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			found = found || in
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); in && ok && k == name {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if found {
		return "", fmt.Errorf("the mapping holding %#x has no %s", addr, name)
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}

// HugePagesKB returns the AnonHugePages of the mapping that holds addr,
// in kB.
func HugePagesKB(addr uintptr) (int, error) {
	v, err := Field(addr, "AnonHugePages")
	if err != nil {
		return 0, err
	}
	var kb int
	if _, err := fmt.Sscanf(v, "%d kB", &kb); err != nil {
		return 0, fmt.Errorf("AnonHugePages %q: %v", v, err)
	}
	return kb, nil
}
