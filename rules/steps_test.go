package rules

import (
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMergeSteps(t *testing.T) {
	in := []Step{
		{Prevent, "Use WaitForFirstConsumer."},
		{Fix, "Fix ControllerUnpublishVolume. Upgrade the driver."},
		{Recover, "Delete the pod on B."},
		{Confirm, "Check the audit log."},
		{Fix, "Fix ControllerUnpublishVolume. Upgrade the driver."}, // same step again
		{Recover, "delete the  pod on B."},                          // case and spacing aside
		{Confirm, "Check the disk. Check the audit log."},           // one new sentence
	}
	got := MergeSteps(in)
	var b strings.Builder
	for _, s := range got {
		b.WriteString(s.Phase.String() + ": " + s.Text + "\n")
	}
	want := "recover: Delete the pod on B.\n" +
		"confirm: Check the audit log.\n" +
		"confirm: Check the disk.\n" +
		"fix: Fix ControllerUnpublishVolume. Upgrade the driver.\n" +
		"prevent: Use WaitForFirstConsumer.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The seed incident's next steps: recovery first, each step once, none of
// the findings' texts repeated (the CBS ControllerUnpublish step was given
// by two findings).
func TestSeedIncidentNextDistinct(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/seed-legacy/*.log")
	res, _ := analyze(t, files...)
	if len(res.Incidents) != 1 {
		t.Fatalf("%d incidents", len(res.Incidents))
	}
	next := res.Incidents[0].Next
	if len(next) < 3 || next[0].Phase != Recover {
		t.Fatalf("next %+v: want a recovery step first", next)
	}
	seen := map[string]bool{}
	last := Phase(0)
	for _, s := range next {
		if s.Phase < last {
			t.Errorf("step %q out of phase order", s.Text)
		}
		last = s.Phase
		for _, sent := range sentences(s.Text) {
			if seen[sent] {
				t.Errorf("sentence said twice: %q", sent)
			}
			seen[sent] = true
		}
	}
	n := 0
	for _, s := range next {
		n += strings.Count(s.Text, "ControllerUnpublishVolume")
	}
	if n != 1 {
		t.Errorf("ControllerUnpublishVolume named in %d steps, want 1: %+v", n, next)
	}
	for _, s := range next {
		if s.Phase == Recover && strings.Contains(s.Text, "zone") {
			t.Errorf("the pod already moved: no zone recovery step wanted, got %q", s.Text)
		}
	}
}

// TestMergeStepsSkipsWhatItWould: MergeSteps, which drops a text met
// before without looking at it again, merges as normalising and comparing
// every step does (mergeSteps without the shortcut), on random lists of
// steps drawn from texts that repeat, differ in case and spacing, contain
// one another and share sentences, in every phase.
func TestMergeStepsSkipsWhatItWould(t *testing.T) {
	texts := []string{
		"Delete the pod on B.", "delete the  pod on B.", "Check the audit log.", "Check the disk. Check the audit log.",
		"Fix ControllerUnpublishVolume. Upgrade the driver.", "Upgrade the driver.", "Use WaitForFirstConsumer.",
		"the pod", "", "  ", "Check the disk.", "CHECK THE DISK. Retry.", "e.g. this. And that.",
	}
	phases := []Phase{Recover, Confirm, Fix, Prevent}
	rng := rand.New(rand.NewSource(1))
	for range 2000 {
		steps := make([]Step, rng.Intn(12))
		for i := range steps {
			steps[i] = Step{Phase: phases[rng.Intn(len(phases))], Text: texts[rng.Intn(len(texts))]}
		}
		if got, want := MergeSteps(steps), mergeSteps(steps, false); !slices.Equal(got, want) {
			t.Fatalf("MergeSteps(%q)\n= %q\nwant %q", steps, got, want)
		}
	}
}

// TestNormStep: the one-pass normalisation is the definition's, on ASCII
// with every kind of space and on text that is not ASCII.
func TestNormStep(t *testing.T) {
	for _, s := range []string{"", " ", "a", " Delete  the\tPod\n on B. ", "\v\fX\rY", "ÄB  c", "x\u00a0y", "x\u0085Y", "ǅ  Z",
		"Check THE disk.\n\nRetry  ", "a\x00b", "~!@#$%^&*()_+{}|:<>?"} {
		if got, want := normStep(s), strings.ToLower(strings.Join(strings.Fields(s), " ")); got != want {
			t.Errorf("normStep(%q) = %q, want %q", s, got, want)
		}
	}
}
