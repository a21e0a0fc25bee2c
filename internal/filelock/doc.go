// Package filelock takes advisory locks on open files: flock(2) where it
// exists, fcntl(2) on AIX, LockFileEx on Windows. The pin store serializes
// proxies with it and the daemon refuses a second instance on one state
// directory.
package filelock
