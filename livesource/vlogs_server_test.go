package livesource

import (
	"fmt"
	"os"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
)

// The real VictoriaLogs server the tests share (internal/vlogstest: CI
// installs the pinned release and exports KCMTRACE_VICTORIALOGS; without it
// the server is built into the user cache once, and the tests skip only
// when that is impossible).
var vlServer struct {
	*vlogstest.Server
	skipWhy string
}

func TestMain(m *testing.M) {
	s, skip, err := vlogstest.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "livesource: %v\n", err)
		os.Exit(1)
	}
	vlServer.Server, vlServer.skipWhy = s, skip
	code := m.Run()
	if s != nil {
		s.Stop()
	}
	os.Exit(code)
}

// needVictoriaLogs skips t when no server runs (only when it could not be
// built: with KCMTRACE_VICTORIALOGS set, TestMain fails instead).
func needVictoriaLogs(t *testing.T) string {
	t.Helper()
	if vlServer.Server == nil {
		t.Skip(vlServer.skipWhy)
	}
	return vlServer.URL
}
