package main

import (
	"bytes"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/alecthomas/kong"
)

// wholeModel is kong's model of the whole command line.
func wholeModel(t *testing.T) *kong.Application {
	t.Helper()
	p, err := kong.New(&cli{}, kong.Name(progName), kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	return p.Model
}

// flagNames lists the flags of a node, hidden ones included.
func flagNames(n *kong.Node) []string {
	var names []string
	for _, f := range n.Flags {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

// TestCommandModels pins which command lines get a model of their command
// alone (parseModel): every command's name, as kong names it, but for the
// commands that render the whole model; and that such a model holds that
// command with all its flags and the application's.
func TestCommandModels(t *testing.T) {
	whole := wholeModel(t)
	noEnv := func(string) string { return "" }
	var commands int
	for _, cmd := range whole.Children {
		if cmd.Type != kong.CommandNode {
			continue
		}
		commands++
		_, rendersModel := cmd.Target.Addr().Interface().(ctxCommand)
		model := parseModel([]string{cmd.Name, "x"}, noEnv)
		if _, isWhole := model.(*cli); isWhole != rendersModel {
			t.Errorf("%s: parseModel gives the whole model: %v, want %v", cmd.Name, isWhole, rendersModel)
			continue
		}
		if rendersModel {
			continue
		}
		p, err := kong.New(model, kong.Name(progName), kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
		if err != nil {
			t.Fatalf("%s: %v", cmd.Name, err)
		}
		if len(p.Model.Children) != 1 || p.Model.Children[0].Name != cmd.Name {
			t.Errorf("%s: the model's commands are %v", cmd.Name, p.Model.Children)
			continue
		}
		if got, want := flagNames(p.Model.Children[0]), flagNames(cmd); !slices.Equal(got, want) {
			t.Errorf("%s: flags %v, want %v", cmd.Name, got, want)
		}
		if got, want := flagNames(p.Model.Node), flagNames(whole.Node); !slices.Equal(got, want) {
			t.Errorf("%s: application flags %v, want %v", cmd.Name, got, want)
		}
	}
	if commands < 8 {
		t.Fatalf("the whole model has %d commands", commands)
	}
	for _, args := range [][]string{nil, {"--help"}, {"--profile", "cpu", "analyze"}, {"analyse"}, {"man"}, {"completion", "bash"}} {
		if _, ok := parseModel(args, noEnv).(*cli); !ok {
			t.Errorf("%q: not the whole model", args)
		}
	}
	completing := func(k string) string {
		if k == completionLineEnv {
			return "kcmtrace analyze --enable slow-"
		}
		return ""
	}
	if _, ok := parseModel([]string{"analyze"}, completing).(*cli); !ok {
		t.Errorf("a completion request does not get the whole model")
	}
}

// TestCommandModelMatchesWhole runs every command that gets a model of its
// own with that model and with the whole one: help, usage errors and runs
// give the same exit code and the same bytes on stdout and stderr.
func TestCommandModelMatchesWhole(t *testing.T) {
	incident := "../../testdata/incidents/seed-1.28"
	var cases [][]string
	for _, cmd := range wholeModel(t).Children {
		if cmd.Type != kong.CommandNode {
			continue
		}
		for _, rest := range [][]string{nil, {"--help"}, {"-h"}, {"--no-such-flag"}, {"--version"}, {"a", "b", "--output", "yaml"}} {
			cases = append(cases, append([]string{cmd.Name}, rest...))
		}
	}
	cases = append(cases,
		[]string{"analyze", "-o", "json", incident},
		[]string{"analyze", "--fail-on", "warning", "--disable", "multi-attach", incident},
		[]string{"timeline", "--volume", "disk", incident},
		[]string{"events", "--kind", "attach-failed", incident},
		[]string{"volumes", "-o", "wide", "--node", "node-b", incident},
		[]string{"explain", "attach-before-detach"},
		[]string{"rules", "-o", "json"},
		[]string{"fetch", "eks", "--cluster", "prod", "--region", "eu-west-1", "--since", "2024-08-12T03:00:00Z", "--until", "2024-08-12T05:00:00Z"},
		[]string{"collect", "--pvc", "data"},
	)
	noEnv := func(string) string { return "" }
	run := func(args []string, model any) (int, string, string) {
		var out, errb bytes.Buffer
		code := runModel(args, env{stdin: emptyReader{}, stdout: &out, stderr: &errb, getenv: noEnv}, model)
		return code, out.String(), errb.String()
	}
	pruned := 0
	for _, args := range cases {
		model := parseModel(args, noEnv)
		if _, ok := model.(*cli); ok {
			continue
		}
		pruned++
		code, stdout, stderr := run(args, model)
		wantCode, wantStdout, wantStderr := run(args, &cli{})
		if code != wantCode || stdout != wantStdout || stderr != wantStderr {
			t.Errorf("%q: the command's model gives exit %d\nstdout:\n%s\nstderr:\n%s\nthe whole model exit %d\nstdout:\n%s\nstderr:\n%s",
				args, code, stdout, stderr, wantCode, wantStdout, wantStderr)
		}
	}
	if pruned < len(cases)/2 {
		t.Fatalf("only %d of %d command lines got a model of their command", pruned, len(cases))
	}
}

// TestCommandModelGlobals: the application's flags are read from either
// model.
func TestCommandModelGlobals(t *testing.T) {
	for _, model := range []any{&cli{}, reflect.New(commandModel("analyze")).Interface()} {
		p, err := kong.New(model, kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Parse([]string{"analyze", "--profile", "heap", "--profile-output", "h.pprof", "x.log"}); err != nil {
			t.Fatal(err)
		}
		out, err := filepath.Abs("h.pprof") // (type:"path")
		if err != nil {
			t.Fatal(err)
		}
		if got := modelGlobals(model); got != (profileFlags{Profile: "heap", ProfileOutput: out}) {
			t.Errorf("%T: %+v", model, got)
		}
	}
}
