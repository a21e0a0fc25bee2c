package prefault

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestWanted(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"mcpguard\x00scan\x00.mcp.json\x00", true},
		{"/usr/local/bin/mcpguard\x00version\x00", true},
		{"mcpguard\x00report\x00--fleet\x00", true},
		{"mcpguard\x00", true}, // help
		{"mcpguard\x00daemon\x00", false},
		{"mcpguard\x00proxy\x00--\x00server\x00", false},
		{"mcpguard\x00--opa-config\x00o.yaml\x00daemon\x00", false}, // unknown: a flag first
		{"mcpguard", false},                                         // cut short: no NUL after the program
		{"", false},                                                 // unreadable
		{"mcpguard\x00daemonic\x00", true},
	} {
		if got := wanted([]byte(tc.cmdline)); got != tc.want {
			t.Errorf("wanted(%q) = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
	if got := commandLine(); !strings.HasPrefix(string(got), os.Args[0]+"\x00") {
		t.Errorf("commandLine() = %q, want it to start with %q", got, os.Args[0])
	}
}

func TestParseMapping(t *testing.T) {
	for _, tc := range []struct {
		line string
		want mapping
		ok   bool
	}{
		{"00400000-0103a000 r-xp 00000000 fe:00 10152340                           /usr/bin/mcpguard",
			mapping{lo: 0x400000, hi: 0x103a000, perms: [4]byte{'r', '-', 'x', 'p'}, dev: 0xfe << 32, inode: 10152340}, true},
		{"0216e000-02302000 rw-p 01d6e000 103:02 77 /tmp/mcp guard (deleted)",
			mapping{lo: 0x216e000, hi: 0x2302000, perms: [4]byte{'r', 'w', '-', 'p'}, dev: 0x103<<32 | 2, inode: 77}, true},
		{"bffdf000-c0000000 rw-p 00000000 00:00 0                          [stack]",
			mapping{lo: 0xbffdf000, hi: 0xc0000000, perms: [4]byte{'r', 'w', '-', 'p'}}, true},
		{"02302000-0434c000 rw-p 00000000 00:00 0 ", mapping{lo: 0x2302000, hi: 0x434c000, perms: [4]byte{'r', 'w', '-', 'p'}}, true},
		{"", mapping{}, false},
		{"00400000 r-xp 00000000 fe:00 1", mapping{}, false},                   // no range
		{"00400000-0103a000 r-xp 00000000 fe:00", mapping{}, false},            // no inode
		{"00400000-0103a000 r-x 00000000 fe:00 1", mapping{}, false},           // perms
		{"0103a000-00400000 r-xp 00000000 fe:00 1", mapping{}, false},          // reversed
		{"00400000-0103a000 r-xp 00000000 fe00 1", mapping{}, false},           // device
		{"00400000-0103a000 r-xp 00000000 fe:00 12x", mapping{}, false},        // inode
		{"00400000-10000000000000000 r-xp 00000000 fe:00 1", mapping{}, false}, // overflow
		{"00400000-0103A000 r-xp 00000000 fe:00 1", mapping{}, false},          // the kernel writes lower case
		{"00400000-0103a000 r-xp 00000000 100000000:00 1", mapping{}, false},   // major above 32 bits
		{"   00400000-0103a000   r-xp 0 fe:00 5", mapping{lo: 0x400000, hi: 0x103a000, perms: [4]byte{'r', '-', 'x', 'p'}, dev: 0xfe << 32, inode: 5}, true},
	} {
		got, ok := parseMapping([]byte(tc.line))
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseMapping(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseMapping: any line parses or is refused without a panic, and
// what parses prints back to a line that parses the same.
func FuzzParseMapping(f *testing.F) {
	f.Add([]byte("00400000-0103a000 r-xp 00000000 fe:00 10152340 /usr/bin/mcpguard"))
	f.Add([]byte("7ffd1c3e2000-7ffd1c403000 rw-p 00000000 00:00 0 [stack]"))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := parseMapping(line)
		if !ok {
			return
		}
		if m.lo > m.hi {
			t.Fatalf("%q: lo %x above hi %x", line, m.lo, m.hi)
		}
		again := fmt.Sprintf("%x-%x %s 0 %x:%x %d", m.lo, m.hi, m.perms[:], m.dev>>32, m.dev&(1<<32-1), m.inode)
		if m2, ok := parseMapping([]byte(again)); !ok || m2 != m {
			t.Fatalf("%q parsed as %+v, printed as %q, parsed again as %+v, %v", line, m, again, m2, ok)
		}
	})
}

// TestEachLine: lines split across reads, a line longer than the buffer
// (skipped), a last line without a newline (dropped), and stopping early.
func TestEachLine(t *testing.T) {
	long := strings.Repeat("x", 10000)
	input := "a\nbb\n" + long + "\nccc\n" + strings.Repeat("y", 4095) + "\ndd"
	for _, chunk := range []int{1, 3, 4096, len(input)} {
		rest := input
		read := func(b []byte) (int, error) {
			n := copy(b, rest[:min(chunk, len(rest))])
			rest = rest[n:]
			return n, nil
		}
		var got []string
		eachLine(read, func(line []byte) bool {
			got = append(got, string(line))
			return true
		})
		want := []string{"a", "bb", "ccc", strings.Repeat("y", 4095)}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chunks of %d: got %d lines %.40q, want %.40q", chunk, len(got), got, want)
		}
	}
	n := 0
	eachLine(func(b []byte) (int, error) { return copy(b, "1\n2\n3\n"), nil }, func([]byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn returned false on line 2, but was called %d times", n)
	}
}

// TestBinary: after Binary, every page of the executable's code that the
// page cache holds is mapped into the process, and every page of its
// initialised data has the process's own copy. The code's page table
// entries are dropped first (MADV_DONTNEED: it re-faults from the page
// cache), so that the test starts from a process that has not run most of
// its code.
func TestBinary(t *testing.T) {
	if advise(heapAddr()&^(uintptr(unix.Getpagesize())-1), uintptr(unix.Getpagesize()), madvPopulateWrite) != nil {
		t.Skip("the kernel does not populate on advice (Linux 5.14)")
	}
	text, data, ok := segments(textAddr())
	if !ok || text.lo > textAddr() || textAddr() >= text.hi || data.hi <= data.lo || data.lo < text.hi {
		t.Fatalf("segments: code %x, data %x, %v: want the code around %x and the data above it", text, data, ok, textAddr())
	}
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, text.lo, text.hi-text.lo, unix.MADV_DONTNEED); errno != 0 {
		t.Fatalf("madvise(DONTNEED) on the code: %v", errno)
	}
	codeBefore, _ := pageFlags(t, text)
	_, dataBefore := pageFlags(t, data)
	cachedCode, cachedData := cachedPages(t, text), cachedPages(t, data)
	pages := Binary()
	codeAfter, _ := pageFlags(t, text)
	_, dataAfter := pageFlags(t, data)
	t.Logf("%d pages populated; code: %d of %d cached pages mapped before, %d after; data: %d of %d cached pages copied before, %d after",
		pages, codeBefore, cachedCode, codeAfter, dataBefore, cachedData, dataAfter)
	if codeBefore >= cachedCode {
		t.Skipf("all %d cached pages of code were still mapped after MADV_DONTNEED: nothing to measure", cachedCode)
	}
	if codeAfter < cachedCode*99/100 {
		t.Errorf("after Binary, %d of the code's %d cached pages are mapped (%d before)", codeAfter, cachedCode, codeBefore)
	}
	if dataBefore < cachedData && dataAfter < cachedData*99/100 {
		t.Errorf("after Binary, %d of the data's %d cached pages are the process's own (%d before)", dataAfter, cachedData, dataBefore)
	}
}

// pageFlags reads /proc/self/pagemap for s: how many of its pages are
// mapped, and how many of those are the process's own (anonymous, not the
// file's page: a private copy once written).
func pageFlags(t *testing.T, s span) (present, own int) {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer f.Close()
	page := uintptr(unix.Getpagesize())
	buf := make([]byte, (s.hi-s.lo)/page*8)
	if _, err := f.ReadAt(buf, int64(s.lo/page*8)); err != nil {
		t.Fatalf("read pagemap: %v", err)
	}
	for i := 0; i < len(buf); i += 8 {
		e := binary.LittleEndian.Uint64(buf[i:])
		if e&(1<<63) != 0 {
			present++
			if e&(1<<61) == 0 {
				own++
			}
		}
	}
	return present, own
}

// cachedPages counts the pages of s in memory (mincore: for a file's
// mapping, in the page cache).
func cachedPages(t *testing.T, s span) int {
	t.Helper()
	page := uintptr(unix.Getpagesize())
	from, to := s.lo&^(page-1), (s.hi+page-1)&^(page-1)
	vec := make([]byte, (to-from)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, from, to-from, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestPopulateMapped: the initialiser's heap goroutine populates up to the
// first range that is not mapped for writing, and nothing past it.
func TestPopulateMapped(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory faults as memory is written")
	}
	mem, err := syscall.Mmap(-1, 0, 8*step, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	base := (uintptr(unsafe.Pointer(&mem[0])) + step - 1) &^ (step - 1)
	off := base - uintptr(unsafe.Pointer(&mem[0]))
	// Three steps mapped, one without access, then mapped again.
	if err := syscall.Mprotect(mem[off+3*step:off+4*step], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if advise(base, step, madvPopulateWrite) != nil {
		t.Skip("the kernel does not populate on advice (Linux 5.14)")
	}
	populateMapped(base)
	if got := resident(t, mem[off:off+3*step]); got != 3*step/unix.Getpagesize() {
		t.Errorf("%d pages of the mapped range are resident, want all %d", got, 3*step/unix.Getpagesize())
	}
	if got := resident(t, mem[off+4*step:off+6*step]); got != 0 {
		t.Errorf("%d pages past the range without access are resident, want none", got)
	}
	runtime.KeepAlive(mem)
}

// TestFaultCost: the measurement the initialiser and Start decide on maps
// its pages and times their first touch (zero would mean it could not).
func TestFaultCost(t *testing.T) {
	d := faultCost()
	t.Logf("a first touch of a fresh page costs %v here (populating ahead from %v): %v", d, slowFault, slowFaults())
	if d <= 0 {
		t.Fatalf("faultCost() = %v", d)
	}
}
