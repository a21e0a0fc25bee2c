package unicode

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	stdunicode "unicode"
)

// unicodeDataDir returns the Unicode 17 data directory used by go generate
// (MCPGUARD_UNICODE_DATA overrides it), or skips the test: the build and
// CI never need the data, only these consistency checks do.
func unicodeDataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCPGUARD_UNICODE_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data", "unicode")
	}
	if _, err := os.Stat(filepath.Join(dir, "DerivedGeneralCategory.txt")); err != nil {
		t.Skipf("Unicode data not found in %s (set MCPGUARD_UNICODE_DATA)", dir)
	}
	return dir
}

// TestTablesUpToDate regenerates tables.go into a temporary directory and
// fails when the committed file differs: someone edited it by hand or
// changed the generator without running go generate.
func TestTablesUpToDate(t *testing.T) {
	dir := unicodeDataDir(t)
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := filepath.Join(t.TempDir(), "tables.go")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	cmd := exec.Command(gobin, "run", "./internal/gen/main.go", "-data", dir, "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("tables.go is stale: run go generate ./unicode")
	}
}

func TestVersion(t *testing.T) {
	if Version != "17.0.0" {
		t.Errorf("Version = %s", Version)
	}
	// The point of our own tables is to be newer than the standard
	// library's. When Go catches up, revisit what the package generates.
	if versionLess(Version, stdunicode.Version) {
		t.Errorf("tables (Unicode %s) are older than the standard library's (%s): regenerate them", Version, stdunicode.Version)
	}
}

func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// TestClassSpotChecks pins classes that the detection relies on, without
// the data files.
func TestClassSpotChecks(t *testing.T) {
	for r, want := range map[rune]class{
		'a': clsNone, ' ': clsNone, '\t': clsNone, '\n': clsNone, '\r': clsCR, 0x08: clsBS,
		0x1B: clsESC, 0x00: clsC0, 0x7F: clsC0, 0x80: clsC1, 0x85: clsLineSep, 0x9B: clsC1,
		0xA0: clsSpace, 0xAD: clsSoftHyphen, 0x34F: clsCGJ, 0x378: clsUnassigned,
		0x430: clsCyrGreek, 0x3B1: clsCyrGreek, 0x5D0: clsNone, 0x600: clsPCM, 0x61C: clsBidiMark,
		0x115F: clsHangulFiller, 0x17B4: clsKhmerVowel, 0x180B: clsFVS, 0x180E: clsMVS,
		0x200B: clsZWSP, 0x200C: clsZWNJ, 0x200D: clsZWJ, 0x200E: clsBidiMark, 0x2028: clsLineSep,
		0x202E: clsBidiControl, 0x2060: clsWordJoiner, 0x2062: clsInvisibleOp, 0x2065: clsIgnorable,
		0x2066: clsBidiControl, 0x206A: clsDeprecatedFormat, 0x2800: clsBrailleBlank, 0x3000: clsSpace,
		0x3164: clsHangulFiller, 0x4E00: clsNone, 0xD800: clsSurrogate, 0xE000: clsPUA,
		0xFB01: clsCompatLetter, 0xFDD0: clsNonchar, 0xFE00: clsVS, 0xFE64: clsCompatSyntax,
		0xFEFF: clsBOM, 0xFF1C: clsCompatSyntax, 0xFF21: clsCompatLetter, 0xFFA0: clsHangulFiller,
		0xFFF9: clsInterlinear, 0xFFFC: clsObjectRepl, 0xFFFD: clsNone, 0xFFFF: clsNonchar,
		0x10D50: clsNone, 0x13430: clsFormatScript, 0x1BCA0: clsFormatScript, 0x1D173: clsIgnorable,
		0x1D400: clsCompatLetter, 0x1F600: clsNone, 0x1FAE9: clsNone, 0xE0000: clsTagReserved,
		0xE0001: clsTag, 0xE0041: clsTag, 0xE007F: clsTag, 0xE0080: clsTagReserved,
		0xE0100: clsVSSupp, 0xE01F0: clsTagReserved, 0xF0000: clsPUA, 0x10FFFF: clsNonchar,
		-1: clsNone, 0x110000: clsNone,
	} {
		if got := classOf(r); got != want {
			t.Errorf("classOf(%U) = %d, want %d", r, got, want)
		}
	}
}

// ucdRanges reads the code point ranges of a UCD file whose first field
// equals value (or any value when value is "").
func ucdRanges(t *testing.T, dir, file, value string) func(func(rune) bool) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rs [][2]rune
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Split(line, ";")
		if len(fields) < 2 {
			continue
		}
		if value != "" && strings.TrimSpace(fields[1]) != value {
			continue
		}
		a, b, ok := strings.Cut(strings.TrimSpace(fields[0]), "..")
		lo, err := strconv.ParseUint(a, 16, 32)
		if err != nil {
			continue
		}
		hi := lo
		if ok {
			hi, _ = strconv.ParseUint(b, 16, 32)
		}
		rs = append(rs, [2]rune{rune(lo), rune(hi)})
	}
	return func(yield func(rune) bool) {
		for _, r := range rs {
			for c := r[0]; c <= r[1]; c++ {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// TestTablesAgainstData checks the generated classes against the data
// files for every code point.
func TestTablesAgainstData(t *testing.T) {
	dir := unicodeDataDir(t)
	di := map[rune]bool{}
	for r := range ucdRanges(t, dir, "DerivedCoreProperties.txt", "Default_Ignorable_Code_Point") {
		di[r] = true
	}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if isDefaultIgnorable(r) != di[r] {
			t.Errorf("isDefaultIgnorable(%U) = %v, data says %v", r, !di[r], di[r])
		}
	}
	for r := range ucdRanges(t, dir, "DerivedGeneralCategory.txt", "Cf") {
		if c := classOf(r); c == clsNone || c == clsUnassigned || c == clsSpace {
			t.Errorf("Cf %U has class %d", r, c)
		}
	}
	for r := range ucdRanges(t, dir, "DerivedGeneralCategory.txt", "Co") {
		if classOf(r) != clsPUA {
			t.Errorf("Co %U has class %d", r, classOf(r))
		}
	}
	for r := range ucdRanges(t, dir, "DerivedGeneralCategory.txt", "Cn") {
		switch classOf(r) {
		case clsUnassigned, clsNonchar, clsTagReserved, clsIgnorable:
		default:
			t.Errorf("Cn %U has class %d", r, classOf(r))
		}
	}
	for r := range ucdRanges(t, dir, "DerivedGeneralCategory.txt", "Zs") {
		if r != ' ' && classOf(r) != clsSpace {
			t.Errorf("Zs %U has class %d", r, classOf(r))
		}
	}
	for r := range ucdRanges(t, dir, "emoji-data.txt", "Extended_Pictographic") {
		if propsOf(r)&propExtPict == 0 {
			t.Errorf("%U: no propExtPict", r)
		}
	}
	for r := range ucdRanges(t, dir, "DerivedBidiClass.txt", "AL") {
		if propsOf(r)&propRTL == 0 {
			t.Errorf("%U: no propRTL", r)
		}
	}
}

// TestRGIEmojiSequencesClean embeds every RGI emoji sequence (UTS #51
// emoji-sequences.txt and emoji-zwj-sequences.txt) and every standardized
// and emoji variation sequence in text: none may produce a finding or be
// changed by Sanitize.
func TestRGIEmojiSequencesClean(t *testing.T) {
	dir := unicodeDataDir(t)
	n := 0
	for _, file := range []string{"emoji-sequences.txt", "emoji-zwj-sequences.txt", "emoji-variation-sequences.txt", "StandardizedVariants.txt"} {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, _, _ := strings.Cut(sc.Text(), "#")
			field, _, _ := strings.Cut(line, ";")
			cps := strings.Fields(field)
			if len(cps) < 2 || strings.Contains(field, "..") {
				continue
			}
			var seq strings.Builder
			for _, c := range cps {
				v, err := strconv.ParseUint(c, 16, 32)
				if err != nil {
					t.Fatalf("%s: %q", file, line)
				}
				seq.WriteRune(rune(v))
			}
			s := "see " + seq.String() + " here"
			if fs := ScanString(s); len(fs) != 0 {
				t.Errorf("%s %s: %+v", file, field, fs)
			}
			if got := Sanitize(s); got != s {
				t.Errorf("%s %s: Sanitize changed it to %+q", file, field, got)
			}
			n++
		}
		f.Close()
	}
	if n < 4000 {
		t.Errorf("only %d sequences checked", n)
	}
}
