//go:build unix

package cpubudget

import (
	"syscall"
	"time"
)

// used is the processor time the process has spent, user and system.
func used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
