//go:build linux

package smapstest

import (
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// A mapping made here is found, with its flags and its huge pages (none:
// never touched), and an address nothing maps is not.
func TestField(t *testing.T) {
	b, err := syscall.Mmap(-1, 0, 1<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	flags, err := Field(p, "VmFlags")
	if err != nil || !strings.Contains(" "+flags+" ", " rd ") || !strings.Contains(" "+flags+" ", " wr ") {
		t.Errorf("VmFlags = %q, %v; want rd and wr", flags, err)
	}
	if kb, err := HugePagesKB(p); err != nil || kb != 0 {
		t.Errorf("HugePagesKB = %d, %v; want 0 of an untouched mapping", kb, err)
	}
	if _, err := Field(p, "NoSuchField"); err == nil {
		t.Error("a field no mapping has was found")
	}
	if _, err := Field(1, "VmFlags"); err == nil {
		t.Error("address 1 was found mapped")
	}
}
