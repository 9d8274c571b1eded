package parser

import "github.com/kcmtrace/kcmtrace/parser/classifier"

// record, kv and tableRow are the seam to the message side
// (classifier.Record): what the envelope side hands to the classifier.
type (
	record   = classifier.Record
	kv       = classifier.KV
	tableRow = classifier.TableRow
)
