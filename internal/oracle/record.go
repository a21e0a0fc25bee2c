package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
)

// LockFile serialises the cases that put files in ParentDir itself.
const LockFile = "/tmp/mcpguard-oracle.lock"

// MaxParallel bounds the oracle processes Record runs at once, across all
// callers in this process.
var MaxParallel = 4

var (
	semOnce sync.Once
	sem     chan struct{}
)

func acquire() func() {
	semOnce.Do(func() { sem = make(chan struct{}, max(1, MaxParallel)) })
	sem <- struct{}{}
	return func() { <-sem }
}

// Record runs the real CLI through the oracle script: `mcp list`, then
// `mcp get NAME` for every name of c.ServerNames and every listed name.
// Every run gets a fresh copy of the case's trees, because the CLI rewrites
// ~/.claude.json. Runs go in parallel, except for a case with parent files:
// it holds LockFile exclusively, runs serially, and before every run places
// the parent files in ParentDir and afterwards empties ParentDir again (but
// for the oracle script's bin, home and project). Other cases hold LockFile
// shared, so that they never see another case's parent files. Record fails
// when ParentDir holds anything else when it starts.
func Record(ctx context.Context, script string, c *Case) (*Answers, error) {
	tmp, err := os.MkdirTemp("", "mcpguard-oracle-case-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	base := filepath.Join(tmp, "base")
	_, _, _, parent, err := c.Materialize(base)
	if err != nil {
		return nil, err
	}
	// Every case sees ParentDir, so a case that puts files there must run
	// alone: it takes LockFile exclusively, the others take it shared.
	parallel := parent == ""
	unlock, err := lockParent(ctx, parallel)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := checkParentClean(); err != nil {
		return nil, err
	}

	run := func(args ...string) (int, []byte, []byte, error) {
		dir, err := os.MkdirTemp(tmp, "run")
		if err != nil {
			return 0, nil, nil, err
		}
		defer os.RemoveAll(dir)
		for _, t := range []string{TreeManaged, TreeHome, TreeProject} {
			if err := copyTree(filepath.Join(base, t), filepath.Join(dir, t)); err != nil {
				return 0, nil, nil, err
			}
		}
		argv := []string{filepath.Join(dir, TreeManaged), filepath.Join(dir, TreeHome), filepath.Join(dir, TreeProject)}
		argv = append(argv, c.Env...)
		argv = append(argv, "--")
		argv = append(argv, args...)
		release := acquire()
		defer release()
		if parent != "" {
			// Place the parent files afresh for every run and remove
			// whatever is there afterwards: the CLI writes into the
			// project root too (it moves legacy approval keys into
			// <git root>/.claude/settings.local.json).
			err := placeParent(parent)
			defer cleanParent()
			if err != nil {
				return 0, nil, nil, err
			}
		}
		cmd := exec.CommandContext(ctx, script, argv...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			return 0, nil, nil, err
		}
		if code != 0 && code != 1 {
			return 0, nil, nil, fmt.Errorf("oracle %v: exit %d: %s", args, code, firstLine(stderr.Bytes()))
		}
		return code, stdout.Bytes(), stderr.Bytes(), nil
	}

	code, out, errOut, err := run("mcp", "list")
	if err != nil {
		return nil, err
	}
	a := newAnswers(code, out, errOut)
	names := c.ServerNames()
	for _, l := range a.Listed {
		if !slices.Contains(names, l.Name) {
			names = append(names, l.Name)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	gets := make([]Get, len(names))
	for i, n := range names {
		get := func() {
			code, out, errOut, err := run("mcp", "get", "--", n)
			gets[i], errs[i] = newGet(code, out, errOut), err
		}
		if parallel {
			wg.Go(get)
		} else {
			get()
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, n := range names {
		a.Gets[n] = gets[i]
	}
	return a, nil
}

// checkParentClean fails when ParentDir holds anything but the oracle
// script's own entries: files left there by another run would change the
// CLI's answers (a parent .mcp.json is read by every case).
func checkParentClean() error {
	entries, err := os.ReadDir(ParentDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if !oracleEntry(e.Name()) {
			return fmt.Errorf("%s holds %s, left over from another run; the answers would depend on it, so remove it first", ParentDir, e.Name())
		}
	}
	return nil
}

// placeParent copies the entries of the materialised parent tree into
// ParentDir, refusing to overwrite anything.
func placeParent(src string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		dst := filepath.Join(ParentDir, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s already exists (left over from another run?); remove it", dst)
		}
		if err := copyTree(filepath.Join(src, e.Name()), dst); err != nil {
			return err
		}
	}
	return nil
}

// cleanParent removes everything from ParentDir but the oracle script's own
// entries. Only a caller that holds LockFile exclusively may call it.
func cleanParent() {
	entries, _ := os.ReadDir(ParentDir)
	for _, e := range entries {
		if !oracleEntry(e.Name()) {
			os.RemoveAll(filepath.Join(ParentDir, e.Name()))
		}
	}
}

// oracleEntry reports whether name is one of the entries the oracle script
// keeps in ParentDir.
func oracleEntry(name string) bool {
	return name == "bin" || name == "home" || name == "project"
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
