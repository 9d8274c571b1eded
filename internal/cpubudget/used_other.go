//go:build !unix

package cpubudget

import "time"

var epoch = time.Now()

// used falls back to wall time where the process's processor time is not
// at hand.
func used() time.Duration { return time.Since(epoch) }
