package wrap

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// tracked says whether git tracks the file at path (symlinks resolved):
// the repository's root and true when it does, or when the file is in a
// repository and git cannot be asked (missing), which wrap treats alike —
// a wrapper written into a committed file would carry this machine's paths
// to every clone.
func tracked(path string) (repo string, yes bool, why string) {
	repo = repositoryOf(filepath.Dir(path))
	if repo == "" {
		return "", false, ""
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return repo, true, "it is in the git repository " + repo + " and git is not installed to tell whether it is tracked"
	}
	rel, err := filepath.Rel(repo, path)
	if err != nil {
		return repo, true, "it is in the git repository " + repo
	}
	cmd := exec.Command(git, "-C", repo, "ls-files", "--error-unmatch", "--", rel)
	cmd.Stdout, cmd.Stderr = nil, nil
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return repo, true, "git tracks it in " + repo
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return repo, false, "" // not tracked
	}
	return repo, true, "it is in the git repository " + repo + " and git could not tell whether it is tracked"
}

// repositoryOf is the nearest directory at or above dir with a .git entry
// (a directory, or the file of a worktree or submodule), or "".
func repositoryOf(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
