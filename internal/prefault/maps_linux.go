package prefault

import "syscall"

// mapping is one line of /proc/self/maps.
type mapping struct {
	lo, hi uintptr
	perms  [4]byte
	dev    uint64 // major<<32 | minor
	inode  uint64
}

func (m mapping) sameFile(o mapping) bool {
	return m.inode != 0 && m.dev == o.dev && m.inode == o.inode
}

// eachMapping calls fn with each mapping of the process, in address order,
// until fn returns false.
func eachMapping(fn func(mapping) bool) {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer syscall.Close(fd)
	read := func(b []byte) (int, error) { return syscall.Read(fd, b) }
	eachLine(read, func(line []byte) bool {
		m, ok := parseMapping(line)
		return !ok || fn(m)
	})
}

// eachLine calls fn with each line that read returns, without its newline,
// until fn returns false. It reads through a buffer on the stack (the
// initialiser runs before the heap has much in it); a line longer than the
// buffer is skipped, and so is a last line without a newline (a file cut
// short).
func eachLine(read func([]byte) (int, error), fn func([]byte) bool) {
	var buf [4096]byte
	have, skipping := 0, false
	for {
		n, err := read(buf[have:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		have += n
		rest := buf[:have]
		for {
			line, after, ok := cut(rest, '\n')
			if !ok {
				break
			}
			rest = after
			if skipping {
				skipping = false
				continue
			}
			if !fn(line) {
				return
			}
		}
		have = copy(buf[:], rest)
		if have == len(buf) {
			have, skipping = 0, true
		}
	}
}

// parseMapping parses "lo-hi perms offset major:minor inode [path]".
func parseMapping(line []byte) (m mapping, ok bool) {
	var f [5][]byte
	for i := range f {
		for len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		f[i], line, _ = cut(line, ' ')
		if len(f[i]) == 0 {
			return m, false
		}
	}
	lo, hi, ok1 := cut(f[0], '-')
	major, minor, ok2 := cut(f[3], ':')
	if !ok1 || !ok2 || len(f[1]) != 4 {
		return m, false
	}
	var ok3, ok4, ok5, ok6, ok7 bool
	var lo64, hi64, maj, mnr uint64
	lo64, ok3 = parseUint(lo, 16)
	hi64, ok4 = parseUint(hi, 16)
	maj, ok5 = parseUint(major, 16)
	mnr, ok6 = parseUint(minor, 16)
	m.inode, ok7 = parseUint(f[4], 10)
	if !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || lo64 > hi64 || maj > 1<<32-1 || mnr > 1<<32-1 ||
		uint64(uintptr(hi64)) != hi64 { // an address this system cannot hold
		return mapping{}, false
	}
	m.lo, m.hi, m.dev = uintptr(lo64), uintptr(hi64), maj<<32|mnr
	copy(m.perms[:], f[1])
	return m, true
}

// parseUint parses a non-empty unsigned number in base 10 or 16 (lower
// case, as the kernel writes it) that fits in 64 bits. It and cut stand in
// for strconv and bytes, whose imports would initialise first: with bytes
// imported, the package initialises 27th instead of 19th, behind os and
// one of OPA's, and TestPrefaultInitialisesFirst fails.
func parseUint(b []byte, base uint64) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			return 0, false
		}
		if v > (1<<64-1-d)/base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// cut is bytes.Cut on one byte (parseUint says why it is written here).
func cut(b []byte, sep byte) (before, after []byte, found bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// readFile reads the start of a file into buf and returns how much it
// read; 0 when the file cannot be read.
func readFile(path string, buf []byte) int {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	have := 0
	for have < len(buf) {
		n, err := syscall.Read(fd, buf[have:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		have += n
	}
	return have
}
