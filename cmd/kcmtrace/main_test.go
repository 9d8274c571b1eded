package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kcmtrace/kcmtrace/internal/golden"
)

// TestMain lets scripts `exec kcmtrace-process` as a real process (for
// stdin, a real environment and the process exit status).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kcmtrace-process": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Besides
// `exec kcmtrace-process`, scripts have two builtins:
//
//	kcmtrace ARGS...   run the CLI in-process; `!` expects a non-zero exit
//	exit-code N        the exit code of the last in-process kcmtrace was N
//
//	archive OUT DIR    pack DIR into OUT (.tar, .tar.gz, .tar.xz, .zip; OUT.xz FILE compresses one file)
//	hostile-name VAR [SRC]  set $VAR to a file name carrying escape sequences and a
//	                   newline; with SRC, create that file in $WORK with SRC's content
//
// The repository's fixtures are copied into $WORK (incidents/, real-logs/,
// catalog/, seed/) and the state dumps of state/testdata/seed-* into
// state/, so paths in output are short and stable.
// KCMTRACE_UPDATE=1 rewrites the scripts' cmp files.
func TestScripts(t *testing.T) {
	// Absolute paths: the in-process builtin changes the working directory.
	scripts, err := filepath.Abs(filepath.Join("testdata", "script"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           scripts,
		UpdateScripts: golden.Update(),
		Setup: func(e *testscript.Env) error {
			for _, dir := range []string{"incidents", "real-logs", "catalog", "seed"} {
				if err := copyTree(filepath.Join(fixtures, dir), filepath.Join(e.WorkDir, dir)); err != nil {
					return err
				}
			}
			// cluster-state dumps matching incidents/seed-*
			for _, seed := range []string{"seed-legacy", "seed-1.28", "seed-2021"} {
				if err := copyTree(filepath.Join(fixtures, "..", "state", "testdata", seed), filepath.Join(e.WorkDir, "state", seed)); err != nil {
					return err
				}
			}
			e.Setenv("NO_COLOR", "")
			e.Setenv("COLUMNS", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"archive":      scriptArchive,
			"hostile-name": scriptHostileName,
			"stderr-tty":   scriptStderrTTY,
			"kcmtrace": func(ts *testscript.TestScript, neg bool, args []string) {
				code := runInDir(ts.Getenv("WORK"), args, env{stdin: emptyReader{}, stdout: ts.Stdout(), stderr: ts.Stderr(), getenv: ts.Getenv})
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

// cwdMu serialises in-process runs: scripts run in parallel, but the
// working directory belongs to the whole test process.
var cwdMu sync.Mutex

// runInDir runs the CLI in-process with dir as the working directory, so
// relative paths in scripts resolve inside $WORK.
func runInDir(dir string, args []string, e env) int {
	cwdMu.Lock()
	defer cwdMu.Unlock()
	old, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	if err := os.Chdir(dir); err != nil {
		panic(err)
	}
	defer os.Chdir(old)
	return runEnv(args, e)
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
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		// a fixed mtime: a log whose lines carry no year is read as of
		// the year before its mtime, and a copy is as new as the run
		return os.Chtimes(target, fixtureMtime, fixtureMtime)
	})
}

// fixtureMtime is the modification time copyTree gives the fixtures.
var fixtureMtime = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
