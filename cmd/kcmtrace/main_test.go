package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kcmtrace/kcmtrace/internal/golden"
)

// TestMain lets scripts `exec kcmtrace` as a real process (for stdin, pipes
// and the process exit status).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kcmtrace": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Besides
// `exec kcmtrace`, scripts have two builtins:
//
//	kcmtrace ARGS...   run the CLI in-process; `!` expects a non-zero exit
//	exit-code N        the exit code of the last in-process kcmtrace was N
//
// The repository's fixtures are copied into $WORK (incidents/, real-logs/,
// catalog/, seed/) so paths in output are short and stable.
// KCMTRACE_UPDATE=1 rewrites the scripts' cmp files.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Update(),
		Setup: func(e *testscript.Env) error {
			for _, dir := range []string{"incidents", "real-logs", "catalog", "seed"} {
				if err := copyTree(filepath.Join("..", "..", "testdata", dir), filepath.Join(e.WorkDir, dir)); err != nil {
					return err
				}
			}
			e.Setenv("NO_COLOR", "")
			e.Setenv("COLUMNS", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"kcmtrace": func(ts *testscript.TestScript, neg bool, args []string) {
				code := runEnv(args, env{stdin: emptyReader{}, stdout: ts.Stdout(), stderr: ts.Stderr(), getenv: ts.Getenv})
				ts.Setenv("KCMTRACE_EXIT", strconv.Itoa(code))
				if (code != 0) != neg {
					ts.Fatalf("kcmtrace exited %d", code)
				}
			},
			"exit-code": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: exit-code N")
				}
				got := ts.Getenv("KCMTRACE_EXIT")
				if (got == args[0]) == neg {
					ts.Fatalf("exit code %s, want %s%s", got, map[bool]string{true: "not ", false: ""}[neg], args[0])
				}
			},
		},
	})
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

// copyTree copies regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
