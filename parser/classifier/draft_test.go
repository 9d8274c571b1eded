package classifier

import (
	"reflect"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser/textstore"
)

// TestDraftCarriesEveryField: a Draft has exactly the fields of an Event,
// its tuples' fields in place of the tuples, and Draft.Event and
// Event.Draft carry every one of them, so a field added to one of the
// types and forgotten in the other (or in With / Draft) fails here rather
// than being dropped silently between the classifier and the report.
func TestDraftCarriesEveryField(t *testing.T) {
	want := map[string]reflect.Type{}
	ev := reflect.TypeFor[Event]()
	for i := range ev.NumField() {
		f := ev.Field(i)
		if f.Anonymous { // a tuple: its fields are the draft's
			for j := range f.Type.Elem().NumField() {
				g := f.Type.Elem().Field(j)
				want[g.Name] = g.Type
			}
			continue
		}
		want[f.Name] = f.Type
	}
	dr := reflect.TypeFor[Draft]()
	got := map[string]reflect.Type{}
	for i := range dr.NumField() {
		got[dr.Field(i).Name] = dr.Field(i).Type
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Draft's fields %v, want Event's %v", got, want)
	}

	// every field set to something not zero, different from the others
	var d Draft
	v := reflect.ValueOf(&d).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(dr.Field(i).Name)
		case reflect.Int64: // durations
			f.SetInt(int64(i + 1))
		case reflect.Int32:
			f.SetInt(int64(i + 1))
		case reflect.Uint8:
			f.SetUint(uint64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		}
	}
	d.Time = StampOf(time.Date(2024, 8, 12, 4, 48, 0, 612388000, time.UTC))
	d.Retry = &Retry{Backoff: time.Second}
	d.Source = Source{File: InternPath("kcm.log"), Line: 7, Input: 2}
	d.Text = textstore.TextOf("W0812 reconciler.go:1] text")
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the test leaves Draft.%s zero: set it", dr.Field(i).Name)
		}
	}
	e := d.Event()
	back := e.Draft()
	if !reflect.DeepEqual(back, d) {
		t.Fatalf("Draft → Event → Draft lost a field:\n got %+v\nwant %+v", back, d)
	}
}

// TestRepeatIsSharedOnlyWhenEmpty: events that neither repeat nor retry
// share the empty Repeat (no allocation each); SetRepeat gives an event
// a Repeat of its own and never changes the one it shared, so an event
// copied before the change keeps what it had.
func TestRepeatIsSharedOnlyWhenEmpty(t *testing.T) {
	a, b := Draft{Kind: AttachSucceeded}.Event(), Draft{Kind: DetachSucceeded}.Event()
	if a.Repeat != b.Repeat || a.Repeat != &noRepeat {
		t.Fatal("two events without repeats do not share the empty Repeat")
	}
	if n := testing.AllocsPerRun(100, func() { b = Draft{Kind: DetachSucceeded}.Event() }); n != 0 {
		t.Errorf("an event without repeats allocates %v times", n)
	}
	if r := (Draft{Relative: true}).Event(); !r.Relative || r.Repeat == &noRepeat {
		t.Error("a relative time is not kept in a Repeat of its own")
	}
	before := a
	a.SetRepeat(Repeat{Count: 3, Span: time.Minute})
	if a.Count != 3 || before.Count != 0 || b.Count != 0 || noRepeat != (Repeat{}) {
		t.Errorf("SetRepeat: Count %d, the copy's %d, another event's %d, empty %+v", a.Count, before.Count, b.Count, noRepeat)
	}
	c := a
	r := *c.Repeat
	r.Count = 4
	c.SetRepeat(r)
	if a.Count != 3 || c.Count != 4 || c.Span != time.Minute {
		t.Errorf("SetRepeat on a copy: %+v, copy %+v", *a.Repeat, *c.Repeat)
	}
	c.SetRepeat(Repeat{})
	if c.Repeat != &noRepeat {
		t.Error("an emptied Repeat is not the shared empty one")
	}
}
