package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// watchPlan is what to watch for one scan: the directories, and how to
// tell a relevant event from noise in them.
type watchPlan struct {
	// dirs are the existing directories to watch, each with what Stat said
	// when the plan was made: which directory (inode) is meant.
	dirs map[string]os.FileInfo
	// files are the paths the scan read or stat'ed (and the real paths of
	// symlinks among them); listed are the directories it listed.
	files, listed map[string]bool
	// ancestors are the directories on the way to a path that does not
	// exist yet: their creation brings the path closer.
	ancestors map[string]bool
	// above holds every directory above a file: replacing one (mv dir
	// aside; mv new dir in) replaces the files the scan reads. A set, not a
	// walk over files per event, because a watched directory such as /tmp
	// or a home can see thousands of unrelated events a second.
	above map[string]bool
}

// planWatches turns the paths a scan asked about (true: listed as a
// directory) into the directories to watch. A file is watched through its
// directory, so that an editor's atomic replace (write a temporary file,
// rename it over) is seen; a path that does not exist yet is watched
// through its nearest existing ancestor; a symlink also through the
// directory of its target.
func planWatches(asked map[string]bool, extra []string) *watchPlan {
	p := &watchPlan{dirs: map[string]os.FileInfo{}, files: map[string]bool{}, listed: map[string]bool{}, ancestors: map[string]bool{}, above: map[string]bool{}}
	add := func(path string, listed bool) {
		path = filepath.Clean(path)
		if listed {
			p.listed[path] = true
			p.watchDir(path)
			return
		}
		p.files[path] = true
		p.watchDir(filepath.Dir(path))
		// Only a symlinked file needs its target's directory watched: a
		// symlinked parent is followed by the watch on Dir(path) itself.
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return
		}
		if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
			p.files[real] = true
			p.watchDir(filepath.Dir(real))
		}
	}
	for path, listed := range asked {
		add(path, listed)
	}
	for _, path := range extra {
		add(path, false)
	}
	for f := range p.files {
		for dir := filepath.Dir(f); !p.above[dir]; dir = filepath.Dir(dir) {
			p.above[dir] = true
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return p
}

// watchDir watches dir, or its nearest existing ancestor when it does not
// exist, remembering the missing directories on the way.
func (p *watchPlan) watchDir(dir string) {
	for {
		if p.dirs[dir] != nil {
			return // already planned, with its ancestors
		}
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			p.dirs[dir] = fi
			return
		}
		p.ancestors[dir] = true
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
}

// relevant reports whether an event on path can change what the scan
// reads, and whether it is about a directory whose whole contents are
// affected (removed, renamed or created).
func (p *watchPlan) relevant(path string) bool {
	path = filepath.Clean(path)
	if p.files[path] || p.listed[path] || p.ancestors[path] {
		return true
	}
	return p.listed[filepath.Dir(path)] || p.above[path]
}

// watchSet keeps an fsnotify watcher's directories equal to a plan.
type watchSet struct {
	w *fsnotify.Watcher
	// current maps each watched path to the directory the watch is on. A
	// watch belongs to a directory, not a path: when a watched directory is
	// removed and created again, or renamed away and another moved in, the
	// path is the same but the watch is gone or elsewhere. observe forgets
	// such watches as their events arrive, apply checks the watcher's own
	// list and the inode (a recreated directory may reuse it, so the inode
	// alone cannot tell).
	current map[string]os.FileInfo
	// limited is set when the OS refused a watch for its watch limit
	// (inotify's max_user_watches): the daemon then resyncs by polling.
	limited bool
	// failed holds directories that could not be watched, with why.
	failed map[string]string
}

func newWatchSet(w *fsnotify.Watcher) *watchSet {
	return &watchSet{w: w, current: map[string]os.FileInfo{}, failed: map[string]string{}}
}

// apply adds the plan's new directories and drops the ones it no longer
// needs; it returns how many it added.
func (s *watchSet) apply(p *watchPlan) (added int) {
	s.failed = map[string]string{}
	s.limited = false
	live := map[string]bool{}
	for _, d := range s.w.WatchList() {
		live[filepath.Clean(d)] = true
	}
	for dir, watched := range s.current {
		if fi := p.dirs[dir]; fi == nil || !live[dir] || !os.SameFile(fi, watched) {
			_ = s.w.Remove(dir) // fails for a directory that is gone: fine
			delete(s.current, dir)
		}
	}
	dirs := make([]string, 0, len(p.dirs))
	for d := range p.dirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if s.current[d] != nil {
			continue
		}
		if err := s.w.Add(d); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				s.limited = true
			}
			s.failed[d] = err.Error()
			continue
		}
		// The plan's Stat came before Add: if the directory was replaced
		// in between, the inode recorded is the old one and the next apply
		// watches again, never the other way round.
		s.current[d] = p.dirs[d]
		added++
	}
	return added
}

// observe forgets the watch on a directory that an event says was removed
// or renamed away: the OS dropped the watch (or it follows the directory
// elsewhere), so the next apply must watch whatever is at that path now.
func (s *watchSet) observe(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return
	}
	name := filepath.Clean(ev.Name)
	if s.current[name] != nil {
		_ = s.w.Remove(name)
		delete(s.current, name)
	}
}

// readd re-adds every directory: after a resync, in case a watch was lost
// with its directory.
func (s *watchSet) readd(p *watchPlan) {
	for d := range s.current {
		_ = s.w.Remove(d)
	}
	s.current = map[string]os.FileInfo{}
	s.apply(p)
}
