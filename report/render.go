package report

import (
	"io"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// A Renderer writes one view of the model in one output format. V is what
// the view shows: *Analysis (analyze), TimelineView (timeline),
// []parser.Event (events) or []*timeline.Volume (volumes).
type Renderer[V any] interface {
	Render(w io.Writer, view V, o Options) error
}

// RenderFunc makes a function a Renderer.
type RenderFunc[V any] func(w io.Writer, view V, o Options) error

// Render calls f.
func (f RenderFunc[V]) Render(w io.Writer, view V, o Options) error { return f(w, view, o) }

// TimelineView is what `kcmtrace timeline` shows: the selected volumes of
// a timeline.
type TimelineView struct {
	Timeline *timeline.Timeline
	Volumes  []*timeline.Volume
}

// Formats are the renderers of one view by format name.
type Formats[V any] struct {
	Default string                 // the format of an empty or unknown name
	ByName  map[string]Renderer[V] // every name a --format flag accepts, aliases included
}

// For is the renderer of the named format, the Default one when the name
// is empty or unknown.
func (f Formats[V]) For(name string) Renderer[V] {
	if r, ok := f.ByName[name]; ok {
		return r
	}
	return f.ByName[f.Default]
}

// The output formats of each view. A new format is a renderer function in
// this package and one entry here; the CLI dispatches from these tables.
var (
	AnalysisFormats = Formats[*Analysis]{Default: "text", ByName: map[string]Renderer[*Analysis]{
		"text":     RenderFunc[*Analysis](Text),
		"json":     RenderFunc[*Analysis](JSON),
		"markdown": RenderFunc[*Analysis](Markdown),
		"md":       RenderFunc[*Analysis](Markdown),
		"html":     RenderFunc[*Analysis](HTML),
		"yaml":     RenderFunc[*Analysis](AnalysisYAML),
		"name":     RenderFunc[*Analysis](FindingNames),
	}}
	TimelineFormats = Formats[TimelineView]{Default: "text", ByName: map[string]Renderer[TimelineView]{
		"text":     timelineRenderer(TimelineText),
		"json":     timelineRenderer(TimelineJSON),
		"markdown": timelineRenderer(TimelineMarkdown),
		"md":       timelineRenderer(TimelineMarkdown),
		"html":     timelineRenderer(TimelineHTML),
		"yaml":     timelineRenderer(TimelineYAML),
		"name": RenderFunc[TimelineView](func(w io.Writer, v TimelineView, o Options) error {
			return VolumeNames(w, v.Volumes, o)
		}),
	}}
	EventFormats = Formats[[]parser.Event]{Default: "jsonl", ByName: map[string]Renderer[[]parser.Event]{
		"jsonl": RenderFunc[[]parser.Event](EventsJSONL),
		"text":  RenderFunc[[]parser.Event](EventsText),
		"yaml":  RenderFunc[[]parser.Event](EventsYAML),
	}}
	VolumeFormats = Formats[[]*timeline.Volume]{Default: "text", ByName: map[string]Renderer[[]*timeline.Volume]{
		"text": RenderFunc[[]*timeline.Volume](VolumesTable),
		"json": RenderFunc[[]*timeline.Volume](VolumesJSON),
		"yaml": RenderFunc[[]*timeline.Volume](VolumesYAML),
		"name": RenderFunc[[]*timeline.Volume](VolumeNames),
	}}
)

// timelineRenderer adapts a timeline renderer to TimelineView.
func timelineRenderer(f func(io.Writer, *timeline.Timeline, []*timeline.Volume, Options) error) Renderer[TimelineView] {
	return RenderFunc[TimelineView](func(w io.Writer, v TimelineView, o Options) error {
		return f(w, v.Timeline, v.Volumes, o)
	})
}
