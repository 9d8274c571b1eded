package classifier

import (
	"encoding/json"
	"sync"
	"testing"
)

// TestComponentNames: the fixed components keep their names, any other name
// gets a number of its own once (also when asked from many goroutines), and
// both read back by name.
func TestComponentNames(t *testing.T) {
	for c := Component(0); c < numFixedComponents; c++ {
		if got := ComponentOf(c.String()); got != c {
			t.Fatalf("ComponentOf(%q) = %d, want %d", c, got, c)
		}
	}
	if ComponentKCM.String() != "kcm" || ComponentMixed.String() != "mixed" || Component(0).String() != "" {
		t.Fatalf("names: %q %q %q", ComponentKCM, ComponentMixed, Component(0))
	}
	var wg sync.WaitGroup
	got := make([]Component, 8)
	for i := range got {
		wg.Go(func() { got[i] = ComponentOf("test-role-a") })
	}
	wg.Wait()
	a := got[0]
	for _, c := range got {
		if c != a {
			t.Fatalf("one name, two numbers: %v", got)
		}
	}
	b := ComponentOf("test-role-b")
	if a < numFixedComponents || b == a || a.String() != "test-role-a" || b.String() != "test-role-b" {
		t.Fatalf("test-role-a %d %q, test-role-b %d %q", a, a, b, b)
	}
	var back Component
	if err := json.Unmarshal([]byte(`"test-role-b"`), &back); err != nil || back != b {
		t.Fatalf("read back %d, %v; want %d", back, err, b)
	}
	if js, _ := json.Marshal(b); string(js) != `"test-role-b"` {
		t.Fatalf("JSON %s", js)
	}
}

// TestOriginNames: origins write and read their names; a name that is no
// origin is an error.
func TestOriginNames(t *testing.T) {
	for o, want := range map[Origin]string{0: "", OriginEvent: "event", OriginDescribe: "describe"} {
		b, err := o.MarshalText()
		if err != nil || string(b) != want || o.String() != want {
			t.Fatalf("origin %d: %q, %v; want %q", o, b, err, want)
		}
		var back Origin
		if err := back.UnmarshalText(b); err != nil || back != o {
			t.Fatalf("UnmarshalText(%q) = %d, %v", b, back, err)
		}
	}
	var o Origin
	if err := o.UnmarshalText([]byte("rumour")); err == nil {
		t.Fatal("an unknown origin read")
	}
}
