package classifier

// Record is one log entry with its envelope removed: the seam between the
// envelope side (package parser: wrappers, klog header, JSON lines, describe
// tables, time) and the message side (this package: classification into an
// Event).
//
// The envelope side fills every field it knows; Classify reads them and
// never looks at wrappers or times.
type Record struct {
	Level byte   // 'I','W','E','F'; 0 when the format has none (JSON: 'E' when "err" is present and "v" absent)
	PID   int    // klog thread id field
	File  string // caller basename, e.g. "reconciler.go" ("dir/file.go" reduced to "file.go")
	// Rest is everything after "] " of a klog text header (printf text, or a
	// quoted structured message followed by key/value pairs), continuation
	// lines joined with "\n". For JSON lines it is empty and Msg/KV are set.
	Rest string
	// JSON lines: the decoded "msg" and the other keys in order (strings
	// unquoted, other values as raw JSON text). Event tables also use Msg.
	Msg string
	KV  []KV
	// Table is set for kubectl describe / get events rows.
	Table *TableRow
	// Arena, when not nil, takes the values Classify unquotes from Rest
	// (appended to it, their strings pointing there) instead of an
	// allocation each: a caller that copies what it keeps of the event
	// and reuses the arena only after (the parser's decode-ahead workers,
	// one arena per block).
	Arena *[]byte
}

// KV is one structured key/value pair. Value is unquoted for quoted strings
// and `key=<` blocks; struct dumps (%+v) and JSON values stay raw. It names
// an unnamed struct type so that the envelope side may write pairs as
// kv{key, value} without vet's complaint about another package's struct.
type KV = struct {
	Key   string
	Value string
}

// TableRow is one event row of `kubectl describe` or `kubectl get events`.
type TableRow struct {
	Type    string // Normal / Warning
	Reason  string
	Object  string // "pod/name" (get events) or "" (describe)
	From    string // component, maybe "kubelet, <node>"
	Message string
	Count   int
}

// The package's own short names for the seam types.
type (
	record   = Record
	kv       = KV
	tableRow = TableRow
)
