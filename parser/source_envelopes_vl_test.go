package parser

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/exportgen"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// TestVictoriaLogsSkimMatchesFull: a generated VictoriaLogs export (volume
// lines among the noise, multi-line entries whose continuation lines are
// records of their own, the _stream changing between three pods) parses
// to the same Result — events, line accounting, times, problems — with
// the skimming of token-free records on and off, and most records are
// skimmed.
func TestVictoriaLogsSkimMatchesFull(t *testing.T) {
	var plain bytes.Buffer
	if _, err := loggen.Generate(&plain, loggen.Config{Size: 2 << 20, Seed: 5, Shape: loggen.ShapeChurn}); err != nil {
		t.Fatal(err)
	}
	var withCont bytes.Buffer
	for i, l := range strings.SplitAfter(plain.String(), "\n") {
		withCont.WriteString(l)
		if i%97 == 96 && strings.HasSuffix(l, "\n") {
			fmt.Fprintf(&withCont, "\tgoroutine %d [running]:\n        k8s.io/kubernetes/pkg/controller/volume/attachdetach.(*attachDetachController).Run()\n", i)
		}
	}
	var export bytes.Buffer
	if err := exportgen.VictoriaLogs(&export, &withCont, exportgen.VictoriaLogsConfig{Year: loggen.DefaultStart.Year(), Pods: 3, Run: 700}); err != nil {
		t.Fatal(err)
	}
	defer func(v bool) { envelopeSkim = v }(envelopeSkim)
	envelopeSkim = false
	full := ParseReader(bytes.NewReader(export.Bytes()), "vl.jsonl", Options{})
	envelopeSkim = true
	before := skimmedRecords.Load()
	fast := ParseReader(bytes.NewReader(export.Bytes()), "vl.jsonl", Options{})
	skimmed := skimmedRecords.Load() - before
	if !reflect.DeepEqual(*texttest.Canon(&fast), *texttest.Canon(&full)) {
		t.Fatalf("skimming changes the result:\n%+v\nfull\n%+v", fast.Input, full.Input)
	}
	in := full.Input
	lines := strings.Count(export.String(), "\n")
	if in.Wrapper != "victorialogs" || in.Events == 0 || in.Relevant == 0 || in.Lines != lines || in.Records != lines || in.Component != "kcm" {
		t.Fatalf("wrapper %q, component %q, events %d, relevant %d, lines %d and records %d of %d", in.Wrapper, in.Component, in.Events, in.Relevant, in.Lines, in.Records, lines)
	}
	if skimmed < int64(in.Lines/2) {
		t.Fatalf("%d of %d records skimmed", skimmed, in.Lines)
	}
}
