package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/report"
)

// Every name a --format flag accepts has a renderer of its own in the
// view's table (a missing one would fall back to the default silently),
// and the flag's default is the table's.
func TestFormatFlagsHaveRenderers(t *testing.T) {
	for _, c := range []struct {
		cmd   any
		names map[string]bool
		def   string
	}{
		{analyzeCmd{}, keys(report.AnalysisFormats.ByName), report.AnalysisFormats.Default},
		{timelineCmd{}, keys(report.TimelineFormats.ByName), report.TimelineFormats.Default},
		{eventsCmd{}, keys(report.EventFormats.ByName), report.EventFormats.Default},
		{volumesCmd{}, keys(report.VolumeFormats.ByName), report.VolumeFormats.Default},
	} {
		typ := reflect.TypeOf(c.cmd)
		f, ok := typ.FieldByName("Format")
		if !ok {
			t.Fatalf("%s has no Format flag", typ.Name())
		}
		for _, n := range strings.Split(f.Tag.Get("enum"), ",") {
			if n != "" && !c.names[n] {
				t.Errorf("%s --format %s: no renderer", typ.Name(), n)
			}
		}
		if d := f.Tag.Get("default"); d != "" && d != c.def {
			t.Errorf("%s --format defaults to %q, the table to %q", typ.Name(), d, c.def)
		}
	}
}

func keys[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}
