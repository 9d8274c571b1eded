package loggen

import (
	"bufio"
	"io"
	"strconv"
	"time"
)

// FlatVolumeBytes is the size of the two lines Flat writes per volume (for
// fewer than 10^7 volumes): 1 M volumes make 475 MB.
const FlatVolumeBytes = 475

// Flat writes the flat high-cardinality shape: volumes volumes, each with
// a distinct volume, handle and node name, each attached once and never
// detached — two legacy KCM lines per volume (started, then succeeded),
// nothing else: no noise, no incidents, no other pool. The lines are in
// time order, spread evenly over span from start (zero values: DefaultStart
// and 2h). It stresses everything that grows with the number of distinct
// names — the timeline's tables and groups, the rules' per-volume facts,
// the report's volumes[] — with the fewest bytes per volume; Generate's
// ShapeChurn does the same within a realistic log (noise, incidents) at
// ~35k volumes per GiB. It returns the bytes written.
func Flat(w io.Writer, volumes int, start time.Time, span time.Duration) (int64, error) {
	if start.IsZero() {
		start = DefaultStart
	}
	if span <= 0 {
		span = 2 * time.Hour
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	step := span / time.Duration(max(volumes, 1))
	var n int64
	line := make([]byte, 0, 512)
	for i := range volumes {
		at := start.Add(time.Duration(i) * step)
		for half, text := range [2]string{
			"       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"",
			"       1 operation_generator.go:360] AttachVolume.Attach succeeded for volume \"",
		} {
			line = append(line[:0], 'I')
			line = at.Add(time.Duration(half)*step/2).AppendFormat(line, "0102 15:04:05.000000")
			line = append(line, text...)
			line = appendFlatName(line, "pvc-", i, 8)
			line = append(line, "-0000-4000-8000-"...)
			line = appendFlatName(line, "", i, 12)
			line = append(line, `" (UniqueName: "kubernetes.io/csi/pd.csi.storage.gke.io^`...)
			line = appendFlatName(line, "disk-", i, 8)
			line = append(line, `") from node "`...)
			line = appendFlatName(line, "node-", i, 7)
			line = append(line, "\" \n"...)
			m, err := bw.Write(line)
			n += int64(m)
			if err != nil {
				return n, err
			}
		}
	}
	return n, bw.Flush()
}

// appendFlatName appends prefix and i in hexadecimal (decimal for a node),
// zero-padded to width digits.
func appendFlatName(b []byte, prefix string, i, width int) []byte {
	b = append(b, prefix...)
	base := 16
	if prefix == "node-" {
		base = 10
	}
	d := strconv.FormatInt(int64(i), base)
	for range width - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}
