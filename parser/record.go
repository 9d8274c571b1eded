package parser

// record is one log entry with its envelope removed: the seam between the
// envelope side of the parser (wrappers, klog header, JSON lines, describe
// tables, time) and the message side (classification into an Event).
//
// The envelope side fills every field it knows; classify reads them and never
// looks at wrappers or times.
type record struct {
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
	KV  []kv
	// Table is set for kubectl describe / get events rows.
	Table *tableRow
}

// kv is one structured key/value pair. Value is unquoted for quoted strings
// and `key=<` blocks; struct dumps (%+v) and JSON values stay raw.
type kv struct {
	Key   string
	Value string
}

// tableRow is one event row of `kubectl describe` or `kubectl get events`.
type tableRow struct {
	Type    string // Normal / Warning
	Reason  string
	Object  string // "pod/name" (get events) or "" (describe)
	From    string // component, maybe "kubelet, <node>"
	Message string
	Count   int
}
