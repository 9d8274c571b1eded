package classifier

import (
	"encoding/json"
	"testing"
)

// TestKindNames: every kind has a name of its own that reads back as the
// kind, Kinds lists every kind once, and a name that is no kind is an error.
func TestKindNames(t *testing.T) {
	seen := map[string]Kind{}
	for _, k := range Kinds() {
		name := k.String()
		if name == "" {
			t.Fatalf("kind %d has no name", k)
		}
		if o, dup := seen[name]; dup {
			t.Fatalf("kinds %d and %d are both named %q", o, k, name)
		}
		seen[name] = k
		b, err := k.MarshalText()
		if err != nil || string(b) != name {
			t.Fatalf("MarshalText(%d) = %q, %v; want %q", k, b, err, name)
		}
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Fatalf("UnmarshalText(%q) = %d, %v; want %d", b, back, err, k)
		}
	}
	if len(seen) != len(kindNames)-1 {
		t.Fatalf("Kinds lists %d kinds, the vocabulary has %d", len(seen), len(kindNames)-1)
	}
	if AttachStarted.String() != "attach-started" || Unknown.String() != "unknown" || Kind(0).String() != "" {
		t.Fatalf("names: %q %q %q", AttachStarted, Unknown, Kind(0))
	}
	var k Kind
	if err := k.UnmarshalText([]byte("no-such-kind")); err == nil {
		t.Fatal("an unknown name read as a kind")
	}
	if _, ok := ParseKind("Attach-Started"); ok {
		t.Fatal("names are case-sensitive")
	}
}

// TestKindJSON: JSON writes and reads kinds by name, and sorts map keys by
// name (not by number), as it did when Kind was a string.
func TestKindJSON(t *testing.T) {
	b, err := json.Marshal(map[Kind]int{Unknown: 1, AttachStarted: 2, CSIError: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"attach-started":2,"csi-error":3,"unknown":1}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	var ev struct{ Kind Kind }
	if err := json.Unmarshal([]byte(`{"Kind":"detach-failed"}`), &ev); err != nil || ev.Kind != DetachFailed {
		t.Fatalf("got %v, %v", ev.Kind, err)
	}
	if err := json.Unmarshal([]byte(`{"Kind":"detach-exploded"}`), &ev); err == nil {
		t.Fatal("an unknown kind read from JSON")
	}
}
