package prefault

import (
	"os"
	"testing"
)

// TestMain allows holds, as the program's memory policy does for a run:
// the tests of this package test them taken. That they are not taken
// without the policy is tested in internal/mempolicy.
func TestMain(m *testing.M) {
	AllowHolds()
	os.Exit(m.Run())
}
