package benchfiles

import (
	"slices"
	"testing"
)

func TestPaths(t *testing.T) {
	t.Setenv(Env, "a.log,b.log")
	if got := Paths(t); !slices.Equal(got, []string{"a.log", "b.log"}) {
		t.Errorf("Paths = %q", got)
	}
	t.Run("unset", func(t *testing.T) {
		t.Setenv(Env, "")
		Paths(t)
		t.Error("not skipped")
	})
}
