package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/kcmtrace/kcmtrace/internal/mempolicy"
)

// Exit codes (docs/DESIGN.md "CLI contract"). They do not depend on --format.
const (
	exitOK       = 0 // success, no finding at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitUsage    = 2 // bad flags or arguments, unknown rule, no volume matched
	exitInput    = 3 // an input could not be read (the rest was still analysed)
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// cli is the whole command line; kong reads the struct tags.
type cli struct {
	Analyze  analyzeCmd  `cmd:"" help:"Findings and incidents: what went wrong, with the lines that prove it (the main job)."`
	Timeline timelineCmd `cmd:"" help:"Per-volume timeline: one swimlane per node, then the events."`
	Events   eventsCmd   `cmd:"" help:"Typed events, one per understood log line (JSON Lines by default)."`
	Volumes  volumesCmd  `cmd:"" help:"Volumes seen, with every name, nodes, pods and failure counts."`
	Rules    rulesCmd    `cmd:"" help:"List the rules."`
	Explain  explainCmd  `cmd:"" help:"Explain one rule: the mechanism and what to check next."`
	Fetch    fetchCmd    `cmd:"" help:"Print (or --exec run) the gcloud/aws/az commands that export the KCM and kubelet logs of a window, filtered to the volume lines."`
	Collect  collectCmd  `cmd:"" help:"Print the kubectl commands that dump the cluster state, events and logs the analysis can use."`

	Completion completionCmd `cmd:"" help:"Print the shell completion script: source <(kcmtrace completion bash), or zsh, fish."`
	Man        manCmd        `cmd:"" help:"Print the man page (roff): kcmtrace man > kcmtrace.1."`

	Version kong.VersionFlag `help:"Print the version and exit."`

	profileFlags `embed:""`
}

// exitPanic carries kong's exit request (after --help or --version) out of
// kong without calling os.Exit.
type exitPanic struct{ code int }

// env is what a command needs from the process: its streams and environment.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// isTerminal reports whether a stream is a terminal; nil means the
	// real check (fileIsTerminal). Tests set it to play a terminal.
	isTerminal func(any) bool
	// policies are the memory policies the command's loads started
	// (memPolicy), which runModel ends once the command returns.
	policies *[]*mempolicy.Run
}

// memPolicy puts the memory policy of a load in force (mempolicy.Start).
// It lasts until the command returns (runModel ends it), not beyond:
// commands run one after another in one process (the tests') each start
// from the runtime's own settings.
func (e env) memPolicy(paths []string) *mempolicy.Run {
	r := mempolicy.Start(paths, e.getenv)
	if e.policies != nil {
		*e.policies = append(*e.policies, r)
	}
	return r
}

// stdinIsTerminal reports whether stdin is a terminal (nothing piped).
func (e env) stdinIsTerminal() bool {
	if e.isTerminal != nil {
		return e.isTerminal(e.stdin)
	}
	return fileIsTerminal(e.stdin)
}

// run parses args, runs the command and returns the exit code. It is the only
// place that turns errors into exit codes.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return runEnv(args, env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: osGetenv})
}

func runEnv(args []string, e env) (code int) {
	return runModel(args, e, parseModel(args, e.getenv))
}

// runModel is runEnv with the model kong parses args into (parseModel).
func runModel(args []string, e env, model any) (code int) {
	parser, err := kong.New(model,
		kong.Name(progName),
		kong.Description(description+helpEpilogue()),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { panic(exitPanic{code}) }),
		kong.Vars{"version": versionString()},
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintf(e.stderr, "kcmtrace: internal error: %v\n", err)
		return exitUsage
	}
	defer func() {
		if r := recover(); r != nil {
			if ep, ok := r.(exitPanic); ok {
				code = ep.code
				if code != 0 {
					code = exitUsage
				}
				return
			}
			panic(r)
		}
	}()
	if e.getenv(completionLineEnv) != "" {
		registerCompletion(parser) // answers the shell and exits
	}
	if len(args) == 0 {
		args = []string{"--help"}
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(err.Error()))
		return exitUsage
	}
	stopProfile, err := modelGlobals(model).start()
	if err != nil {
		fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(err.Error()))
		return exitUsage
	}
	defer func() {
		if err := stopProfile(); err != nil {
			fmt.Fprintf(e.stderr, "kcmtrace: --profile: %s\n", oneLine(err.Error()))
		}
	}()
	var policies []*mempolicy.Run
	e.policies = &policies
	defer func() {
		for _, r := range policies {
			r.End()
		}
	}()
	switch runner := ctx.Selected().Target.Addr().Interface().(type) {
	case command:
		err = runner.run(e)
	case ctxCommand:
		err = runner.runCtx(e, ctx)
	default:
		fmt.Fprintf(e.stderr, "kcmtrace: %s: not a command\n", oneLine(ctx.Command()))
		return exitUsage
	}
	var ce *codeError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		if ce.msg != "" {
			fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(ce.msg))
		}
		return ce.code
	default:
		fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(err.Error()))
		return exitUsage
	}
}

// command is implemented by every subcommand.
type command interface {
	run(e env) error
}

// ctxCommand is a subcommand that needs the parsed model (completion, man).
type ctxCommand interface {
	runCtx(e env, ctx *kong.Context) error
}

// description is what --help says first.
const description = "Kubernetes volume attach/detach log forensics: reads kube-controller-manager and kubelet logs and kubectl describe/get events output, reconstructs each volume's attach state per node, and explains what went wrong."

// codeError is an error that decides the exit code.
type codeError struct {
	code int
	msg  string
}

func (e *codeError) Error() string { return e.msg }

func usageErr(format string, a ...any) error {
	return &codeError{code: exitUsage, msg: fmt.Sprintf(format, a...)}
}

// oneOf renders choices for messages: "a, b or c".
func oneOf(choices []string) string {
	if len(choices) <= 1 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}
