package parser

// classify turns one record into an event. ok is false when the record is not
// about a volume operation at all (irrelevant); a record that looks volume
// related but is not understood returns an Unknown event with Reason set.
// The envelope side fills Time, Source, Text, PID and Level afterwards.
func classify(rec *record) (ev Event, ok bool) {
	return Event{}, false
}
