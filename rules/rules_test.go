package rules

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestFixtures runs every rule over every fixture in testdata/<rule>/ and
// compares the whole result with testdata/golden/<rule>/<fixture>.txt.
// fire-*.txt must produce a finding of the rule, quiet-*.txt none.
func TestFixtures(t *testing.T) {
	for rule, files := range fixtures(t) {
		for _, path := range files {
			base := strings.TrimSuffix(filepath.Base(path), ".txt")
			t.Run(rule+"/"+base, func(t *testing.T) {
				tl := loadFixture(t, path)
				res, err := Run(tl, Config{})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Errors) > 0 {
					t.Errorf("internal errors: %v", res.Errors)
				}
				n := 0
				for _, f := range res.Findings {
					if f.Rule == rule {
						n++
					}
					checkFinding(t, f)
				}
				for _, in := range res.Incidents {
					checkTimes(t, "incident on "+in.Volume, nil, append([]string{in.Summary, in.RootCause, in.Component}, in.Story...))
				}
				switch {
				case strings.HasPrefix(base, "fire-") && n == 0:
					t.Errorf("%s: want a %s finding, got none", path, rule)
				case strings.HasPrefix(base, "quiet-") && n > 0:
					t.Errorf("%s: want no %s finding, got %d", path, rule, n)
				}
				golden.Check(t, filepath.Join("testdata", "golden", rule, base+".txt"), []byte(dump(res)))
			})
		}
	}
}

// checkFinding checks what every finding must carry.
func checkFinding(t *testing.T, f Finding) {
	t.Helper()
	if f.Rule == "" || f.Severity == None || f.Volume == "" && len(f.Pods) == 0 && len(f.Nodes) == 0 || f.Summary == "" || f.Explanation == "" || f.Next == "" {
		t.Errorf("incomplete finding: %+v", f)
	}
	if len(f.Evidence) == 0 || len(f.Evidence) > 12 {
		t.Errorf("%s: %d evidence lines", f.Rule, len(f.Evidence))
	}
	for _, e := range f.Evidence {
		if e.Path == "" || e.Line == 0 || e.Note == "" {
			t.Errorf("%s: evidence without path/line/note: %+v", f.Rule, e)
		}
	}
	if f.Start.IsZero() || f.End.Before(f.Start) {
		t.Errorf("%s: bad span %v → %v", f.Rule, f.Start, f.End)
	}
	if strings.Contains(f.Summary, "\n") {
		t.Errorf("%s: summary is not one line: %q", f.Rule, f.Summary)
	}
	texts := []string{f.Summary, f.Explanation, f.Next}
	for _, c := range f.Checks {
		texts = append(texts, c.Text)
	}
	checkTimes(t, f.Rule, f.Times, texts)
}

// checkTimes: the texts carry no time mark (settle replaced them all) and
// every recorded time is written in one of them (an incident also
// carries its findings' times: the caller passes none).
func checkTimes(t *testing.T, who string, times []TimeMark, texts []string) {
	t.Helper()
	all := strings.Join(texts, "\n")
	if strings.ContainsAny(all, markOpen+markClose) {
		t.Errorf("%s: a time mark left in its texts: %q", who, all)
	}
	for _, m := range times {
		if !strings.Contains(all, m.Text()) {
			t.Errorf("%s: time %s recorded but not in its texts", who, m.Text())
		}
	}
}

// TestRegistry checks the registry's own contracts; TestRuleComplete checks
// that each rule has all its parts.
func TestRegistry(t *testing.T) {
	// The registry and the fixture directories name the same rules.
	fx := fixtures(t)
	var dirs []string
	for d := range fx {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	if got := Names(); !slices.Equal(got, dirs) {
		t.Errorf("rules = %v, fixture directories = %v", got, dirs)
	}
	for _, r := range All() {
		if !kebab.MatchString(r.Name) {
			t.Errorf("%s: not kebab-case", r.Name)
		}
		if r.Severity == None {
			t.Errorf("%s: no default severity", r.Name)
		}
		if strings.Contains(r.Doc.Title, "\n") {
			t.Errorf("%s: title is not one line", r.Name)
		}
		for _, p := range r.Params {
			if p.Help == "" {
				t.Errorf("%s.%s: no help", r.Name, p.Key)
			}
		}
		if l, ok := Lookup(r.Name); !ok || l.Name != r.Name {
			t.Errorf("Lookup(%q) failed", r.Name)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) succeeded")
	}
	// docs/DESIGN.md's contract: default severities.
	sev := map[string]Severity{"attach-before-detach": Critical, "mount-device-not-found": Critical,
		"attach-retry-storm": Warning, "multi-attach": Warning, "force-detach": Warning,
		"detach-failed": Warning, "slow-attach": Warning, "attach-state-lost": Warning}
	for n, s := range sev {
		if r, _ := Lookup(n); r.Severity != s {
			t.Errorf("%s: severity %v, want %v", n, r.Severity, s)
		}
	}
}

func TestRegisterRejects(t *testing.T) {
	for name, r := range map[string]Rule{
		"not kebab": {Name: "Bad_Name", Check: func(*Context) []Finding { return nil }},
		"duplicate": {Name: "multi-attach", Check: func(*Context) []Finding { return nil }},
		"no check":  {Name: "no-check"},
		"bad param": {Name: "bad-param", Check: func(*Context) []Finding { return nil }, Params: []Param{{Key: "x", Default: "1m"}, {Key: "x", Default: "2"}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(r)
		}()
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []Severity{None, Info, Warning, Critical} {
		got, err := ParseSeverity(strings.ToUpper(s.String()))
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s.String(), got, err)
		}
		b, _ := s.MarshalText()
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("text round trip of %v: %v %v", s, back, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil || !strings.Contains(err.Error(), "critical") {
		t.Errorf("ParseSeverity(fatal) error = %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string // substrings of the error
	}{
		{name: "unknown enable", cfg: Config{Enable: []string{"multi-atach"}}, want: []string{`unknown rule "multi-atach"`, `did you mean "multi-attach"`, "valid rules: attach-before-detach"}},
		{name: "unknown disable", cfg: Config{Disable: []string{"nope"}}, want: []string{`unknown rule "nope"`, "slow-attach"}},
		{name: "set without dot", cfg: Config{Set: map[string]string{"threshold": "1m"}}, want: []string{"want rule.key=value"}},
		{name: "set unknown rule", cfg: Config{Set: map[string]string{"slow.threshold": "1m"}}, want: []string{`unknown rule "slow"`}},
		{name: "set unknown key", cfg: Config{Set: map[string]string{"slow-attach.treshold": "1m"}}, want: []string{`rule slow-attach has no parameter "treshold"`, `did you mean "threshold"`, "valid: threshold"}},
		{name: "set no params", cfg: Config{Set: map[string]string{"force-detach.x": "1"}}, want: []string{"force-detach has no parameters"}},
		{name: "bad int", cfg: Config{Set: map[string]string{"attach-retry-storm.min-failures": "many"}}, want: []string{"attach-retry-storm.min-failures", `"many" is not a non-negative integer`, "default 3"}},
		{name: "bad duration", cfg: Config{Set: map[string]string{"multi-attach.grace": "soon"}}, want: []string{"multi-attach.grace", "not a duration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(&timeline.Timeline{}, tc.cfg)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestConfigSelectAndSet(t *testing.T) {
	tl := loadFixture(t, "testdata/attach-retry-storm/quiet-two-transient.txt")
	res, err := Run(tl, Config{Set: map[string]string{"attach-retry-storm.min-failures": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != "attach-retry-storm" || res.Findings[0].Count != 2 {
		t.Errorf("min-failures=2: got %s", dump(res))
	}
	res, _ = Run(tl, Config{Disable: []string{"attach-retry-storm"}, Set: map[string]string{"attach-retry-storm.min-failures": "2"}})
	if len(res.Findings) != 0 {
		t.Errorf("disabled rule still fired: %s", dump(res))
	}
	tl = loadFixture(t, "testdata/attach-before-detach/fire-seed-uncertain.txt")
	res, _ = Run(tl, Config{Enable: []string{"mount-device-not-found"}})
	for _, f := range res.Findings {
		if f.Rule != "mount-device-not-found" {
			t.Errorf("--enable mount-device-not-found ran %s", f.Rule)
		}
	}
	if len(res.Findings) == 0 {
		t.Error("--enable mount-device-not-found found nothing")
	}
	// critical-after shortens: the seed's storm is critical at 30m and 1h.
	res, _ = Run(tl, Config{Enable: []string{"attach-retry-storm"}, Set: map[string]string{"attach-retry-storm.critical-after": "2h"}})
	if len(res.Findings) != 1 || res.Findings[0].Severity != Warning {
		t.Errorf("critical-after=2h: %s", dump(res))
	}
}

func TestContextParams(t *testing.T) {
	r, _ := Lookup("attach-retry-storm")
	c := NewContext(&timeline.Timeline{}, r, map[string]string{"critical-after": "1h0m0s"})
	if c.Int("min-failures") != 3 || c.Duration("critical-after") != time.Hour || c.String("min-failures") != "3" {
		t.Errorf("params: %d %v", c.Int("min-failures"), c.Duration("critical-after"))
	}
	defer func() {
		if recover() == nil {
			t.Error("undeclared key did not panic")
		}
	}()
	c.String("nope")
}

// TestPanicIsolation registers a rule that panics: Run reports it and the
// other rules still run.
func TestPanicIsolation(t *testing.T) {
	Register(Rule{
		Name: "test-panics", Severity: Warning,
		Doc:   Doc{Title: "panics", Explanation: "x", Next: "x"},
		Check: func(c *Context) []Finding { var v *timeline.Volume; return []Finding{{Volume: v.Key()}} },
	})
	defer func() {
		registryMu.Lock()
		delete(registry, "test-panics")
		registryMu.Unlock()
	}()
	tl := loadFixture(t, "testdata/attach-retry-storm/fire-zonenotmatch-first.txt")
	res, err := Run(tl, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0], "rule test-panics: internal error: ") {
		t.Errorf("errors = %q", res.Errors)
	}
	if len(res.Findings) == 0 {
		t.Error("other rules did not run")
	}
}

func TestSeries(t *testing.T) {
	var evs []parser.Event
	for i := range 40 {
		evs = append(evs, parser.Draft{Time: parser.StampOf(fixtureDay.Add(time.Duration(i) * time.Minute)), Source: parser.Source{File: parser.InternPath("kcm.log"), Line: parser.Int32(i + 1)}}.Event())
	}
	ev := series(evs, "attach failed")
	if len(ev) != maxSeries {
		t.Fatalf("len = %d", len(ev))
	}
	if ev[0].Line != 1 || ev[len(ev)-1].Line != 40 {
		t.Errorf("first/last = %d/%d", ev[0].Line, ev[len(ev)-1].Line)
	}
	if want := "…and 35 more not shown"; !strings.Contains(ev[len(ev)-1].Note, want) {
		t.Errorf("last note %q lacks %q", ev[len(ev)-1].Note, want)
	}
	if got := len(series(evs[:3], "x")); got != 3 {
		t.Errorf("short series: %d", got)
	}
}

func TestFailingFor(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		500 * time.Millisecond:        0,
		time.Second:                   500 * time.Millisecond,
		2*time.Minute + 2*time.Second: 127500 * time.Millisecond,
		2 * time.Minute:               127500 * time.Millisecond,
		64 * time.Second:              63500 * time.Millisecond,
	} {
		if got := failingFor(d); got != want {
			t.Errorf("failingFor(%v) = %v, want %v", d, got, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	tl := loadFixture(t, "testdata/attach-before-detach/fire-seed-uncertain.txt")
	a, _ := Run(tl, Config{})
	for range 5 {
		b, _ := Run(tl, Config{})
		if dump(a) != dump(b) {
			t.Fatal("Run is not deterministic")
		}
	}
	_ = fmt.Sprint()
}

// TestSelect: "all" in Enable names every rule, in Disable too.
func TestSelect(t *testing.T) {
	names := func(cfg Config) []string {
		t.Helper()
		rs, err := Select(cfg)
		if err != nil {
			t.Fatalf("Select(%+v): %v", cfg, err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	all := Names()
	if got := names(Config{}); !slices.Equal(got, all) {
		t.Errorf("default selects %v, want %v", got, all)
	}
	if got := names(Config{Enable: []string{"all"}}); !slices.Equal(got, all) {
		t.Errorf("--enable all selects %v, want %v", got, all)
	}
	if got := names(Config{Disable: []string{"all"}}); len(got) != 0 {
		t.Errorf("--disable all selects %v", got)
	}
	if got := names(Config{Enable: []string{"all"}, Disable: []string{"all"}}); len(got) != 0 {
		t.Errorf("--enable all --disable all selects %v", got)
	}
	one := all[0]
	if got := names(Config{Enable: []string{"all"}, Disable: []string{one}}); !slices.Equal(got, all[1:]) {
		t.Errorf("--enable all --disable %s selects %v, want %v", one, got, all[1:])
	}
	if got := names(Config{Enable: []string{one, " " + one}}); !slices.Equal(got, []string{one}) {
		t.Errorf("--enable %s selects %v", one, got)
	}
	if _, err := Select(Config{Enable: []string{"all", "nope"}}); err == nil || err.Error() != (Config{Enable: []string{"nope"}}).Validate().Error() {
		t.Errorf("Select with an unknown rule: %v", err)
	}
}
