package report

import "embed"

// Schemas holds the committed JSON Schema (2020-12) documents of kcmtrace's
// machine output: analyze-v1, events-v1 (one JSON Lines record), timeline-v1
// and volumes-v1, each under schema/<name>.schema.json.
//
//go:embed schema/*.schema.json
var Schemas embed.FS

// SchemaFile maps a schema identifier ("kcmtrace/analyze/v1") to its file in Schemas.
func SchemaFile(id string) string {
	switch id {
	case SchemaAnalyze:
		return "schema/analyze-v1.schema.json"
	case SchemaEvents:
		return "schema/events-v1.schema.json"
	case SchemaTimeline:
		return "schema/timeline-v1.schema.json"
	case SchemaVolumes:
		return "schema/volumes-v1.schema.json"
	}
	return ""
}
