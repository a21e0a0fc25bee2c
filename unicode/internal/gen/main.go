//go:build ignore

// Command gen reads the Unicode Character Database, UTS #39 and UTS #51 data
// files (Unicode 17.0.0) and writes the compact Go tables of package unicode
// (tables.go).
//
// It runs only through go generate; the build and the tests never need the
// data directory. The output is deterministic and gofmt'd, so a test can
// regenerate it and compare bytes (TestTablesUpToDate).
//
// Usage:
//
//	go run ./internal/gen/main.go -data DIR -o tables.go
//
// The ignore constraint keeps it out of the module's ./... (the pre-commit
// hook runs go install ./..., which must install mcpguard alone); go run
// of the file builds it all the same.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

const (
	maxRune = 0x10FFFF
	numCP   = maxRune + 1
	// wantVersion is the Unicode version the data directory must hold. The
	// generator refuses mixed versions so the embedded Version never lies.
	wantVersion = "17.0.0"
)

func main() {
	dataDir := flag.String("data", "../../shared/data/unicode", "directory with the Unicode data files")
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()

	src, err := generate(*dataDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Class values, in priority order: when a code point has several of the
// properties below, the first match wins. The names are written into
// tables.go as constants of type class.
var classNames = []string{
	"clsNone",
	"clsSurrogate",        // D800..DFFF (only reachable through JSON \u escapes)
	"clsNonchar",          // Noncharacter_Code_Point
	"clsTag",              // E0001, E0020..E007F
	"clsTagReserved",      // unassigned default-ignorables of plane 14
	"clsVS",               // FE00..FE0F
	"clsVSSupp",           // E0100..E01EF
	"clsFVS",              // Mongolian free variation selectors
	"clsBidiControl",      // embeddings, overrides, isolates
	"clsBidiMark",         // LRM, RLM, ALM
	"clsZWSP",             // U+200B
	"clsZWNJ",             // U+200C
	"clsZWJ",              // U+200D
	"clsWordJoiner",       // U+2060
	"clsBOM",              // U+FEFF
	"clsMVS",              // U+180E
	"clsInvisibleOp",      // U+2061..2064
	"clsSoftHyphen",       // U+00AD
	"clsCGJ",              // U+034F
	"clsHangulFiller",     // U+115F, 1160, 3164, FFA0
	"clsKhmerVowel",       // U+17B4, 17B5
	"clsDeprecatedFormat", // U+206A..206F
	"clsFormatScript",     // format controls legitimate inside one script (Egyptian, Duployan)
	"clsPCM",              // Prepended_Concatenation_Mark
	"clsIgnorable",        // any other Default_Ignorable_Code_Point or Cf
	"clsBrailleBlank",     // U+2800
	"clsObjectRepl",       // U+FFFC
	"clsInterlinear",      // U+FFF9..FFFB
	"clsLineSep",          // U+0085, 2028, 2029
	"clsCR",               // U+000D
	"clsBS",               // U+0008
	"clsESC",              // U+001B
	"clsC0",               // other C0 controls (not TAB, LF) and DEL
	"clsC1",               // C1 controls other than NEL
	"clsPUA",              // Co
	"clsUnassigned",       // Cn (Unicode 17), not otherwise classified
	"clsSpace",            // Zs other than U+0020
	"clsCompatSyntax",     // NFKC maps it to ASCII containing <>/\[]{}
	"clsCompatLetter",     // NFKC maps it to ASCII containing a letter
	"clsCyrGreek",         // a Cyrillic or Greek letter (mixed-script candidate)
}

// Property bits of propTable.
var propNames = []string{
	"propRTL",           // Bidi_Class R or AL
	"propExtPict",       // Extended_Pictographic
	"propEmoji",         // Emoji
	"propEmojiModifier", // Emoji_Modifier
	"propRegionalIndicator",
	"propUnifiedIdeograph",
	"propLetter",    // Lu Ll Lt Lo
	"propModLetter", // Lm
	"propMark",      // Mn Mc Me
	"propDigit",     // Nd
	"propNumber",    // Nl No
	"propAllowedID", // TR39 Identifier_Status Allowed
}

func classIndex(name string) uint8 {
	i := slices.Index(classNames, name)
	if i < 0 {
		panic("unknown class " + name)
	}
	return uint8(i)
}

func propBit(name string) uint16 {
	i := slices.Index(propNames, name)
	if i < 0 {
		panic("unknown property " + name)
	}
	return 1 << i
}

// ucdLine is one data line: the code point field(s) and the remaining
// semicolon-separated fields, comments stripped.
type ucdLine struct {
	lo, hi rune
	fields []string
}

// readUCD parses a UCD-style file. Lines whose first field is a sequence of
// code points (emoji sequences) are returned with lo = -1 and the sequence
// in fields[0]; callers that need sequences use readSeq instead.
func readUCD(dir, name string) ([]ucdLine, string, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	var lines []ucdLine
	var header []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if len(header) < 12 {
				header = append(header, line)
			}
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, ";")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		cp := parts[0]
		if strings.Contains(cp, " ") {
			lines = append(lines, ucdLine{lo: -1, hi: -1, fields: parts})
			continue
		}
		lo, hi, err := parseRange(cp)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		lines = append(lines, ucdLine{lo: lo, hi: hi, fields: parts[1:]})
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return lines, strings.Join(header, "\n"), nil
}

func parseRange(s string) (rune, rune, error) {
	a, b, ok := strings.Cut(s, "..")
	lo, err := strconv.ParseUint(a, 16, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("bad code point %q", s)
	}
	hi := lo
	if ok {
		if hi, err = strconv.ParseUint(b, 16, 32); err != nil {
			return 0, 0, fmt.Errorf("bad code point %q", s)
		}
	}
	if hi < lo || hi > maxRune {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	return rune(lo), rune(hi), nil
}

func parseSeq(s string) ([]rune, error) {
	var out []rune
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseUint(f, 16, 32)
		if err != nil || v > maxRune {
			return nil, fmt.Errorf("bad code point %q", f)
		}
		out = append(out, rune(v))
	}
	return out, nil
}

// checkVersion makes sure a file header names the expected version, either
// in the file name line ("# Foo-17.0.0.txt") or in a "# Version:" line.
func checkVersion(name, header string) error {
	for _, l := range strings.Split(header, "\n") {
		if strings.Contains(l, "-"+wantVersion+".txt") {
			return nil
		}
		if v, ok := strings.CutPrefix(l, "# Version: "); ok {
			v = strings.TrimSpace(v)
			if v == wantVersion || v+".0" == wantVersion {
				return nil
			}
			return fmt.Errorf("%s: version %s, want %s", name, v, wantVersion)
		}
	}
	return fmt.Errorf("%s: no version %s in header", name, wantVersion)
}

type data struct {
	gc       []string // general category per code point
	di       []bool   // Default_Ignorable_Code_Point
	nonchar  []bool
	pcm      []bool
	props    []uint16
	script   []uint8 // index into scripts
	scx      []string
	scripts  []scriptName
	variants []uint64 // base<<32 | selector
	confKeys []uint32
	confVals []string
	tagFlags []string
	classes  []uint8
}

type scriptName struct{ long, code string }

func generate(dir string) ([]byte, error) {
	d := &data{
		gc:      make([]string, numCP),
		di:      make([]bool, numCP),
		nonchar: make([]bool, numCP),
		pcm:     make([]bool, numCP),
		props:   make([]uint16, numCP),
		script:  make([]uint8, numCP),
		scx:     make([]string, numCP),
	}
	steps := []func(string) error{
		d.loadGC, d.loadProps, d.loadBidi, d.loadEmoji, d.loadScripts,
		d.loadVariants, d.loadConfusables, d.loadIdentifierStatus, d.loadTagFlags,
	}
	for _, step := range steps {
		if err := step(dir); err != nil {
			return nil, err
		}
	}
	if err := d.classify(); err != nil {
		return nil, err
	}
	return d.write()
}

func (d *data) loadGC(dir string) error {
	lines, hdr, err := readUCD(dir, "DerivedGeneralCategory.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("DerivedGeneralCategory.txt", hdr); err != nil {
		return err
	}
	for i := range d.gc {
		d.gc[i] = "Cn"
	}
	for _, l := range lines {
		for r := l.lo; r <= l.hi; r++ {
			d.gc[r] = l.fields[0]
		}
	}
	letter, mod, mark, digit, num := propBit("propLetter"), propBit("propModLetter"), propBit("propMark"), propBit("propDigit"), propBit("propNumber")
	for r, g := range d.gc {
		switch g {
		case "Lu", "Ll", "Lt", "Lo":
			d.props[r] |= letter
		case "Lm":
			d.props[r] |= mod
		case "Mn", "Mc", "Me":
			d.props[r] |= mark
		case "Nd":
			d.props[r] |= digit
		case "Nl", "No":
			d.props[r] |= num
		}
	}
	return nil
}

func (d *data) loadProps(dir string) error {
	lines, hdr, err := readUCD(dir, "DerivedCoreProperties.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("DerivedCoreProperties.txt", hdr); err != nil {
		return err
	}
	for _, l := range lines {
		if l.fields[0] == "Default_Ignorable_Code_Point" {
			for r := l.lo; r <= l.hi; r++ {
				d.di[r] = true
			}
		}
	}
	lines, hdr, err = readUCD(dir, "PropList.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("PropList.txt", hdr); err != nil {
		return err
	}
	uni := propBit("propUnifiedIdeograph")
	for _, l := range lines {
		for r := l.lo; r <= l.hi; r++ {
			switch l.fields[0] {
			case "Noncharacter_Code_Point":
				d.nonchar[r] = true
			case "Prepended_Concatenation_Mark":
				d.pcm[r] = true
			case "Unified_Ideograph":
				d.props[r] |= uni
			}
		}
	}
	return nil
}

func (d *data) loadBidi(dir string) error {
	lines, hdr, err := readUCD(dir, "DerivedBidiClass.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("DerivedBidiClass.txt", hdr); err != nil {
		return err
	}
	rtl := propBit("propRTL")
	for _, l := range lines {
		if l.fields[0] == "R" || l.fields[0] == "AL" {
			for r := l.lo; r <= l.hi; r++ {
				d.props[r] |= rtl
			}
		}
	}
	return nil
}

func (d *data) loadEmoji(dir string) error {
	lines, hdr, err := readUCD(dir, "emoji-data.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("emoji-data.txt", hdr); err != nil {
		return err
	}
	bits := map[string]uint16{
		"Extended_Pictographic": propBit("propExtPict"),
		"Emoji":                 propBit("propEmoji"),
		"Emoji_Modifier":        propBit("propEmojiModifier"),
	}
	for _, l := range lines {
		if b, ok := bits[l.fields[0]]; ok {
			for r := l.lo; r <= l.hi; r++ {
				d.props[r] |= b
			}
		}
	}
	ri := propBit("propRegionalIndicator")
	for r := 0x1F1E6; r <= 0x1F1FF; r++ {
		d.props[r] |= ri
	}
	return nil
}

// scriptCodes maps the Scripts.txt long names to ISO 15924 codes (the
// values ScriptExtensions.txt uses). The data set has no
// PropertyValueAliases.txt, so the mapping is spelled out here; the
// generator fails if a name or code is missing.
var scriptCodes = map[string]string{
	"Adlam": "Adlm", "Ahom": "Ahom", "Anatolian_Hieroglyphs": "Hluw", "Arabic": "Arab",
	"Armenian": "Armn", "Avestan": "Avst", "Balinese": "Bali", "Bamum": "Bamu",
	"Bassa_Vah": "Bass", "Batak": "Batk", "Bengali": "Beng", "Beria_Erfe": "Berf",
	"Bhaiksuki": "Bhks", "Bopomofo": "Bopo", "Brahmi": "Brah", "Braille": "Brai",
	"Buginese": "Bugi", "Buhid": "Buhd", "Canadian_Aboriginal": "Cans", "Carian": "Cari",
	"Caucasian_Albanian": "Aghb", "Chakma": "Cakm", "Cham": "Cham", "Cherokee": "Cher",
	"Chorasmian": "Chrs", "Common": "Zyyy", "Coptic": "Copt", "Cuneiform": "Xsux",
	"Cypriot": "Cprt", "Cypro_Minoan": "Cpmn", "Cyrillic": "Cyrl", "Deseret": "Dsrt",
	"Devanagari": "Deva", "Dives_Akuru": "Diak", "Dogra": "Dogr", "Duployan": "Dupl",
	"Egyptian_Hieroglyphs": "Egyp", "Elbasan": "Elba", "Elymaic": "Elym", "Ethiopic": "Ethi",
	"Garay": "Gara", "Georgian": "Geor", "Glagolitic": "Glag", "Gothic": "Goth",
	"Grantha": "Gran", "Greek": "Grek", "Gujarati": "Gujr", "Gunjala_Gondi": "Gong",
	"Gurmukhi": "Guru", "Gurung_Khema": "Gukh", "Han": "Hani", "Hangul": "Hang",
	"Hanifi_Rohingya": "Rohg", "Hanunoo": "Hano", "Hatran": "Hatr", "Hebrew": "Hebr",
	"Hiragana": "Hira", "Imperial_Aramaic": "Armi", "Inherited": "Zinh",
	"Inscriptional_Pahlavi": "Phli", "Inscriptional_Parthian": "Prti", "Javanese": "Java",
	"Kaithi": "Kthi", "Kannada": "Knda", "Katakana": "Kana", "Kawi": "Kawi",
	"Kayah_Li": "Kali", "Kharoshthi": "Khar", "Khitan_Small_Script": "Kits", "Khmer": "Khmr",
	"Khojki": "Khoj", "Khudawadi": "Sind", "Kirat_Rai": "Krai", "Lao": "Laoo",
	"Latin": "Latn", "Lepcha": "Lepc", "Limbu": "Limb", "Linear_A": "Lina",
	"Linear_B": "Linb", "Lisu": "Lisu", "Lycian": "Lyci", "Lydian": "Lydi",
	"Mahajani": "Mahj", "Makasar": "Maka", "Malayalam": "Mlym", "Mandaic": "Mand",
	"Manichaean": "Mani", "Marchen": "Marc", "Masaram_Gondi": "Gonm", "Medefaidrin": "Medf",
	"Meetei_Mayek": "Mtei", "Mende_Kikakui": "Mend", "Meroitic_Cursive": "Merc",
	"Meroitic_Hieroglyphs": "Mero", "Miao": "Plrd", "Modi": "Modi", "Mongolian": "Mong",
	"Mro": "Mroo", "Multani": "Mult", "Myanmar": "Mymr", "Nabataean": "Nbat",
	"Nag_Mundari": "Nagm", "Nandinagari": "Nand", "New_Tai_Lue": "Talu", "Newa": "Newa",
	"Nko": "Nkoo", "Nushu": "Nshu", "Nyiakeng_Puachue_Hmong": "Hmnp", "Ogham": "Ogam",
	"Ol_Chiki": "Olck", "Ol_Onal": "Onao", "Old_Hungarian": "Hung", "Old_Italic": "Ital",
	"Old_North_Arabian": "Narb", "Old_Permic": "Perm", "Old_Persian": "Xpeo",
	"Old_Sogdian": "Sogo", "Old_South_Arabian": "Sarb", "Old_Turkic": "Orkh",
	"Old_Uyghur": "Ougr", "Oriya": "Orya", "Osage": "Osge", "Osmanya": "Osma",
	"Pahawh_Hmong": "Hmng", "Palmyrene": "Palm", "Pau_Cin_Hau": "Pauc", "Phags_Pa": "Phag",
	"Phoenician": "Phnx", "Psalter_Pahlavi": "Phlp", "Rejang": "Rjng", "Runic": "Runr",
	"Samaritan": "Samr", "Saurashtra": "Saur", "Sharada": "Shrd", "Shavian": "Shaw",
	"Siddham": "Sidd", "Sidetic": "Sidt", "SignWriting": "Sgnw", "Sinhala": "Sinh",
	"Sogdian": "Sogd", "Sora_Sompeng": "Sora", "Soyombo": "Soyo", "Sundanese": "Sund",
	"Sunuwar": "Sunu", "Syloti_Nagri": "Sylo", "Syriac": "Syrc", "Tagalog": "Tglg",
	"Tagbanwa": "Tagb", "Tai_Le": "Tale", "Tai_Tham": "Lana", "Tai_Viet": "Tavt",
	"Tai_Yo": "Tayo", "Takri": "Takr", "Tamil": "Taml", "Tangsa": "Tnsa", "Tangut": "Tang",
	"Telugu": "Telu", "Thaana": "Thaa", "Thai": "Thai", "Tibetan": "Tibt",
	"Tifinagh": "Tfng", "Tirhuta": "Tirh", "Todhri": "Todr", "Tolong_Siki": "Tols",
	"Toto": "Toto", "Tulu_Tigalari": "Tutg", "Ugaritic": "Ugar", "Vai": "Vaii",
	"Vithkuqi": "Vith", "Wancho": "Wcho", "Warang_Citi": "Wara", "Yezidi": "Yezi",
	"Yi": "Yiii", "Zanabazar_Square": "Zanb",
}

func (d *data) loadScripts(dir string) error {
	lines, hdr, err := readUCD(dir, "Scripts.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("Scripts.txt", hdr); err != nil {
		return err
	}
	// Index 0 is Unknown (Zzzz), then Common, Inherited, Latin, Greek,
	// Cyrillic at fixed positions the package relies on, then the rest sorted.
	fixed := []string{"Unknown", "Common", "Inherited", "Latin", "Greek", "Cyrillic"}
	seen := map[string]bool{}
	var rest []string
	for _, l := range lines {
		n := l.fields[0]
		if !seen[n] {
			seen[n] = true
			if !slices.Contains(fixed, n) {
				rest = append(rest, n)
			}
		}
	}
	sort.Strings(rest)
	names := append(slices.Clone(fixed), rest...)
	if len(names) > 255 {
		return errors.New("too many scripts for uint8")
	}
	index := map[string]uint8{}
	byCode := map[string]uint8{}
	for i, n := range names {
		code := scriptCodes[n]
		if n == "Unknown" {
			code = "Zzzz"
		}
		if code == "" {
			return fmt.Errorf("no ISO 15924 code for script %s of Scripts.txt", n)
		}
		d.scripts = append(d.scripts, scriptName{n, code})
		index[n] = uint8(i)
		byCode[code] = uint8(i)
	}
	for _, l := range lines {
		for r := l.lo; r <= l.hi; r++ {
			d.script[r] = index[l.fields[0]]
		}
	}
	lines, hdr, err = readUCD(dir, "ScriptExtensions.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("ScriptExtensions.txt", hdr); err != nil {
		return err
	}
	for _, l := range lines {
		var set []byte
		for _, c := range strings.Fields(l.fields[0]) {
			i, ok := byCode[c]
			if !ok {
				return fmt.Errorf("ScriptExtensions.txt: unknown script code %s", c)
			}
			set = append(set, i)
		}
		slices.Sort(set)
		for r := l.lo; r <= l.hi; r++ {
			d.scx[r] = string(set)
		}
	}
	return nil
}

func (d *data) loadVariants(dir string) error {
	add := func(name string) error {
		lines, hdr, err := readUCD(dir, name)
		if err != nil {
			return err
		}
		if err := checkVersion(name, hdr); err != nil && name == "StandardizedVariants.txt" {
			return err
		}
		for _, l := range lines {
			if l.lo >= 0 {
				continue
			}
			seq, err := parseSeq(l.fields[0])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if len(seq) != 2 {
				return fmt.Errorf("%s: variation sequence of length %d", name, len(seq))
			}
			d.variants = append(d.variants, uint64(seq[0])<<32|uint64(seq[1]))
		}
		return nil
	}
	if err := add("StandardizedVariants.txt"); err != nil {
		return err
	}
	if err := add("emoji-variation-sequences.txt"); err != nil {
		return err
	}
	slices.Sort(d.variants)
	d.variants = slices.Compact(d.variants)
	return nil
}

func (d *data) loadConfusables(dir string) error {
	lines, hdr, err := readUCD(dir, "confusables.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("confusables.txt", hdr); err != nil {
		return err
	}
	type kv struct {
		k uint32
		v string
	}
	var m []kv
	for _, l := range lines {
		if l.lo < 0 || l.lo != l.hi || len(l.fields) < 2 || l.fields[1] != "MA" {
			return fmt.Errorf("confusables.txt: unexpected line %v", l)
		}
		seq, err := parseSeq(l.fields[0])
		if err != nil {
			return fmt.Errorf("confusables.txt: %w", err)
		}
		m = append(m, kv{uint32(l.lo), string(seq)})
	}
	sort.Slice(m, func(i, j int) bool { return m[i].k < m[j].k })
	for i, e := range m {
		if i > 0 && m[i-1].k == e.k {
			return fmt.Errorf("confusables.txt: duplicate source %04X", e.k)
		}
		d.confKeys = append(d.confKeys, e.k)
		d.confVals = append(d.confVals, e.v)
	}
	return nil
}

func (d *data) loadIdentifierStatus(dir string) error {
	lines, hdr, err := readUCD(dir, "IdentifierStatus.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("IdentifierStatus.txt", hdr); err != nil {
		return err
	}
	bit := propBit("propAllowedID")
	for _, l := range lines {
		if l.fields[0] == "Allowed" {
			for r := l.lo; r <= l.hi; r++ {
				d.props[r] |= bit
			}
		}
	}
	return nil
}

// loadTagFlags reads the exact RGI emoji tag sequences (England, Scotland,
// Wales): the only legitimate use of tag characters.
func (d *data) loadTagFlags(dir string) error {
	lines, hdr, err := readUCD(dir, "emoji-sequences.txt")
	if err != nil {
		return err
	}
	if err := checkVersion("emoji-sequences.txt", hdr); err != nil {
		return err
	}
	for _, l := range lines {
		if l.lo >= 0 || len(l.fields) < 2 || l.fields[1] != "RGI_Emoji_Tag_Sequence" {
			continue
		}
		seq, err := parseSeq(l.fields[0])
		if err != nil {
			return err
		}
		if len(seq) < 3 || seq[0] != 0x1F3F4 || seq[len(seq)-1] != 0xE007F {
			return fmt.Errorf("emoji-sequences.txt: unexpected tag sequence %X", seq)
		}
		var b strings.Builder
		for _, r := range seq[1 : len(seq)-1] {
			if r < 0xE0020 || r > 0xE007E {
				return fmt.Errorf("emoji-sequences.txt: unexpected tag %X", r)
			}
			b.WriteRune(r - 0xE0000)
		}
		d.tagFlags = append(d.tagFlags, b.String())
	}
	if len(d.tagFlags) == 0 {
		return errors.New("emoji-sequences.txt: no RGI_Emoji_Tag_Sequence")
	}
	sort.Strings(d.tagFlags)
	return nil
}

// classify assigns each code point its hot-path class (see classNames).
func (d *data) classify() error {
	d.classes = make([]uint8, numCP)
	c := classIndex
	scLatin, scGreek, scCyr := uint8(3), uint8(4), uint8(5)
	specific := map[rune]string{
		0x00AD: "clsSoftHyphen", 0x034F: "clsCGJ", 0x061C: "clsBidiMark",
		0x200E: "clsBidiMark", 0x200F: "clsBidiMark", 0x200B: "clsZWSP",
		0x200C: "clsZWNJ", 0x200D: "clsZWJ", 0x2060: "clsWordJoiner",
		0xFEFF: "clsBOM", 0x180E: "clsMVS", 0x115F: "clsHangulFiller",
		0x1160: "clsHangulFiller", 0x3164: "clsHangulFiller", 0xFFA0: "clsHangulFiller",
		0x17B4: "clsKhmerVowel", 0x17B5: "clsKhmerVowel", 0x2800: "clsBrailleBlank",
		0xFFFC: "clsObjectRepl", 0x0085: "clsLineSep", 0x2028: "clsLineSep",
		0x2029: "clsLineSep", 0x000D: "clsCR", 0x0008: "clsBS", 0x001B: "clsESC",
	}
	for r := rune(0); r <= maxRune; r++ {
		gc := d.gc[r]
		var name string
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			name = "clsSurrogate"
		case d.nonchar[r]:
			name = "clsNonchar"
		case r == 0xE0001 || (r >= 0xE0020 && r <= 0xE007F):
			name = "clsTag"
		case r >= 0xE0000 && r <= 0xE0FFF && gc == "Cn":
			name = "clsTagReserved"
		case r >= 0xFE00 && r <= 0xFE0F:
			name = "clsVS"
		case r >= 0xE0100 && r <= 0xE01EF:
			name = "clsVSSupp"
		case r == 0x180B || r == 0x180C || r == 0x180D || r == 0x180F:
			name = "clsFVS"
		case (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
			name = "clsBidiControl"
		case specific[r] != "":
			name = specific[r]
		case r >= 0x2061 && r <= 0x2064:
			name = "clsInvisibleOp"
		case r >= 0x206A && r <= 0x206F:
			name = "clsDeprecatedFormat"
		case r >= 0xFFF9 && r <= 0xFFFB:
			name = "clsInterlinear"
		case (r >= 0x13430 && r <= 0x1343F) || (r >= 0x1BCA0 && r <= 0x1BCA3):
			name = "clsFormatScript"
		case d.pcm[r]:
			name = "clsPCM"
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7F:
			name = "clsC0"
		case r >= 0x80 && r <= 0x9F:
			name = "clsC1"
		case gc == "Cf" || d.di[r]:
			name = "clsIgnorable"
		case gc == "Co":
			name = "clsPUA"
		case gc == "Cn":
			name = "clsUnassigned"
		case gc == "Zs" && r != ' ':
			name = "clsSpace"
		}
		if name == "" && r >= 0x80 && gc != "Cc" && gc != "Cs" {
			name = compatClass(r)
		}
		if name == "" && d.props[r]&propBit("propLetter") != 0 && (d.script[r] == scGreek || d.script[r] == scCyr) {
			name = "clsCyrGreek"
		}
		if name != "" {
			d.classes[r] = c(name)
		}
	}
	// Sanity checks: the hand-written cases above must agree with the data.
	for r, name := range specific {
		if name == "clsLineSep" || name == "clsCR" || name == "clsBS" || name == "clsESC" {
			continue
		}
		if !d.di[r] && d.gc[r] != "Cf" && r != 0x2800 && r != 0xFFFC {
			return fmt.Errorf("U+%04X is neither Cf nor Default_Ignorable in the data", r)
		}
	}
	if d.script['a'] != scLatin || d.script[0x3B1] != scGreek || d.script[0x430] != scCyr {
		return errors.New("script index layout changed")
	}
	return nil
}

// compatClass reports whether NFKC turns r into ASCII syntax or letters
// (threats.md §1 row 15). x/text's NFKC tables are Unicode 15.0; characters
// added since then have no compatibility decompositions that map to ASCII.
func compatClass(r rune) string {
	s := norm.NFKC.String(string(r))
	if s == string(r) || s == "" {
		return ""
	}
	hasLetter := false
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x80 || b < 0x20 {
			return ""
		}
		if (b|0x20) >= 'a' && (b|0x20) <= 'z' {
			hasLetter = true
		}
	}
	if strings.ContainsAny(s, `<>/\[]{}`) {
		return "clsCompatSyntax"
	}
	if hasLetter {
		return "clsCompatLetter"
	}
	return ""
}

func (d *data) write() ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("// Code generated by internal/gen from the Unicode %s data files; DO NOT EDIT.\n\n", wantVersion)
	p("package unicode\n\n")
	p("// Version is the Unicode version of the tables in this package. It is\n")
	p("// independent of the standard library's unicode.Version (15.0.0 in Go 1.26).\n")
	p("const Version = %q\n\n", wantVersion)

	p("// class is the hot-path classification of a code point (see classOf).\n")
	p("type class uint8\n\nconst (\n")
	for i, n := range classNames {
		if i == 0 {
			p("\t%s class = iota\n", n)
		} else {
			p("\t%s\n", n)
		}
	}
	p("\tnumClasses\n)\n\n")

	p("// Property bits of propTable entries.\nconst (\n")
	for i, n := range propNames {
		if i == 0 {
			p("\t%s uint16 = 1 << iota\n", n)
		} else {
			p("\t%s\n", n)
		}
	}
	p(")\n\n")

	// BMP bitset: bit set when the class is not clsNone.
	var bits [1024]uint64
	for r := 0; r < 0x10000; r++ {
		if d.classes[r] != 0 {
			bits[r>>6] |= 1 << (r & 63)
		}
	}
	p("// bmpFlags has a bit set for every BMP code point whose class is not\n")
	p("// clsNone: one load and a mask reject ordinary text.\n")
	p("var bmpFlags = [1024]uint64{")
	for i, w := range bits {
		if i%4 == 0 {
			p("\n\t")
		} else {
			p(" ")
		}
		p("%#016x,", w)
	}
	p("\n}\n\n")

	type cr struct {
		lo, hi rune
		c      uint8
	}
	var ranges []cr
	for r := rune(0); r <= maxRune; r++ {
		c := d.classes[r]
		if c == 0 {
			continue
		}
		if n := len(ranges); n > 0 && ranges[n-1].hi == r-1 && ranges[n-1].c == c {
			ranges[n-1].hi = r
			continue
		}
		ranges = append(ranges, cr{r, r, c})
	}
	// BMP classes as a two-stage table: 64-code-point blocks, deduplicated.
	var blockIndex [1024]byte
	var blockData []byte
	blocks := map[string]int{}
	for blk := 0; blk < 1024; blk++ {
		key := string(d.classes[blk<<6 : blk<<6+64])
		k, ok := blocks[key]
		if !ok {
			k = len(blocks)
			blocks[key] = k
			blockData = append(blockData, key...)
		}
		if k > 255 {
			return nil, errors.New("too many distinct BMP blocks for a byte index")
		}
		blockIndex[blk] = byte(k)
	}
	p("// bmpBlockIndex and bmpBlockData give the class of a BMP code point r\n")
	p("// in two loads: bmpBlockData[bmpBlockIndex[r>>6]<<6 | r&63]. The %d\n", len(blocks))
	p("// distinct 64-code-point blocks are stored once.\n")
	p("var bmpBlockIndex = [1024]uint8{")
	for i, v := range blockIndex {
		if i%16 == 0 {
			p("\n\t")
		} else {
			p(" ")
		}
		p("%d,", v)
	}
	p("\n}\n\n")
	p("const bmpBlockData = %s\n\n", strconv.QuoteToASCII(string(blockData)))

	p("// suppClasses lists the supplementary code points whose class is not\n")
	p("// clsNone as sorted, disjoint ranges.\n")
	p("var suppClasses = []classRange32{\n")
	for _, e := range ranges {
		if e.lo >= 0x10000 {
			p("\t{0x%05X, 0x%05X, %s},\n", e.lo, e.hi, classNames[e.c])
		}
	}
	p("}\n\n")

	// Property runs: every code point is covered; an entry holds until the next lo.
	p("// propTable holds the context properties as runs: entry i applies from\n")
	p("// lo up to the next entry's lo.\n")
	p("var propTable = []propRun{\n")
	prev := uint16(0xFFFF)
	for r := 0; r <= maxRune; r++ {
		if d.props[r] != prev {
			prev = d.props[r]
			p("\t{0x%X, 0x%X},\n", r, prev)
		}
	}
	p("}\n\n")

	p("// scriptTable holds the Script property as runs (index into scriptInfo).\n")
	p("var scriptTable = []scriptRun{\n")
	prevSc := -1
	for r := 0; r <= maxRune; r++ {
		if int(d.script[r]) != prevSc {
			prevSc = int(d.script[r])
			p("\t{0x%X, %d},\n", r, prevSc)
		}
	}
	p("}\n\n")

	// Script_Extensions: only where it differs from Script. Sets are stored
	// once each in scxData (one byte per script index), addressed by offset.
	var setIndex = map[string]int{}
	var setData strings.Builder
	var setOffs []int
	type sr struct {
		lo, hi rune
		set    int
	}
	var scxRanges []sr
	for r := rune(0); r <= maxRune; r++ {
		s := d.scx[r]
		if s == "" {
			continue
		}
		i, ok := setIndex[s]
		if !ok {
			i = len(setOffs)
			setIndex[s] = i
			setOffs = append(setOffs, setData.Len())
			setData.WriteString(s)
		}
		if n := len(scxRanges); n > 0 && scxRanges[n-1].hi == r-1 && scxRanges[n-1].set == i {
			scxRanges[n-1].hi = r
			continue
		}
		scxRanges = append(scxRanges, sr{r, r, i})
	}
	setOffs = append(setOffs, setData.Len())
	p("// scxTable lists the code points whose Script_Extensions differ from\n")
	p("// their Script; set indexes scxOffsets/scxData.\n")
	p("var scxTable = []scxRange{\n")
	for _, e := range scxRanges {
		p("\t{0x%X, 0x%X, %d},\n", e.lo, e.hi, e.set)
	}
	p("}\n\n")
	p("var scxOffsets = []uint16{")
	for i, o := range setOffs {
		if i%16 == 0 {
			p("\n\t")
		} else {
			p(" ")
		}
		p("%d,", o)
	}
	p("\n}\n\n")
	p("const scxData = %s\n\n", strconv.QuoteToASCII(setData.String()))

	idx := make([]byte, len(d.scripts))
	for i := range idx {
		idx[i] = byte(i)
	}
	p("// scriptIndexes holds every script index as one byte, so a\n")
	p("// single-script set is a substring and needs no allocation.\n")
	p("const scriptIndexes = %s\n\n", strconv.QuoteToASCII(string(idx)))

	p("// scriptInfo names the scripts by index: Unicode long name and ISO 15924 code.\n")
	p("var scriptInfo = [...]struct{ name, code string }{\n")
	for _, s := range d.scripts {
		p("\t{%q, %q},\n", s.long, s.code)
	}
	p("}\n\n")

	p("// variationSequences lists the valid (base, selector) pairs of\n")
	p("// StandardizedVariants.txt and emoji-variation-sequences.txt as\n")
	p("// base<<32 | selector, sorted.\n")
	p("var variationSequences = []uint64{")
	for i, v := range d.variants {
		if i%4 == 0 {
			p("\n\t")
		} else {
			p(" ")
		}
		p("0x%012X,", v)
	}
	p("\n}\n\n")

	p("// confusableKeys (sorted) and confusableOffsets/confusableData hold the\n")
	p("// TR39 prototypes of confusables.txt: the prototype of confusableKeys[i]\n")
	p("// is confusableData[confusableOffsets[i]:confusableOffsets[i+1]].\n")
	p("var confusableKeys = []uint32{")
	for i, k := range d.confKeys {
		if i%8 == 0 {
			p("\n\t")
		} else {
			p(" ")
		}
		p("0x%X,", k)
	}
	p("\n}\n\n")
	var cdata strings.Builder
	p("var confusableOffsets = []uint32{")
	for i, v := range d.confVals {
		if i%12 == 0 {
			p("\n\t")
		} else {
			p(" ")
		}
		p("%d,", cdata.Len())
		cdata.WriteString(v)
	}
	p(" %d,\n}\n\n", cdata.Len())
	p("const confusableData = %s\n\n", strconv.QuoteToASCII(cdata.String()))

	p("// rgiTagFlags are the tag payloads (tag characters minus 0xE0000) of the\n")
	p("// RGI emoji tag sequences U+1F3F4 <tags> U+E007F.\n")
	p("var rgiTagFlags = [...]string{")
	for _, t := range d.tagFlags {
		p("%s, ", strconv.QuoteToASCII(t))
	}
	p("}\n")

	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	return src, nil
}
