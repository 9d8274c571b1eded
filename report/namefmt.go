package report

// -o name: one name per line, nothing else, for shell pipelines.

import (
	"bufio"
	"io"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// writeNames writes each distinct name on its own line.
func writeNames(w io.Writer, names []string) error {
	bw := bufio.NewWriter(w)
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		bw.WriteString(oneLine(n))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// VolumeNames writes the name of each volume (the PV, else the handle, else the key).
func VolumeNames(w io.Writer, vols []*timeline.Volume, o Options) error {
	_, vols = prepareTimeline(nil, vols, o)
	names := make([]string, len(vols))
	for i, v := range vols {
		names[i] = volumeLabel(v)
	}
	return writeNames(w, names)
}

// FindingNames writes the name of each volume that has a finding, in finding order.
func FindingNames(w io.Writer, a *Analysis, o Options) error {
	a = prepare(a, o)
	var names []string
	for _, f := range a.Result.Findings {
		if v := findVolume(a.Timeline, f.Volume, f.PV); v != nil {
			names = append(names, volumeLabel(v))
		} else if f.PV != "" {
			names = append(names, f.PV)
		} else {
			names = append(names, f.Volume)
		}
	}
	return writeNames(w, names)
}

// RuleNames writes each rule's name.
func RuleNames(w io.Writer, rs []rules.Rule, o Options) error {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return writeNames(w, names)
}
