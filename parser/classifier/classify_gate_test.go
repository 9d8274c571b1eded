package classifier

import (
	"bufio"
	"bytes"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// This file checks the gate of classifyEventText (eventMayClassify): an
// event it turns away is one classifyEventMessage does not understand
// either, on every event and message of the test inputs and generated logs,
// and under fuzzing.

// eventPair is the reason and message of an event.
type eventPair struct{ reason, text string }

// gateCorpus returns, without duplicates, the events of every log under
// testdata (the catalog examples, the real logs the classifier goldens are
// made from, the incident seeds) and of generated KCM and kubelet logs of
// every era and shape — event lines and describe rows — and, as the
// messages of events of a volume reason and of another, every message,
// value, line and quoted golden field of those inputs and of refCorpus,
// and what each way to an event needs. events is the number of pairs taken
// from events.
func gateCorpus(t testing.TB) (pairs []eventPair, events int) {
	t.Helper()
	gateOnce.Do(func() { gatePairs, gateEvents = buildGateCorpus(t) })
	if len(gatePairs) == 0 {
		t.Fatal("no gate corpus")
	}
	return gatePairs, gateEvents
}

// the gate corpus, built once for the test and the fuzz target
var (
	gateOnce   sync.Once
	gatePairs  []eventPair
	gateEvents int
)

func buildGateCorpus(t testing.TB) (pairs []eventPair, events int) {
	t.Helper()
	var inputs [][]byte
	root := filepath.Join("..", "..", "testdata")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") {
			inputs = append(inputs, testReadFile(t, p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range loggen.Eras {
		for _, shape := range loggen.Shapes {
			var kcm, kubelet bytes.Buffer
			cfg := loggen.Config{Size: 1 << 20, Era: era, Shape: shape, Seed: 1, Kubelet: &kubelet, KubeletShare: 0.25}
			if _, err := loggen.Generate(&kcm, cfg); err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, kcm.Bytes(), kubelet.Bytes())
		}
	}
	seen := map[eventPair]bool{}
	add := func(reason, text string) {
		if p := (eventPair{reason, text}); !seen[p] {
			seen[p] = true
			pairs = append(pairs, p)
		}
	}
	var texts []string
	for _, in := range inputs {
		for _, r := range testRecords(t, in) {
			if tb := r.rec.Table; tb != nil {
				add(tb.Reason, tb.Message)
				texts = append(texts, tb.Message)
				continue
			}
			msg, kvs := recordMessage(r.rec, nil)
			if isEventLine(msg) {
				reason, text, _ := eventReason(msg, kvs)
				add(reason, text)
			}
			texts = append(texts, msg, r.rec.Rest, r.text)
			for _, p := range kvs {
				texts = append(texts, p.Value)
			}
		}
	}
	events = len(pairs)
	goldens, _ := filepath.Glob(filepath.Join("testdata", "classify", "*.golden"))
	for _, g := range goldens {
		sc := bufio.NewScanner(bytes.NewReader(testReadFile(t, g)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			texts = append(texts, quotedFields(sc.Text())...)
		}
	}
	// and the texts the fast helpers are checked on (refCorpus: messages,
	// first lines, clause ops, tails), with what each way to an event
	// starts with or needs alone
	texts = append(texts, refCorpus(t, true)...)
	for _, r := range opRules {
		texts = append(texts, r.prefix, r.prefix+" failed", "  "+r.prefix)
	}
	texts = append(texts, specialStems[:]...)
	texts = append(texts, limitWords...)
	texts = append(texts, "Event(", "Event occurred", "Operation for ",
		`Event(v1.ObjectReference{Kind:"Pod", Name:"p"}): type: 'Warning' reason: 'FailedMount' timed out`,
		`Event(v1.ObjectReference{Kind:"Pod", Name:"p"}): type: 'Normal' reason: 'Started' Started container`,
		"Attaching volume v to instance i",
		"0123abcd: Attaching volume v to instance i", "Call IaaS AttachVolume request volume id: v")
	for _, s := range texts {
		for _, reason := range [...]string{"", "ScalingReplicaSet", "FailedMount"} {
			add(reason, s)
			add(reason, firstLine(s))
		}
	}
	return pairs, events
}

// isEventLine reports whether classifyMessage hands msg to classifyEventLine.
func isEventLine(msg string) bool {
	return msg == "Event occurred" || strings.HasPrefix(msg, "Event(v1.ObjectReference{") ||
		strings.HasPrefix(msg, "Event(api.ObjectReference{")
}

// quotedFields returns the Go-quoted values of a golden line (key="…").
func quotedFields(line string) (out []string) {
	for {
		i := strings.Index(line, `="`)
		if i < 0 {
			return out
		}
		line = line[i+1:]
		q, err := strconv.QuotedPrefix(line)
		if err != nil {
			line = line[1:]
			continue
		}
		if v, err := strconv.Unquote(q); err == nil {
			out = append(out, v)
		}
		line = line[len(q):]
	}
}

// checkEventGate checks the gate on one event: where eventMayClassify turns
// it away, classifyEventMessage must not understand it, and
// classifyEventText must answer as classifyEventMessage does. It reports
// whether the gate turned the event away.
func checkEventGate(t testing.TB, reason, text string) bool {
	t.Helper()
	msg := eventMessage(text)
	want, wok := classifyEventMessage(reason, msg)
	if !eventMayClassify(reason, msg) {
		if wok {
			t.Fatalf("eventMayClassify(%q, %q) is false, but classifyEventMessage understands it: %s%s",
				reason, msg, want.Kind, eventFields(want))
		}
		return true
	}
	got, ok := classifyEventText(reason, text)
	if ok != wok || eventText(got) != eventText(want) {
		t.Fatalf("classifyEventText(%q, %q) = %v %s, ungated %v %s", reason, text, ok, eventText(got), wok, eventText(want))
	}
	return false
}

// eventText renders every message-side field of ev.
func eventText(ev Draft) string {
	s := ev.Kind.String() + eventFields(ev) + " error=" + strconv.Quote(ev.Error) + " count=" + strconv.Itoa(int(ev.Count))
	if ev.Retry != nil {
		s += " retry=" + ev.Retry.Backoff.String() + "," + ev.Retry.Until + "," + strconv.FormatFloat(ev.Retry.Mono, 'g', -1, 64)
	}
	return s
}

func TestEventGateMatchesClassifier(t *testing.T) {
	pairs, events := gateCorpus(t)
	turned, eventsTurned, understood := 0, 0, 0
	for i, p := range pairs {
		if checkEventGate(t, p.reason, p.text) {
			turned++
			if i < events {
				eventsTurned++
			}
		} else if _, ok := classifyEventMessage(p.reason, eventMessage(p.text)); ok {
			understood++
		}
	}
	t.Logf("%d events and %d other texts: %d turned away by the gate (%d events), %d understood",
		events, len(pairs)-events, turned, eventsTurned, understood)
	// the corpus must exercise both sides: generated logs are full of
	// events about anything but volumes, and of volume events
	if eventsTurned < 10 || understood < 100 {
		t.Fatalf("corpus too thin: %d events turned away, %d understood", eventsTurned, understood)
	}
}

// TestEventGateCases pins the gate's answer on the events of a busy
// cluster's log: the non-volume ones are turned away, the volume ones (and
// an unknown message of a volume reason) are not.
func TestEventGateCases(t *testing.T) {
	for _, c := range []struct {
		reason, text string
		may          bool
	}{
		{"ScalingReplicaSet", "Scaled up replica set web-7d9f8 to 3", false},
		{"SuccessfulCreate", "create Pod catalog-2 in StatefulSet catalog successful", false},
		{"LeaderElection", "kcm-1_0b6c became leader", false},
		{"ExternalProvisioning", `waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com" or manually created by system administrator`, false},
		{"ProvisioningSucceeded", `Successfully provisioned volume pvc-1 using kubernetes.io/aws-ebs`, false},
		{"SuccessfulAttachVolume", `AttachVolume.Attach succeeded for volume "pvc-1" `, true},
		{"FailedMount", "anything at all", true},
		{"Warning", "Multi-Attach error for volume \"pvc-1\"", true},
		{"FailedScheduling", "0/3 nodes are available: 3 node(s) exceed max volume count.", true},
		{"FailedAttach", "Failed to attach: maximum number of data disks reached", true},
		{"X", "Operation for \"v\" failed. No retries permitted until …", true},
		{"X", "GRPC error: rpc error: code = Internal", true},
		{"X", "  Controller attach succeeded for volume", true},
		{"X", "Scaled up replica set web to 3 (Kelvin \u212a)", true}, // not ASCII: may fold to a phrase
	} {
		if got := eventMayClassify(c.reason, eventMessage(c.text)); got != c.may {
			t.Errorf("eventMayClassify(%q, %q) = %v, want %v", c.reason, c.text, got, c.may)
		}
		checkEventGate(t, c.reason, c.text)
	}
}

// TestLimitRuleFirst checks what limitMayMatch relies on: the AttachLimit
// rule is the first of codeRules and the only one with that code.
func TestLimitRuleFirst(t *testing.T) {
	for i, r := range codeRules {
		if (r.code == CodeAttachLimit) != (i == 0) {
			t.Errorf("codeRules[%d] has code %s", i, r.code)
		}
	}
}

// FuzzEventGate checks the gate (checkEventGate) on any reason and message.
// Seeds: every event of the test inputs and generated logs.
func FuzzEventGate(f *testing.F) {
	pairs, events := gateCorpus(f)
	for _, p := range pairs[:events] {
		f.Add(p.reason, p.text)
	}
	f.Fuzz(func(t *testing.T, reason, text string) {
		checkEventGate(t, reason, text)
	})
}
