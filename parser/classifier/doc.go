// Package classifier is the message side of the parser: it turns one log
// entry with its envelope removed (Record: klog text after the header, a
// klog JSON line's message and pairs, or an event-table row) into a typed
// volume Event, or says it is irrelevant. It owns the event vocabulary
// (event.go: Event, Kind and the Kind, Component, Origin and Code
// constants), the sentence table and special cases (classify.go), clause
// parsing (classify_clause.go), error codes (codes.go), structured klog
// messages (structured.go) and, in tokens.go, every list of what is
// volume-related — the prefilter tokens (PrefilterTokens), the words of
// volumeRelated, the special-case stems and the informer plumbing files
// (IsInformerPlumbing, InformerPlumbingFiles) — so the parser's prefilter,
// the classifier and the consumers outside (a log store's query pushdown,
// export commands) read one source of truth.
//
// It never looks at wrappers, files or times, uses no regular expressions
// and never panics on any input.
package classifier
