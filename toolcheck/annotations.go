package toolcheck

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// Misleading annotations (MCPG-A001–A005, threats.md §5). Annotations are
// untrusted hints whose absence means the worst case (readOnlyHint false,
// destructiveHint true, idempotentHint false, openWorldHint true); only a
// claim that makes a tool look safer than its name, title, description or
// parameters say is reported. Missing or over-cautious annotations never
// are.

// verbClass is a class of evidence about what a tool does.
type verbClass uint8

const (
	classRead    verbClass = 1 << iota // reads, lists, searches, computes
	classNet                           // reaches the network to read (fetch, browse)
	classMutate                        // writes or changes state
	classDestroy                       // deletes, overwrites, drops
	classExec                          // runs code or commands
	classSend                          // sends, posts, publishes to others
	classNonIdem                       // each call adds something (create, append, send)
	// classNeutral marks verbs that take the verb position but say nothing
	// about the effect ("Trigger a request from the server"): the words
	// after them are their object, not evidence ("request" there is a
	// noun). No rule picks this class.
	classNeutral
)

var classNames = []struct {
	c    verbClass
	name string
}{{classRead, "read"}, {classNet, "network"}, {classMutate, "mutate"}, {classDestroy, "destroy"}, {classExec, "execute"}, {classSend, "send"}, {classNonIdem, "non-idempotent"}}

func (c verbClass) names() []string {
	var out []string
	for _, n := range classNames {
		if c&n.c != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// verbs is the seed lexicon of threats.md §5, tuned on the fixtures and
// the captured real tool lists: base forms only; inflections are derived.
// Unlinking, detaching and unassigning remove a link (an issue from a
// project, a volume from a server, a user from a ticket), which the
// opposite call restores: they change, they do not destroy, except
// unlinking a file (unlinkedFiles), which is how POSIX deletes one.
var verbLexicon = sync.OnceValue(func() map[string]verbClass {
	m := map[string]verbClass{}
	add := func(c verbClass, words string) {
		for _, w := range strings.Fields(words) {
			m[w] |= c
		}
	}
	add(classRead, `get list read view show search find query lookup look describe inspect check count preview display print
		explain analyze analyse summarize summarise compare validate verify calculate compute parse diff retrieve load watch monitor
		scan review evaluate estimate resolve translate echo ping explore measure sum return returns extract render convert
		open poll geocode select hover screenshot demonstrate simulate compress zoom highlight suggest recommend`)
	add(classNet, `fetch download browse crawl scrape request navigate curl wget http`)
	add(classMutate, `write edit update set put patch modify rename move mv create insert add append upload push commit merge
		deploy publish install apply import save store replace overwrite reset restore approve grant chmod chown rewrite change assign
		configure enable disable upsert register archive lock unlock close reopen star fork transition schedule mark submit
		comment reply react invite share sync copy duplicate clone mkdir touch refactor fill click toggle new
		unlink detach unassign`)
	add(classDestroy, `delete remove rm drop truncate destroy purge wipe erase kill terminate revoke uninstall overwrite clear reset cancel
		rmdir discard prune flush shred nuke evict force replace`)
	add(classExec, `run exec execute eval shell bash sh cmd spawn invoke compile launch interpret sudo powershell pwsh subprocess`)
	add(classSend, `send post email mail message notify tweet publish webhook upload transfer pay reply dm sms broadcast forward
		share invite dial alert announce submit`)
	add(classNeutral, `trigger initiate perform`)
	add(classNonIdem, `create append add insert post send comment enqueue push increment decrement generate new submit reply fork
		register spawn duplicate clone upload`)
	return m
})

// execNouns mark execution when a name has no verb ("bash", "shell_exec").
var execNouns = lazyWordSet(`shell bash sh cmd powershell pwsh subprocess terminal exec eval repl`)

// lookupVerb returns the class of a word, trying inflections: third person
// ("deletes", "pushes", "copies"), gerund ("sending", "creating",
// "running") when inflect is set.
func lookupVerb(w string, inflect bool) (string, verbClass) {
	if c, ok := verbLexicon()[w]; ok {
		return w, c
	}
	if !inflect || len(w) < 4 {
		return "", 0
	}
	var cands []string
	switch {
	case strings.HasSuffix(w, "ies"):
		cands = append(cands, w[:len(w)-3]+"y")
	case strings.HasSuffix(w, "es"):
		cands = append(cands, w[:len(w)-2], w[:len(w)-1])
	case strings.HasSuffix(w, "s"):
		cands = append(cands, w[:len(w)-1])
	case strings.HasSuffix(w, "ing"):
		b := w[:len(w)-3]
		cands = append(cands, b, b+"e")
		if len(b) >= 2 && b[len(b)-1] == b[len(b)-2] {
			cands = append(cands, b[:len(b)-1])
		}
	}
	for _, c := range cands {
		if cl, ok := verbLexicon()[c]; ok {
			return c, cl
		}
	}
	return "", 0
}

// evidence is one reason to believe a tool does something.
type verbEvidence struct {
	class  verbClass
	word   string
	source string // "name", "title", "annotations.title", "description", "parameter"
	// object is the head of the verb's object, when known.
	object string
	// weak marks a word that is a verb only in some readings ("add",
	// "alert" in a name without other verb): alone it is at most a note.
	weak bool
}

// ambiguousVerbs are words that are as often nouns as verbs ("a set of
// documents", "store details", "a deploy record", "eval results",
// "1-click checkout"), or more often (a webhook, an SMS, an HTTP
// request: "set_webhook" sets one): a verb only where the grammar makes
// one.
var ambiguousVerbs = lazyWordSet(`add set share store deploy alert eval email mail click post message comment reply star fork
	commit merge lock mark archive schedule transition register copy clone sync patch import run invite launch record
	return display print watch monitor check request note log dial react sum webhook sms dm tweet http`)

// determiners and the like introduce a verb's object: an ambiguous word
// at the start of a clause followed by one is a verb ("Add two numbers",
// "Share the file", "Set a value").
var objectIntroducers = lazyWordSet(`a an the this that these those its your my our their his her one two three some any all
	every each both multiple several new it them him me us given specified selected provided existing`)

// complementizers open a clause that is a verb's object ("Check whether
// the token has write permissions", "Show how a run ended"): the word
// before one is a verb.
var complementizers = lazyWordSet(`whether if how what which who whom where why`)

// nounFollowers follow an ambiguous word used as a noun or a noun
// modifier ("set of documents", "alerts for a monitor").
var nounFollowers = lazyWordSet(`of for about by is are was were has have settings details results templates stats statistics
	info information status record records policy policies history list lists data`)

// objectPrepositions end a verb's object and name where it goes ("Add
// droplets to a firewall", "Post message in channel").
var objectPrepositions = lazyWordSet(`to from into in on onto with as at via using around`)

// grammarVerb reports whether the word at words[i], the first of a
// clause, is a verb there: an unambiguous verb always is; an ambiguous
// one only before its object (a determiner, a pronoun, a number, or a
// noun followed by a preposition), never before what a noun takes.
func grammarVerb(words []string, i int) bool {
	base, _ := lookupVerb(words[i], true)
	if !ambiguousVerbs()[base] {
		return true
	}
	if i+1 >= len(words) {
		return false
	}
	next := words[i+1]
	switch {
	case objectIntroducers()[next] || isNumberWord(next) || complementizers()[next]:
		return true
	case nounFollowers()[next] || objectPrepositions()[next]:
		return false
	}
	return i+2 < len(words) && objectPrepositions()[words[i+2]]
}

func isNumberWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isASCIIDigit(w[i]) {
			return false
		}
	}
	return w != ""
}

// contentNouns are things a tool makes or holds: removing one deletes
// it; adding one makes a new one. Anything else a tool adds to or removes
// from a container is a membership (a label on an issue, a droplet behind
// a firewall, an owner of a story), which the opposite call undoes.
var contentNouns = lazyWordSet(`file files folder folders directory directories dir data record records row rows document
	documents doc docs message messages content contents comment comments note notes entry entries item items post posts page
	pages text line lines event events task tasks attachment attachments object objects blob blobs database databases table
	tables index indexes indices branch branches repository repositories repo repos project projects account accounts version
	versions image images snapshot snapshots backup backups volume volumes bucket buckets key keys secret secrets issue issues
	cell cells block blocks node nodes memory memories observation observations entity entities relation relations`)

// membershipVerbs are the verbs of a membership change.
var membershipVerbs = lazyWordSet(`add remove unlink detach attach assign unassign grant revoke`)

// membership reports whether the verb at words[i] adds to or removes from
// a container something that is not content: "remove X from Y", "add X to
// Y" in a clause; "<container> remove <members>" in a name.
func membership(words []string, i int, name bool) bool {
	base, _ := lookupVerb(words[i], true)
	if !membershipVerbs()[base] {
		return false
	}
	if name && i > 0 && referenceLists()[words[i-1]] {
		return true // "watchlist_add": the list's own verb
	}
	var obj []string
	rest := words[i+1:]
	prep := -1
	for k, w := range rest {
		if w == "from" || w == "to" || w == "of" || w == "into" || w == "on" || w == "as" {
			prep = k
			break
		}
	}
	switch {
	case prep > 0:
		obj = rest[:prep]
	case name && i > 0 && len(rest) > 0:
		obj = rest // a container before the verb: "firewall-remove-droplets"
	default:
		return false
	}
	if slices.Contains(obj, "new") {
		return false // "Add a new sheet to a spreadsheet" makes the sheet
	}
	if prep > 0 && sameKind(obj, rest[prep+1:]) {
		return true // "a sub-issue to a parent issue": one issue under another, both stay
	}
	if prep > 0 && anyIn(rest[prep+1:min(prep+4, len(rest))], groupNouns()) {
		return true // "remove issues from an epic": they stay issues
	}
	if prep > 0 && anyIn(rest[prep+1:min(prep+5, len(rest))], referenceLists()) {
		return true // "Add a file to the chat context": a reference to the file
	}
	for _, w := range obj {
		if contentNouns()[w] || execNouns()[w] {
			return false
		}
	}
	return len(obj) > 0
}

// sameKind reports whether the head of a verb's object (obj, its last
// word) is the head of the container after the preposition (the last word
// of up to four, before the next preposition or clause): a thing put
// under or taken from another of its kind ("Add a sub-issue to a parent
// issue", "Remove a sub-page from a page") is linked, and stays what it is.
func sameKind(obj, container []string) bool {
	if len(obj) == 0 {
		return false
	}
	head := ""
	for k, w := range container {
		if k == 4 || objectPrepositions()[w] || clauseEnds()[w] || w == "and" || w == "or" {
			break
		}
		head = w
	}
	return head != "" && head == obj[len(obj)-1]
}

// groupNouns gather things that exist outside them: an epic, a sprint, a
// playlist. Removing content from one leaves the content.
var groupNouns = lazyWordSet(`epic epics sprint sprints milestone milestones board boards playlist playlists album albums
	group groups team teams organization organizations org cart firewall firewalls release releases cycle cycles`)

// referenceLists hold references to what lives elsewhere: a chat's
// context, an editor's selection, a watchlist. Adding a file or a symbol
// to one, or removing it, leaves the file or the symbol, and adding it
// twice lists it once.
var referenceLists = lazyWordSet(`context contexts selection selections watchlist watchlists`)

// unreadLanguage reports whether s is mostly letters outside Latin
// script: text in a language this analysis does not read, which gives no
// verdict either way.
func unreadLanguage(s string) bool {
	// One pass: the letters by script, and the function words of the
	// words tlWords returns (runs of letters and digits, lower-cased),
	// each read in place (ASCII) or lower-cased alone.
	latin, other, en, foreign := 0, 0, 0, 0
	word := func(w string, ascii bool) {
		var buf [32]byte
		var lw string
		switch {
		case !ascii:
			lw = strings.ToLower(w)
		case len(w) <= len(buf):
			b := buf[:len(w)]
			for i := 0; i < len(w); i++ {
				c := w[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b[i] = c
			}
			// The index expressions do not copy b.
			switch {
			case englishFunction()[string(b)]:
				en++
			case foreignFunction()[string(b)]:
				foreign++
			}
			return
		default:
			lw = strings.ToLower(w)
		}
		switch {
		case englishFunction()[lw]:
			en++
		case foreignFunction()[lw]:
			foreign++
		}
	}
	start, ascii := -1, true
	for i, r := range s {
		inWord := false
		switch {
		case r < 0x80:
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				latin++
				inWord = true
			} else {
				inWord = '0' <= r && r <= '9'
			}
		case unicode.IsLetter(r):
			if unicode.Is(unicode.Latin, r) {
				latin++
			} else {
				other++
			}
			inWord = true
		default:
			inWord = unicode.IsDigit(r)
		}
		switch {
		case inWord && start < 0:
			start, ascii = i, r < 0x80
		case inWord:
			ascii = ascii && r < 0x80
		case start >= 0:
			word(s[start:i], ascii)
			start = -1
		}
	}
	if start >= 0 {
		word(s[start:], ascii)
	}
	if other > latin {
		return true
	}
	// Latin script in another language: more of its function words than
	// of English's ("Compile en une vue ce qui s'est passé").
	return foreign >= 2 && foreign > en
}

var (
	englishFunction = lazyWordSet(`the a an of to and in for is are with on by from this that it as or be at`)
	// French, Spanish, Portuguese, German, Italian and Dutch function
	// words that are not English words.
	foreignFunction = lazyWordSet(`le la les des du une et est dans qui pour sur avec pas ce ces vous nous sont
		el los las del por con para una que es
		uma os não com dos das
		der die das und mit für ist nicht ein eine zu den dem von auf im
		il di che non per gli nel della
		het een van voor niet met zijn`)
)

// nameVerbs returns the action of a split tool name: the first word that
// is only a verb, wherever it stands (verb first "delete_file", after a
// prefix "slack_get_users", last "alert-policy-get", camel "getAlerts"),
// with the verbs coordinated with it; without one, the first ambiguous
// verb, as weak evidence.
func nameVerbs(words []string) ([]verbEvidence, int) {
	for i, w := range words {
		if _, c := lookupVerb(w, false); c == 0 || afterPreposition(words, i) {
			continue
		}
		if !ambiguousVerbs()[w] {
			ev := leadVerbs(words[i:], 1, false)
			return ev, i
		}
	}
	first := -1
	for i, w := range words {
		if _, c := lookupVerb(w, false); c == 0 || afterPreposition(words, i) {
			continue
		}
		if first < 0 && !(i+1 < len(words) && nounFollowers()[words[i+1]]) {
			first = i
		}
	}
	if first < 0 {
		return nil, -1
	}
	ev := leadVerbs(words[first:], 1, false)
	for k := range ev {
		ev[k].weak = true
	}
	return ev, first
}

// namePrepositions open an object in a tool name ("wait_for_new_message",
// "search_by_create_date"). "to" is not among them: it also opens an
// infinitive ("how_to_delete").
var namePrepositions = lazyWordSet(`for of on with from about by after until since into onto within without via per`)

// afterPreposition reports whether words[i] follows a preposition: it
// starts that preposition's object ("new" in "wait_for_new_message": a new
// message waited for, not one made), not the name's action.
func afterPreposition(words []string, i int) bool {
	return i > 0 && namePrepositions()[words[i-1]]
}

// clauseVerbs returns the leading verb of a clause (and the verbs
// coordinated with it) when the grammar makes the first word a verb.
func clauseVerbs(words []string) []verbEvidence {
	if len(words) == 0 || !grammarVerb(words, 0) {
		return nil
	}
	ev := leadVerbs(words, 1, true)
	switch {
	case len(ev) == 0:
	case transformsInput(words):
		for k := range ev {
			ev[k].class = classRead
		}
	case membership(words, 0, false):
		// "Detach or remove a policy from a role": the verbs coordinated
		// with the first share its object, and a membership verb among
		// them changes the same membership.
		for k := range ev {
			if k == 0 || membershipVerbs()[ev[k].word] {
				ev[k] = asMembership(ev[k])
			}
		}
	case ev[0].class&classDestroy != 0 && linkBetween(words):
		ev[0] = asMembership(ev[0])
	}
	return ev
}

// linkBetween reports whether the object of a clause's leading verb is a
// link, named by "between" right after its head ("Delete the relation
// between two issues", "Remove a dependency between two tasks"): removing
// it leaves both ends. Content before "between" ("Delete messages
// between two users") and a range ("files between two dates") are no
// link.
func linkBetween(words []string) bool {
	for k := 1; k < len(words) && k <= 4; k++ {
		if words[k] != "between" {
			continue
		}
		head := words[k-1]
		return k > 1 && !objectSkips()[head] && !contentNouns()[head] && !execNouns()[head]
	}
	return false
}

// valueNouns are values a call passes in and gets back: a verb that
// removes or replaces something in one of them computes a result ("Remove
// ANSI codes from text", "Replace tabs in a string", "Remove the
// background from an image").
var valueNouns = lazyWordSet(`text texts string strings input inputs output value values json yaml xml html markdown answer
	response expression image images photo photos picture pictures`)

// transformsInput reports whether a clause's verb acts within a value
// ("from text", "in a string") rather than on stored state.
func transformsInput(words []string) bool {
	for k := 1; k+1 < len(words); k++ {
		if words[k] != "from" && words[k] != "in" && words[k] != "of" {
			continue
		}
		for _, w := range words[k+1:] {
			if objectSkips()[w] || objectIntroducers()[w] {
				continue
			}
			if valueNouns()[w] {
				return true
			}
			break
		}
	}
	return false
}

// asMembership reads a verb as a membership change: removing a member is
// no destruction, adding one twice adds it once.
func asMembership(e verbEvidence) verbEvidence {
	e.class &^= classDestroy | classNonIdem
	e.class |= classMutate
	return e
}

// fillers are skipped before a description's leading verb.
var leadFillers = lazyWordSet(`this tool the a an use used to for it lets let allows allow you can will function endpoint api method
	helper utility mcp simple that which we i please is will used tools`)

// leadVerbs returns the leading verb of words and the verbs coordinated
// with it ("compiles and runs", "create or update", "move or rename"):
// the first known verb within the first limit words, then "and"/"or"
// followed by another verb. Titles and descriptions pass limit 1 (their
// verb comes first, after skipFillers: "Long Running Operation" is no
// "run"); names pass their length, because a prefix often comes first
// ("tokensave_replace_symbol", "slack_post_message").
func leadVerbs(words []string, limit int, inflect bool) []verbEvidence {
	var out []verbEvidence
	for i := 0; i < len(words) && i < limit; i++ {
		w := words[i]
		base, c := lookupVerb(w, inflect)
		if c == 0 {
			continue
		}
		out = append(out, verbEvidence{class: c, word: base})
		for j := i + 1; j+1 < len(words); j += 2 {
			if words[j] != "and" && words[j] != "or" && words[j] != "then" {
				break
			}
			next := words[j+1]
			if strings.HasSuffix(next, "ly") && j+2 < len(words) {
				j++
				next = words[j+1]
			}
			b2, c2 := lookupVerb(next, inflect)
			if c2 == 0 {
				break
			}
			out = append(out, verbEvidence{class: c2, word: b2})
		}
		return out
	}
	return nil
}

// arithmetic: "add two numbers", "adds the values" compute, not mutate.
var arithmeticObjects = lazyWordSet(`two numbers number integers values sum operands digits`)

// adjust drops the mutate reading of arithmetic "add".
func adjust(ev []verbEvidence, words []string) []verbEvidence {
	out := ev[:0]
	for _, e := range ev {
		if e.word == "add" || e.word == "sum" {
			for i, w := range words {
				if (w == "add" || w == "adds" || w == "adding") && i+1 < len(words) && arithmeticObjects()[words[i+1]] {
					e.class = classRead
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// What a verb acts on decides what it does (issue 16): "runs an
// aggregation" reads, "closes the connection" changes no user data,
// "install instructions" are text about installing.
var (
	// readObjects are operations that read: an execution verb on one of
	// them runs a read (running a prompt generates text), and so are the
	// agents of those reads: running an analyzer, a validator or a checker
	// is the analysis (real: Dynatrace's execute_davis_analyzer, "Execute a
	// Davis Analyzer with custom input parameters").
	readObjects = lazyWordSet(`query queries aggregation aggregations aggregate find search searches select lookup
		report reports analysis count explain audit audits review reviews validation validations scan scans inspection
		prompt prompts analyzer analyzers analyser analysers validator validators checker checkers inspector inspectors`)
	// sessionObjects are a client's own plumbing: closing one changes no
	// user data.
	sessionObjects = lazyWordSet(`connection connections session sessions socket sockets browser tab tabs page pages
		client stream streams cursor cursors transport handle window context app apps application applications
		clipboard`)
	// infoNouns make a tool about its verb rather than doing it: it
	// returns instructions, documentation or help.
	infoNouns = lazyWordSet(`instructions instruction docs doc documentation guide guides help howto readme tutorial
		tutorials manual usage`)
	// objectSkips are the words between a verb and its object.
	objectSkips = lazyWordSet(`a an the this that these those its your my our their one new given specified provided
		current active open existing sql mongodb mongo database db simple custom single multiple several many all some
		numerous parallel batch batches up to`)
	// sessionVerbs are the verbs that, on a session object, only end it.
	sessionVerbs = lazyWordSet(`close disconnect end stop terminate kill reset`)
	// viewState is what clearing or resetting returns to its default in
	// the client's view (a selection, the filters of a dashboard, a form's
	// fields); deleting a saved filter still destroys it.
	// eraseVerbs end what they act on in every reading: on a session
	// object too ("Delete an app", "Destroy the stream"), unlike replacing,
	// clearing or purging one ("Purge page and object caches").
	eraseVerbs = lazyWordSet(`delete destroy`)
	viewState  = lazyWordSet(`selection selections filter filters highlight highlights zoom viewport form forms field fields`)
	resetVerbs = lazyWordSet(`clear reset`)
	// viewVerbs put a view setting in place; viewFilters are the settings
	// of how a client shows what it reads (a filter on results, a zoom, a
	// sort order), no user data. A form's fields are data the user fills.
	viewVerbs   = lazyWordSet(`apply set`)
	viewFilters = lazyWordSet(`filter filters zoom viewport highlight highlights sort sorting`)
	// composedQueries are what a writing verb composes as text.
	composedQueries = lazyWordSet(`query queries sql`)
)

// judgeObjects reads each verb with its object in words: an execution verb
// on a read operation reads, a session verb on a connection or a browser
// tab changes no user data (the evidence goes), and a verb whose object is
// instructions or documentation only describes ("install_instructions";
// in a name, also "docs_for_deploy").
func judgeObjects(ev []verbEvidence, words []string, name bool) []verbEvidence {
	out := ev[:0]
	for _, e := range ev {
		at, obj := objectOf(e.word, words)
		if name && obj == "" && at > 0 {
			obj = words[at-1] // a prefixed name: "browser_close"
		}
		infoBefore := false
		if name {
			for _, w := range words[:max(at, 0)] {
				infoBefore = infoBefore || infoNouns()[w]
			}
		}
		e.object = obj
		phrase := objectPhrase(words, at, name)
		switch {
		case dryRun(words, at):
			// "dry_run_migration", "Dry-run a migration": a simulation of
			// the run, judged before the run's own object.
			e.class = classRead
		case e.class&(classExec|classSend) != 0 && anyIn(phrase, readObjects()):
			// "Execute a PromQL query", "Run a Data Explorer query",
			// "submit_search", "Send a query": the act is the read.
			e.class = classRead
		case e.class&classExec != 0 && !execNouns()[e.word] && !anyIn(phrase, codeObjects()) && !anyIn(phrase, execNouns()):
			// Running a workflow, a card, a pipeline or compiling a recap
			// is the vendor's operation, not code the client cannot see:
			// weak evidence.
			e.weak = true
		case e.class&(classDestroy|classNonIdem) != 0 && anyIn(phraseHeads(phrase, name && at > 0), referenceNouns()) && !andVerb(words, at, classDestroy):
			// A bookmark, a tag, a star: a reference, which the opposite
			// call restores; making one twice makes one. Only the head of
			// the object counts: a "pin map" is a map. Removing a
			// reference changes something; generating one does not.
			if e.class&classDestroy != 0 {
				e.class |= classMutate
			}
			e.class &^= classDestroy | classNonIdem
		case e.class&classNonIdem != 0 && anyIn(phraseHeads(phrase, name && at > 0), memberNouns()):
			// "im.v1.chat.members.create", "Create a team membership": a
			// principal put in a group, which a second call finds there.
			// Deleting one is judged as any deletion.
			e.class &^= classNonIdem
		case e.class&classNonIdem != 0 && renderVerbs()[e.word] && (e.word == "generate" && !anyIn(phraseHeads(phrase, name && at > 0), issuedNouns()) ||
			anyIn(phraseHeads(phrase, name && at > 0), renderedNouns()) || anyIn(phrase, fileFormats())) && !placedIn(words, at) &&
			!andVerb(words, at, classMutate|classSend|classNonIdem):
			// "Create a PDF", "generate a chart", "Generate a PDF invoice
			// for an order" (a file format before the head names the
			// rendering): a rendering of the input, returned to the
			// caller; a retry renders the same again. One made in a
			// document ("Create a chart in a spreadsheet") is stored
			// there. "Generate" makes its output whatever it is (a
			// summary, code, a test, a UUID), unless it issues something
			// the service keeps (issuedNouns: "Generate an API key"). One
			// the clause goes on to store or send ("… and upload it to
			// S3") is not only returned.
			e.class = classRead
		case mergeVerbs()[e.word] && anyIn(phraseHeads(phrase, name && at > 0), renderedNouns()) && (!placedIn(words, at) || intoRendering(words, at)) &&
			!andVerb(words, at, classMutate|classSend|classNonIdem):
			// "Merge two or more polygons into a single unified geometry"
			// (real: mapbox mcp-server's union_tool): renderings of the
			// input combined into one, returned as a created one is.
			e.class = classRead
		case e.class&classDestroy != 0 && anyIn(phraseHeads(phrase, name && at > 0), derivedNouns()):
			// A cache is a copy of what is stored elsewhere: clearing or
			// purging it loses nothing that the next read does not
			// rebuild.
			continue
		case e.class&classDestroy != 0 && haltVerbs()[e.word] && anyIn(phrase, runningWork()):
			// Cancelling a running query or job stops work; it destroys
			// nothing stored.
			e.class = e.class&^classDestroy | classMutate
		case e.class&(classMutate|classSend|classNonIdem) != 0 && e.class&(classDestroy|classExec) == 0 && toView(words, at):
			// "Push backend node IDs to the frontend for inspection": moved
			// into the client's own view, no user data changes.
			e.class = classRead
		case e.word == "unlink" && anyIn(phraseHeads(phrase, name && at > 0), unlinkedFiles()):
			// "Unlink a file": the POSIX deletion of its name.
			e.class |= classDestroy
		case e.word == "drop" && at > 0 && (words[at-1] == "drag" || at > 1 && words[at-1] == "and" && words[at-2] == "drag"):
			// "Drag and drop", "drag_drop": a pointer gesture, not dropping
			// a table.
			e.class = classMutate
		case sessionVerbs()[e.word] && sessionObjects()[obj]:
			continue
		case !name && e.word == "write" && anyIn(phraseHeads(phrase, false), composedQueries()) && !placedIn(words, at) && !toPlace(words, at) &&
			!andVerb(words, at, classMutate|classExec|classSend|classDestroy):
			// "Write a SQL query from a natural language question": the
			// query is text the tool returns, not run and not stored
			// ("... and run it", "to a file" are). Only the description
			// says so: a name's "write_query" also names the SQLite
			// server's tool that runs an INSERT.
			e.class = classRead
		case e.class == classMutate && viewVerbs()[e.word] && anyIn(phraseHeads(phrase, name && at > 0), viewFilters()):
			// "apply_filter", "Set the zoom": how the client shows what
			// it reads.
			e.class = classRead
		case resetVerbs()[e.word] && anyIn(phraseHeads(phrase, name && at > 0), viewState()):
			// "Clear the selection", "Reset the dashboard filters".
			e.class = e.class&^classDestroy | classMutate
		case e.class&classDestroy != 0 && !eraseVerbs()[e.word] && (sessionObjects()[obj] || sessionObjects()[wordAfter(words, obj, at)]):
			// Replacing the clipboard, clearing a tab: the client's own
			// plumbing, not stored data. Deleting or destroying an app,
			// a page or a stream (eraseVerbs) is no plumbing: those are
			// also what a vendor keeps (a Cloudflare app, a Notion page,
			// a Kafka stream), and the verb ends them.
			e.class = e.class&^classDestroy | classMutate
		case e.word == "replace" && inPlace(words, at):
			// "Replace all external links on a story", "Replaces the
			// contents of a collection": fields of a resource that stays.
			e.class = e.class&^classDestroy | classMutate
		case infoNouns()[obj] || infoBefore:
			e.class = classRead
		case rehearsal(words, at):
			// "npm_publish_preflight", "Publish preflight check",
			// "deploy_dry_run": a check of the action, which does not do it.
			e.class = classRead
		}
		out = append(out, e)
	}
	return out
}

// rehearsal reports whether the verb at words[at] names the action that
// the noun after it rehearses: a preflight or a dry run of it. "Run" after
// "dry" is the dry run itself ("dry_run_migration", "Dry-run a migration
// and report the SQL it would execute"): a simulation, which runs nothing.
func rehearsal(words []string, at int) bool {
	if dryRun(words, at) {
		return true
	}
	if at < 0 || at+1 >= len(words) {
		return false
	}
	switch words[at+1] {
	case "preflight", "dryrun":
		return true
	case "dry":
		return at+2 < len(words) && words[at+2] == "run"
	}
	return false
}

// dryRun reports whether the verb at words[at] is the "run" of "dry run".
func dryRun(words []string, at int) bool {
	return at > 0 && at < len(words) && words[at-1] == "dry" && (words[at] == "run" || words[at] == "runs" || words[at] == "running")
}

// clauseEnds start a subordinate clause: the object before them is over
// ("Clear the cache so that later calls fetch ...").
var clauseEnds = lazyWordSet(`so that which when whenever if because before after until while then where unless`)

// objectPhrase returns up to six words of the object of the verb at
// words[at] (past determiners), up to "of" or "between", which the head
// precedes ("a summary of a document" is a summary, "a diff between two
// versions" a diff), and in a name also the word
// before the verb ("mb_bookmark_delete": "bookmark").
func objectPhrase(words []string, at int, name bool) []string {
	if at < 0 {
		return nil
	}
	var out []string
	rest := words[at+1:]
	for i := 0; i < len(rest); i++ {
		if n := quantifierLen(rest[i:]); n > 0 {
			i += n - 1 // "one or more panel queries": the object follows
			continue
		}
		w := rest[i]
		if len(out) == 6 || objectPrepositions()[w] || w == "and" || w == "or" || w == "for" || w == "of" || w == "between" || clauseEnds()[w] || exampleAside(rest[i:]) {
			break
		}
		if !objectSkips()[w] {
			out = append(out, w)
		}
	}
	if name && at > 0 {
		out = append(out, words[at-1])
	}
	return out
}

// exampleAside reports whether words open an example ("e.g.", "i.e.",
// "such as", "like"), which follows the object's head: "Add a reaction
// (e.g. "like") to a comment" adds a reaction.
func exampleAside(words []string) bool {
	switch words[0] {
	case "eg", "ie", "like":
		return true
	case "e", "i":
		return len(words) > 1 && (words[0] == "e" && words[1] == "g" || words[0] == "i" && words[1] == "e")
	case "such":
		return len(words) > 1 && words[1] == "as"
	}
	return false
}

// phraseHeads returns the heads of an object phrase from objectPhrase:
// its last word (the noun the others modify: "pin map" is a map), and the
// name word before the verb when named is set (objectPhrase appended it).
func phraseHeads(phrase []string, named bool) []string {
	if named {
		if len(phrase) == 1 {
			return phrase
		}
		return []string{phrase[len(phrase)-2], phrase[len(phrase)-1]}
	}
	if len(phrase) == 0 {
		return nil
	}
	return phrase[len(phrase)-1:]
}

func anyIn(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}

// referenceNouns are pointers to something else: removing one leaves the
// thing, adding one twice adds one. An invitation is a pending membership:
// revoking it is undone by inviting again.
var referenceNouns = lazyWordSet(`bookmark bookmarks favorite favorites favourite favourites star stars label labels tag tags
	shortcut shortcuts alias aliases reaction reactions subscription subscriptions pin pins watcher watchers follower followers
	assignee assignees reviewer reviewers invitation invitations invite invites`)

// memberNouns are principals' places in a group and links between two
// records (an association of a contact with a company): adding one twice
// leaves one.
var memberNouns = lazyWordSet(`member members membership memberships collaborator collaborators participant participants
	association associations`)

// renderVerbs make an output from their input; renderedNouns are the
// document formats and renderings they make (a PDF, a chart, a QR code)
// and what is computed from a text (a summary, embeddings) or from two
// (a diff between versions), which hold nothing but that input.
var (
	renderVerbs   = lazyWordSet(`create generate`)
	mergeVerbs    = lazyWordSet(`merge combine`)
	renderedNouns = lazyWordSet(`pdf pdfs png jpg jpeg svg csv chart charts diagram diagrams plot plots graph graphs qr qrcode
		barcode barcodes thumbnail thumbnails visualization visualizations visualisation mermaid
		summary summaries embedding embeddings vector vectors diff diffs polygon polygons geometry geometries`)
	// issuedNouns are what a service issues and keeps when it generates
	// one: a credential, an invoice.
	issuedNouns = lazyWordSet(`key keys token tokens secret secrets credential credentials invoice invoices coupon coupons
		voucher vouchers certificate certificates`)
)

// fileFormats are document and image formats: in a verb's object ("a PDF
// invoice", "a CSV export") they name what is rendered.
var fileFormats = lazyWordSet(`pdf pdfs png jpg jpeg svg csv`)

// viewNouns are the client's own display: what is sent there is shown.
var viewNouns = lazyWordSet(`frontend ui viewer panel screen console inspector devtools`)

// toView reports whether the verb at words[at] moves its object to the
// client's own display ("to the frontend", "to the console").
func toView(words []string, at int) bool {
	for k := max(at+1, 0); k+1 < len(words); k++ {
		if clauseEnds()[words[k]] {
			return false
		}
		if words[k] != "to" {
			continue
		}
		for _, w := range words[k+1:] {
			if !objectSkips()[w] {
				return viewNouns()[w]
			}
		}
		return false
	}
	return false
}

// andVerb reports whether the clause of the verb at words[at] goes on
// with "and" and a verb of a class in mask: "Generate a report and save
// it to Drive" hands on what it made (the output is kept or delivered,
// not only returned); "Revoke an invitation and delete every project it
// granted" destroys more than the reference.
func andVerb(words []string, at int, mask verbClass) bool {
	for i := max(at+1, 0); i+1 < len(words); i++ {
		if clauseEnds()[words[i]] {
			return false
		}
		if words[i] == "and" {
			if _, c := lookupVerb(words[i+1], true); c&mask != 0 {
				return true
			}
		}
	}
	return false
}

// toPlace reports whether the clause of the verb at words[at] sends its
// object to a place ("to a file", "to the database") before a clause
// ends: what is written there is stored.
func toPlace(words []string, at int) bool {
	for _, w := range words[max(at+1, 0):] {
		if w == "to" || w == "into" {
			return true
		}
		if clauseEnds()[w] {
			return false
		}
	}
	return false
}

// placedIn reports whether the object of the verb at words[at] is put in
// or on something ("a chart in a spreadsheet", "a diagram on the board").
func placedIn(words []string, at int) bool {
	for _, w := range words[max(at+1, 0):] {
		switch w {
		case "in", "into", "on", "onto", "inside", "within":
			return true
		}
		if objectPrepositions()[w] || clauseEnds()[w] {
			return false
		}
	}
	return false
}

// intoRendering reports whether the verb at words[at] puts its object
// "into" a rendering (renderedNouns: "into a single unified geometry",
// "into one PDF"): the result it returns, not a place that keeps it
// ("into the main branch").
func intoRendering(words []string, at int) bool {
	for k := max(at+1, 0); k < len(words); k++ {
		if words[k] == "into" {
			return anyIn(phraseHeads(objectPhrase(words, k, false), false), renderedNouns())
		}
	}
	return false
}

// linkVerbs remove a link only: an issue from a project, a volume from a
// server, a user from a ticket.
var linkVerbs = lazyWordSet(`unlink detach unassign`)

// removesFrom reports whether a clause's "remove" (removes, removing)
// takes "from" after its object, before any "and" or "with" adds to it:
// what is removed is taken out of something ("the policy from the role"),
// a link, not the thing itself; "the device and all its recordings from
// the account" removes more than a link.
func removesFrom(words []string) bool {
	for k, w := range words {
		if w != "remove" && w != "removes" && w != "removing" {
			continue
		}
		for _, x := range words[k+1:] {
			switch x {
			case "from":
				return true
			case "and", "with", "plus", "including":
				return false
			}
		}
		return false
	}
	return false
}

// unlinkedFiles are what unlinking deletes: a file's name is its last
// link.
var unlinkedFiles = lazyWordSet(`file files path paths symlink symlinks`)

// derivedNouns are copies kept to answer faster: what they hold is
// stored elsewhere.
var derivedNouns = lazyWordSet(`cache caches cached`)

// haltVerbs stop what runs; runningWork is what they stop.
var (
	haltVerbs   = lazyWordSet(`cancel abort stop kill terminate`)
	runningWork = lazyWordSet(`query queries job jobs request requests operation operations run runs build builds process
		processes execution executions export exports import imports upload uploads download downloads search searches`)
)

// wordAfter returns the word after the first obj following words[at]
// ("device" "clipboard"): the head of a two-word object, past a genitive
// ("a user's session": "session").
func wordAfter(words []string, obj string, at int) string {
	for k := max(at+1, 0); k+1 < len(words); k++ {
		if words[k] == obj {
			if words[k+1] == "s" && k+2 < len(words) {
				return words[k+2]
			}
			return words[k+1]
		}
	}
	return ""
}

// inPlace reports whether the object of the verb at words[at] is a part of
// another resource ("the contents of a collection", "links on a story", "a
// collection's data"): the resource stays, with new values.
func inPlace(words []string, at int) bool {
	if at < 0 {
		return false
	}
	for k := at + 1; k < len(words) && k <= at+5; k++ {
		switch words[k] {
		case "of", "on", "in", "for":
			return k > at+1 && !wholeFiles()[words[k-1]]
		case "s":
			// The head follows the possessive ("the repository's CI
			// configuration file"): a file replaced whole is no field.
			return k > at+1 && !wholeFiles()[possessedHead(words, k)]
		case "with", "by", "to", "and", "or":
			return false
		}
	}
	return false
}

// wholeFiles are objects a replacement swaps whole (inPlace): "the CI
// configuration file of the repository" is not a part of the repository
// that stays, as "the contents of a collection" is.
var wholeFiles = lazyWordSet(`file files document documents`)

// possessedHead returns the head of the noun phrase after the possessive
// "s" at words[k]: its last word before a preposition, a conjunction or a
// clause's end ("the repository's CI configuration file with ...": "file").
func possessedHead(words []string, k int) string {
	head := ""
	for j := k + 1; j < len(words) && j <= k+5; j++ {
		w := words[j]
		if objectPrepositions()[w] || w == "and" || w == "or" || w == "for" || w == "of" || w == "with" || w == "by" || clauseEnds()[w] {
			break
		}
		head = w
	}
	return head
}

// objectOf returns where verb is in words (-1: not there) and the head of
// its object: the first word after it past determiners and the like.
func objectOf(verb string, words []string) (int, string) {
	for i, w := range words {
		if base, _ := lookupVerb(w, true); base != verb {
			continue
		}
		rest := words[i+1:]
		for k := 0; k < len(rest); k++ {
			if n := quantifierLen(rest[k:]); n > 0 {
				k += n - 1
				continue
			}
			if partitiveNouns()[rest[k]] && k+2 < len(rest) && rest[k+1] == "of" {
				// "a page of results", "a list of users": the head is
				// what the measure counts.
				k++
				continue
			}
			if !objectSkips()[rest[k]] {
				return i, rest[k]
			}
		}
		return i, ""
	}
	return -1, ""
}

// partitiveNouns measure out what follows their "of" ("a page of
// results", "a batch of records", "a list of users"): the object's head
// is that, not the measure, so a page of results is no web page.
var partitiveNouns = lazyWordSet(`page pages list lists set sets batch batches chunk chunks subset subsets sample samples series`)

// quantifierLen returns the number of words of a quantifier that words
// starts with ("one or more", "zero or more", "2 or more", "one or
// several"), 0 when there is none: the object of a verb follows it, and
// its "or" joins no second verb or object.
func quantifierLen(words []string) int {
	if len(words) < 3 || words[1] != "or" {
		return 0
	}
	switch words[0] {
	case "zero", "one", "two", "three", "several":
	default:
		if words[0] == "" || strings.Trim(words[0], "0123456789") != "" {
			return 0
		}
	}
	switch words[2] {
	case "more", "several", "many":
		return 3
	}
	return 0
}

// Description patterns of the annotation rules (compiled in
// compiledToolMatchers).
const (
	// readOnlyClaimExpr recognises descriptions that scope an execution
	// verb ("Run a read-only SQL query"): the run is then no evidence of a
	// write.
	readOnlyClaimExpr = `\bread[- ]?only\b|\bwithout (?:making )?(?:any )?(?:changes|modif\w+|side effects)\b|\bno side effects\b|\bdoes not (?:modify|change|write)\b`
	// strongDestroyExpr finds destructive phrases anywhere in a description.
	// An update of an existing resource's fields is not destructive
	// (docs/rules.md, MCPG-A002): replacing or overwriting it is.
	// "Replacing it if it exists" is an overwrite by another name (a
	// write_file that replaces the file there); "replacing any file
	// there" names no file that exists and stays at most the lead verb's
	// evidence.
	strongDestroyExpr = `\b(?:overwrit\w*|permanently (?:delete|remove|erase)\w*|replaces? (?:an )?existing\b|replac(?:e|es|ed|ing) (?:it|them|the (?:file|files|document|documents)) if (?:it|they) (?:already )?exists?\b|irreversibl\w*|cannot be undone)`
	// idempotentClaimExpr recognises creation that is idempotent by design,
	// also where the description says a repeated call is safe ("Safe to
	// call multiple times", "safe to retry"), what a repeated call
	// returns ("returns the existing identity if already registered") or
	// finds ("0 on duplicate", "duplicates are ignored"), that it gets or
	// creates in either order ("Create or get an AWS external ID"), or that it
	// creates only what is missing ("if it does not exist", "if the
	// project does not exist, it will be created": the subject may be a
	// noun phrase). What a repeated call finds already there is said to be
	// skipped or left as it is ("entities whose name is already in the
	// graph are skipped", "a relation already in the graph is not added
	// again", "nothing changes if the key is already present"), and an
	// overwrite is named in the other languages the descriptions are
	// written in as well as in English (überschrieben, sobrescribe,
	// écrasé, sovrascritto, 覆盖, 上書き, 덮어씁니다): the repeat leaves the
	// same state.
	idempotentClaimExpr = `\balready\b[^.;!?]{0,60}?\b(?:skipped|ignored|left as (?:it is|they are|is)|left unchanged|not (?:added|created|inserted|appended|written) (?:again|twice))\b|\b(?:nothing (?:changes|happens)|does nothing|no change is made)\b[^.;!?]{0,40}?\b(?:if|when)\b[^.;!?]{0,40}?\balready\b|\bif (?:it |they |(?:the|a|an|this|that|your|its) [a-z][a-z0-9_-]* )?(?:is|are) already (?:present|there|listed|in)\b|überschr(?:ieb|eib)|sobrescr(?:ib|ev)|(?:é|e)cras(?:é|e)|sovrascri|覆盖|上書き|덮어(?:쓰|씁|써|쓴)|\bsafe to (?:retry|re-?run|(?:call|run|invoke|repeat)(?: it| this)? (?:multiple times|several times|more than once|again|repeatedly))\b|\bif (?:it is |it's |they are )?already (?:exists?|registered|created|installed|present|added|set up|configured)\b|\breturns? (?:the |an? )?existing\b|\bensur\w*|\bif (?:it |they |(?:the|a|an|this|that|your|its) [a-z][a-z0-9_-]* )?(?:does not|doesn't|do not|don't) (?:already )?exist|\balready exist\w*|\bor update\b|\b(?:gets?|finds?|fetch(?:es)?|retrieves?|returns?|reuses?|looks? up) or (?:creates?|adds?|makes?)\b|\b(?:creates?|adds?|makes?) or (?:gets?|finds?|fetch(?:es)?|retrieves?|returns?|reuses?|looks? up)\b|\bupsert|\bidempotent|\balready (?:indexed|queued|submitted|known|recorded|tracked|stored|saved|imported|uploaded|subscribed|applied)\b|\b(?:on|for) (?:a )?duplicate\b|\bduplicates? (?:are|is|will be) (?:ignored|skipped|detected|rejected|merged)\b|\bdeduplicat\w*|\b(?:skips?|ignores?) (?:existing|duplicates?)\b|\bno-?op\b|\boverwrit\w*|\b(?:create|replace)s? \(?or (?:create|replace)\b`
)

// httpMethods follow "http" in a name that makes a request
// ("http_get"): the method, not a read or a write of the vendor's data.
var httpMethods = lazyWordSet(`get post put patch delete head options request fetch call`)

// netParams are parameter names that address the network.
var netParams = lazyWordSet(`url urls endpoint webhook webhookurl callbackurl callback recipient recipients email emails emailaddress host hostname`)

// urlish are parameter name words that make format "uri" a network address.
var urlish = lazyWordSet(`url link endpoint webhook callback href site page`)

// toolEvidence gathers the evidence classes of a tool.
type toolEvidence struct {
	name, title, annTitle, desc, params []verbEvidence
	descReadOnly                        bool   // the description scopes itself as read-only
	descUnread                          bool   // the description is in a language not read here
	descPhrase                          string // the strongDestroyExpr phrase the description affirms
	descView                            string
}

func (e *toolEvidence) all() []verbEvidence {
	var out []verbEvidence
	out = append(out, e.name...)
	out = append(out, e.title...)
	out = append(out, e.annTitle...)
	out = append(out, e.desc...)
	out = append(out, e.params...)
	return out
}

// classesOf returns the union of classes of ev, and per class the first
// piece of evidence.
func classesOf(ev []verbEvidence) verbClass {
	var c verbClass
	for _, e := range ev {
		c |= e.class
	}
	return c
}

func (a *toolAnalysis) gatherEvidence(t *Tool) *toolEvidence {
	e := &toolEvidence{}
	nameWords := a.cur.nameWords(t)
	nv, at := nameVerbs(nameWords)
	if at >= 0 && len(nv) > 0 && membership(nameWords, at, true) {
		nv[0] = asMembership(nv[0])
	}
	e.name = tagEvidence(judgeObjects(adjust(nv, nameWords), nameWords, true), "name")
	if classesOf(e.name)&^classNeutral == 0 {
		for i, w := range nameWords {
			// "eval_results", "shell_history": a modifier of the noun
			// after it, not the tool's action.
			if execNouns()[w] && !(i+1 < len(nameWords) && nounFollowers()[nameWords[i+1]]) {
				e.name = append(e.name, verbEvidence{class: classExec, word: w, source: "name"})
				break
			}
		}
	}
	// clauseOf reads a first clause, unread its unreadLanguage, past the
	// fillers and the words of own that lead it (a server prefix).
	clauseOf := func(first string, unread bool, own []string) []verbEvidence {
		if unread {
			return nil
		}
		w := skipFillers(tlWords(first), own)
		return judgeObjects(adjust(clauseVerbs(w), w), w, false)
	}
	// A title skips only the name's words before its verb ("GitHub Create
	// Issue" for github_create_issue): one that starts with the name's
	// object is a noun phrase ("SQL Query" for execute_sql), which claims
	// no action.
	titleOwn := nameWords
	if at >= 0 {
		titleOwn = nameWords[:at]
	}
	title := func(s string) []verbEvidence {
		first := tlFirstClause(s)
		return bringsNew(clauseOf(first, unreadLanguage(first), titleOwn), skipFillers(tlWords(first), titleOwn), e.name)
	}
	// The words of the first clauses read, for infoText.
	var titleClauses, annTitleClauses, descClauses []string
	if v := t.Value.Get("title"); v.IsString() {
		e.title = tagEvidence(title(a.cur.view(v.Str)), "title")
		titleClauses = tlWords(tlFirstClause(a.cur.view(v.Str)))
	}
	if v := t.Value.Get("annotations").Get("title"); v.IsString() {
		e.annTitle = tagEvidence(title(a.cur.view(v.Str)), "annotations.title")
		annTitleClauses = tlWords(tlFirstClause(a.cur.view(v.Str)))
	}
	if v := t.Value.Get("description"); v.IsString() {
		e.descView = a.cur.view(v.Str)
		first := tlFirstSentence(e.descView)
		e.descUnread = unreadLanguage(first)
		// The first clause is cut from this first sentence; most often it
		// is the whole sentence, whose language was just read.
		fc := tlSentenceClause(first)
		fcUnread := e.descUnread
		if fc != first {
			fcUnread = unreadLanguage(fc)
		}
		e.desc = tagEvidence(clauseOf(fc, fcUnread, nameWords), "description")
		if !fcUnread {
			descClauses = tlWords(fc)
		}
		if len(e.desc) == 0 && !fcUnread {
			e.desc = returnedData(skipFillers(tlWords(fc), nil))
		}
		if len(e.desc) > 0 && !fcUnread {
			e.desc = append(e.desc, destroysItToo(descClauses)...)
		}
		// first is a prefix of the view: what the view does not admit,
		// first does not match.
		e.descReadOnly = a.cur.admits(auxReadOnlyClaim) && a.m.readOnlyClaim.MatchString(first)
		if m := a.cur.admitted(auxStrongDestroy, a.m.strongDestroy, e.descView); m != "" && !e.descUnread && !harmlessOverwrite(e.descView, m) && !negatedPhrase(e.descView, m) && !possibleFate(e.descView, m) {
			e.desc = append(e.desc, verbEvidence{class: classDestroy, word: m, source: "description"})
			e.descPhrase = m
		}
	}
	// A name that unlinks, detaches or unassigns (linkVerbs) says what
	// its description's "remove" removes: a link ("detach_policy":
	// "Removes the policy from the role"), which the opposite call
	// restores. A deletion the description adds ("and deletes it") is
	// another verb and stays, and so does a "remove" with nothing to
	// remove it from ("Remove the device and all its recordings"): only
	// "remove X from Y" (removesFrom) names the link.
	if slices.ContainsFunc(e.name, func(n verbEvidence) bool { return linkVerbs()[n.word] && n.class&classDestroy == 0 }) && removesFrom(descClauses) {
		for k, d := range e.desc {
			if d.word == "remove" {
				e.desc[k] = asMembership(d)
			}
		}
	}
	// The name's verb is read with the object its description gives it:
	// "add" is arithmetic in "Add two numbers", a membership change in
	// "Add droplets to a firewall".
	// A weak name word the description, read, does not confirm is a noun.
	e.title = sharedReading(e.title, e.desc, e.name)
	e.annTitle = sharedReading(e.annTitle, e.desc, e.name)
	readable := e.descView != "" && !e.descUnread
	text := append(append(e.desc, e.title...), e.annTitle...)
	kept := e.name[:0]
	for _, n := range e.name {
		confirmed := false
		for _, d := range text {
			if d.word == n.word {
				n.class, n.weak, confirmed = d.class, false, true
				break
			}
		}
		if n.weak && !confirmed && readable {
			continue
		}
		// A name's verb that a title or description which reads names
		// as the topic of what it returns ("extension_cli_install":
		// "Get CLI installation instructions"), or whose object is
		// guidance ("write_pubnub_app": "Get PubNub Best Practices"),
		// reads too.
		if !confirmed && (infoText(titleClauses, e.title, n.word, nameWords) || infoText(annTitleClauses, e.annTitle, n.word, nameWords) || readable && infoText(descClauses, e.desc, n.word, nameWords) ||
			readable && nounUse(descClauses, e.desc, n.word) || nounUse(titleClauses, e.title, n.word) || nounUse(annTitleClauses, e.annTitle, n.word)) {
			n.class, n.weak = classRead, false
		}
		kept = append(kept, n)
	}
	e.name = kept
	for i := 0; i+1 < len(nameWords); i++ {
		// "http_get", "httpPost", "https_request": an HTTP method after
		// "http" is a request to whatever URL the call names.
		if (nameWords[i] == "http" || nameWords[i] == "https") && httpMethods()[nameWords[i+1]] {
			e.name = append(e.name, verbEvidence{class: classNet, word: nameWords[i], source: "name", object: "url"})
			break
		}
	}
	for _, p := range a.cur.params(t) {
		key := strings.Join(p.words, "")
		switch {
		case netParams()[key] || p.format == "email" || p.format == "idn-email":
			e.params = append(e.params, verbEvidence{class: classNet, word: p.name, source: "parameter"})
		case p.format == "uri" || p.format == "iri" || p.format == "uri-reference":
			for _, w := range p.words {
				if urlish()[w] {
					e.params = append(e.params, verbEvidence{class: classNet, word: p.name, source: "parameter"})
					break
				}
			}
		}
	}
	return e
}

// destroysItToo returns the destruction that a first clause adds after
// its lead verb's object with "and" or "then" and a pronoun for that
// object ("Detaches the volume from the instance and deletes it",
// "Exports the rows, then drops them"): the same thing, destroyed. Another
// object ("and removes duplicates from the results") is not read: it may
// be a value the tool computes on.
func destroysItToo(words []string) []verbEvidence {
	for k := 1; k+2 < len(words); k++ {
		if clauseEnds()[words[k]] && words[k] != "then" {
			return nil
		}
		if words[k] != "and" && words[k] != "then" {
			continue
		}
		base, c := lookupVerb(words[k+1], true)
		if c&classDestroy != 0 && (words[k+2] == "it" || words[k+2] == "them") {
			return []verbEvidence{{class: c, word: base, source: "description", object: words[k+2]}}
		}
	}
	return nil
}

// bringsNew reads a title's reading verb before "new" as the creation of
// a name that creates: "Open new pull request" for create_pull_request
// opens one that did not exist. Before a name that reads ("Get new
// messages" for list_messages) it stays a read.
func bringsNew(title []verbEvidence, words []string, name []verbEvidence) []verbEvidence {
	if len(title) != 1 || title[0].class != classRead || classesOf(name)&classNonIdem == 0 || len(words) < 2 {
		return title
	}
	next := words[1]
	if determiners()[next] && len(words) > 2 {
		next = words[2]
	}
	if next == "new" {
		title[0].class = classMutate | classNonIdem
	}
	return title
}

// sharedReading reads each verb of a title with the object the
// description or the name gives the same verb: a title restates the
// action in a few words and often drops the container ("Remove member"
// for teams-remove-member, whose description removes a member from a
// team; "Remove domain" where the description removes a domain from a
// project). The description's reading wins; the name's only where it is
// milder, because the name's words can only have shown a container or a
// reference (membership, judgeObjects), never a worse act.
func sharedReading(title, desc, name []verbEvidence) []verbEvidence {
	for k, t := range title {
		if d := slices.IndexFunc(desc, func(d verbEvidence) bool { return d.word == t.word }); d >= 0 {
			title[k].class = desc[d].class
			continue
		}
		if n := slices.IndexFunc(name, func(n verbEvidence) bool { return n.word == t.word && !n.weak }); n >= 0 {
			if harsh := classDestroy | classNonIdem; t.class&harsh&^name[n].class != 0 && name[n].class&harsh&^t.class == 0 {
				title[k].class = name[n].class
			}
		}
	}
	return title
}

// nounUse reports whether words, a first clause whose evidence ev is a
// read and nothing else, use verb as a noun: after a determiner ("Check
// whether an update is available" for update_available), a preposition
// ("Look for updates") or, in the plural, right after the reading verb
// ("Suggest moves for the current position" for move_suggestions): the name's word names what the tool reads about, not
// what it does. A clause with another action, or the verb itself in verb
// position, claims no read.
func nounUse(words []string, ev []verbEvidence, verb string) bool {
	if len(ev) == 0 || classesOf(ev) != classRead {
		return false
	}
	// The evidence holds the clause's lead verbs; an action the clause
	// adds after them with "and" or "then" ("Check whether an update is
	// available and install it") is another action all the same.
	for k := 1; k+1 < len(words); k++ {
		if words[k] != "and" && words[k] != "then" {
			continue
		}
		if _, c := lookupVerb(words[k+1], true); c != 0 && c&classRead == 0 {
			return false
		}
	}
	for k := 1; k < len(words); k++ {
		w := words[k]
		if w != verb && w != verb+"s" && w != verb+"es" {
			continue
		}
		if p := words[k-1]; objectIntroducers()[p] || p == "no" || p == "for" || p == "about" || p == "of" {
			return true
		}
		if k == 1 && w != verb {
			return true // "Suggest moves for the position": the plural is the reading verb's object
		}
	}
	return false
}

// infoText reports whether words, a first clause whose evidence ev is a
// read and nothing else ("Get CLI installation instructions"), name verb
// as the topic of the information the tool returns: the verb, or a noun
// derived from it ("installation", "deployment", "migration",
// "configuration"), right before an information noun; or guidance in the
// object of the clause's verb ("Get PubNub best practices" for
// write_pubnub_app, "Get instructions for creating a component" for
// create_component): advice on the action, which the tool does not do.
// Guidance that the name also names is the object of both verbs, not
// advice ("Get the docs" for delete_docs). A clause without a verb, or
// with another action, claims no read.
func infoText(words []string, ev []verbEvidence, verb string, name []string) bool {
	if len(ev) == 0 || classesOf(ev) != classRead {
		return false
	}
	stem := strings.TrimSuffix(verb, "e")
	for k := 1; k < len(words); k++ {
		if !infoNouns()[words[k]] {
			continue
		}
		switch words[k-1] {
		case verb, stem + "ation", stem + "ion", verb + "ment", verb + "ation":
			return true
		}
	}
	for i, w := range words {
		if _, c := lookupVerb(w, true); c != 0 {
			for _, o := range objectPhrase(words, i, false) {
				if guidanceNouns()[o] && !slices.Contains(name, o) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// guidanceNouns are the advice a tool returns about an action: an
// information noun's object is the action it guides.
var guidanceNouns = lazyWordSet(`instructions instruction docs doc documentation guide guides howto readme tutorial tutorials
	manual practices`)

// returnedNouns are what a description that opens with a noun phrase
// says the tool returns ("History of publishes", "Number of installs of an
// app", "Status of a pipeline run").
var returnedNouns = lazyWordSet(`history count counts number numbers status statuses list details detail report reports
	result results info information summary overview statistics stats metrics logs names total totals breakdown usage
	quota schema metadata contents`)

// returnedData returns read evidence for a description's first clause
// (words) that has no leading verb and opens with what the tool returns:
// a returnedNouns word followed by "of", "for", "about", "on" or "per".
// A name's verb then modifies that noun ("publish_history") and is a weak
// signal alone. A title gets none: a title that names data is no claim.
func returnedData(words []string) []verbEvidence {
	if len(words) < 2 || !returnedNouns()[words[0]] {
		return nil
	}
	switch words[1] {
	case "of", "for", "about", "on", "per":
		return []verbEvidence{{class: classRead, word: words[0], source: "description"}}
	}
	return nil
}

// existingVerbs find or change what exists: "create or get", "get or
// create", "find or create", "create or update" (upsert) make one at most.
var existingVerbs = lazyWordSet(`get find fetch retrieve load open reuse update replace`)

// orExisting reports whether a split name coordinates a verb that adds
// with one that finds or changes what exists, by "or" ("create_or_get_user",
// "getOrCreateLabel"): idempotent by design, whatever the description's
// language.
func orExisting(words []string) bool {
	for k := 1; k+1 < len(words); k++ {
		if words[k] != "or" {
			continue
		}
		_, a := lookupVerb(words[k-1], false)
		_, b := lookupVerb(words[k+1], false)
		if a&classNonIdem != 0 && existingVerbs()[words[k+1]] || b&classNonIdem != 0 && existingVerbs()[words[k-1]] {
			return true
		}
	}
	return false
}

// phraseNegators deny the action that follows them within a few words
// ("without overwriting", "never deletes", "does not overwrite", "instead
// of overwriting"; "t" is what is left of "won't" and "doesn't"), as do
// the verbs that keep it from happening ("which prevents overwriting
// someone else's changes", "to avoid overwriting", "protects against
// overwriting").
var phraseNegators = lazyWordSet(`without never not no nor cannot instead t prevent prevents preventing avoid avoids avoiding against`)

// negatedPhrase reports whether the first occurrence of a destructive
// phrase m in view is denied by one of the three words before it in its
// sentence: "Atomically create a Markdown note without overwriting an
// existing file" says the tool does not overwrite.
func negatedPhrase(view, m string) bool {
	words, ok := wordsBefore(view, m, ".;!?")
	if !ok {
		return false
	}
	for k := len(words) - 1; k >= 0 && k >= len(words)-3; k-- {
		if phraseNegators()[words[k]] {
			return true
		}
	}
	return false
}

// wordsBefore returns the words before the first occurrence of m in view,
// back to the last of stops before it (its sentence); ok is false when
// view does not hold m.
func wordsBefore(view, m, stops string) (words []string, ok bool) {
	i := strings.Index(view, m)
	if i < 0 {
		return nil, false
	}
	before := view[:i]
	if k := strings.LastIndexAny(before, stops); k >= 0 {
		before = before[k+1:]
	}
	return tlWords(before), true
}

// possibleFate reports whether the destructive phrase m of view is what
// may happen to the objects a relative clause describes, not what the tool
// does: "Returns collectives that have been soft-deleted and can be
// restored or permanently deleted" (a modal passive, "can be … deleted",
// after "that" or "which" in the same sentence, with at most one other
// participle coordinated before it). "Notes are permanently deleted" and
// "Existing files may be overwritten" (no relative clause) stay evidence.
func possibleFate(view, m string) bool {
	words, ok := wordsBefore(view, m, ".;!?:")
	if !ok {
		return false
	}
	n := len(words)
	// "can be", "can be restored or", "may later be"
	for k := n - 1; k >= 1 && k >= n-4; k-- {
		if words[k] != "be" {
			continue
		}
		if j := k - 1; !fateModals()[words[j]] && (j < 1 || !fateModals()[words[j-1]]) {
			return false
		}
		if between := words[k+1:]; len(between) > 0 && (len(between) != 2 || between[1] != "or" && between[1] != "and") {
			return false
		}
		for r := k - 2; r >= 0 && r >= k-10; r-- {
			if words[r] == "that" || words[r] == "which" {
				return true
			}
		}
		return false
	}
	return false
}

// fateModals say what may happen, not what does.
var fateModals = lazyWordSet(`can could may might`)

// noWriteRE finds a description's statement that the tool stores nothing.
var noWriteRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:nothing is (?:written|stored|saved|changed|modified|persisted)|(?:writes|stores|changes|modifies|persists) nothing)\b`)
})

// withoutPlainWrites drops the evidence that only writes or adds (create,
// update), keeping what deletes, runs or sends.
func withoutPlainWrites(ev []verbEvidence) []verbEvidence {
	out := make([]verbEvidence, 0, len(ev))
	for _, e := range ev {
		if e.class&(classDestroy|classExec|classSend) == 0 && e.class&(classMutate|classNonIdem) != 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// uniqueKeyRE finds a parameter description that says its value must be
// unique ("must be unique within the portal").
var uniqueKeyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:must|should|has to|needs to) be (?:globally )?unique\b`)
})

// uniquelyKeyed reports whether a tool takes a required parameter whose
// value the caller chooses and must be unique (a slug, a subdomain, a
// key): a repeated call with the same arguments finds it taken and makes
// nothing twice (real: SmartBear's swagger_create_portal, whose required
// subdomain "Must be unique").
func uniquelyKeyed(params []toolParam) bool {
	for _, p := range params {
		if p.required && !p.object && !p.closed && uniqueKeyRE().MatchString(p.desc) {
			return true
		}
	}
	return false
}

// pathNamed are objects whose caller-given name is their address in a
// namespace that holds one of each name (a mailbox or a folder path, a
// bucket, a branch, a database, a table): creating one again under the same
// name finds it there and makes no second one.
var pathNamed = lazyWordSet(`mailbox mailboxes folder folders directory directories dir dirs bucket buckets branch branches namespace namespaces database databases schema schemas table tables topic topics queue queues`)

// createsNamedPath reports whether a tool's name creates a pathNamed
// object (create_mailbox, make_folder: the creating verb right before the
// noun) and the tool takes a required free-text parameter that names or
// locates it (name, path, or the noun itself): its calls are keyed by that
// name (real: mailbridge-mcp's create_mailbox, required "name", a retried
// IMAP CREATE finds the mailbox exists). Creating content (create_issue,
// create_event) is not keyed, whatever its parameters.
func createsNamedPath(words []string, params []toolParam) bool {
	noun := ""
	for k := 1; k < len(words); k++ {
		if _, cl := lookupVerb(words[k-1], false); cl&classNonIdem != 0 && pathNamed()[words[k]] && k+1 == len(words) {
			noun = words[k]
		}
	}
	if noun == "" {
		return false
	}
	for _, p := range params {
		if !p.required || p.object || p.closed || len(p.words) == 0 {
			continue
		}
		last := p.words[len(p.words)-1]
		if last == "name" || last == "path" || last == noun || last+"s" == noun {
			return true
		}
	}
	return false
}

// repeatKeptRE finds a description's statement of what a repeated call
// meets: the same key replaces what exists ("Rows with an existing id
// are replaced"), or the key is taken or must be unique ("creation fails
// if the name is taken"), or a retry with the same key is recognised.
var repeatKeptRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:existing|same) (?:\w+ ){0,2}(?:is|are|will be|gets?) (?:replaced|updated|overwritten)\b|\b(?:name|key|slug|id|identifier|handle)s? (?:is |are )?(?:already )?(?:taken|in use)\b|\b(?:must|should) be (?:globally )?unique\b|\b(?:names?|keys?|slugs?|ids?) (?:are|is) (?:globally )?unique\b|\bretr(?:y|ies|ied) with the same\b`)
})

// keyedRepeat reports whether a tool makes nothing twice by a key: a
// parameter that is an idempotency key, by its name (idempotency_key,
// IdempotencyToken: the API recognises a retry) or by its description
// (PayPal's sender_batch_id, "Your idempotency key."), or a description
// that says what a repeated call with the same key meets (repeatKeptRE).
// Read only for a tool about to be reported.
func keyedRepeat(params []toolParam, ev *toolEvidence) bool {
	for _, p := range params {
		for _, w := range p.words {
			if strings.HasPrefix(w, "idempoten") || strings.HasPrefix(w, "dedup") {
				return true
			}
		}
		if p.desc != "" && namesIdempotencyKey(tlWords(p.desc)) {
			return true
		}
	}
	return ev.descView != "" && !ev.descUnread && repeatKeptRE().MatchString(ev.descView)
}

// namesIdempotencyKey reports whether a parameter's description words say
// it is an idempotency or deduplication key ("Your idempotency key.",
// "Idempotency token for safe retries"), not that something is not
// idempotent ("retries are not idempotent").
func namesIdempotencyKey(words []string) bool {
	for i, w := range words {
		if !strings.HasPrefix(w, "idempoten") && !strings.HasPrefix(w, "dedup") {
			continue
		}
		if i > 0 && (words[i-1] == "not" || words[i-1] == "non") {
			continue
		}
		if i+1 < len(words) && (words[i+1] == "key" || words[i+1] == "token" || words[i+1] == "id" || words[i+1] == "identifier") {
			return true
		}
	}
	return false
}

// repeatDisputed reports whether the evidence that each call adds
// something (bad) comes from the name alone or from the text alone, and
// the other source names a change that a repeat does not add to (the
// name "update_dispute" under "Submit evidence for a dispute"): the two
// disagree on what a retry does, and one source is a note.
func repeatDisputed(bad, all []verbEvidence) bool {
	fromName, fromText := false, false
	for _, e := range bad {
		if e.source == "name" {
			fromName = true
		} else {
			fromText = true
		}
	}
	if fromName == fromText {
		return false
	}
	for _, e := range all {
		if e.weak || e.source == "parameter" || (e.source == "name") == fromName {
			continue
		}
		if e.class&(classMutate|classDestroy) != 0 && e.class&(classNonIdem|classSend|classExec) == 0 {
			return true
		}
	}
	return false
}

// harmlessOverwrite reports whether what a destructive phrase m of view
// overwrites or replaces is empty or a reference ("overwrite existing
// empty cells", "replaces existing tags"), or backed up first in the same
// sentence: nothing is lost.
func harmlessOverwrite(view, m string) bool {
	i := strings.Index(view, m)
	if i < 0 {
		return false
	}
	// "Creates a .bak backup before overwriting": what is overwritten is
	// kept.
	before := view[:i]
	if k := strings.LastIndex(before, ". "); k >= 0 {
		before = before[k+2:]
	}
	if strings.Contains(before, "backup") || strings.Contains(before, "back up") || strings.Contains(before, "backs up") || strings.Contains(before, ".bak") {
		return true
	}
	lm := strings.ToLower(m)
	if !strings.HasPrefix(lm, "overwrit") && !strings.HasPrefix(lm, "replace") {
		return harmlessObject(view[i+len(m):])
	}
	// A version history keeps what is overwritten, like a backup:
	// "With overwrite the saved version replaces the current one; earlier
	// versions stay in the dashboard history."
	if versionsKeptRE().MatchString(view) {
		return true
	}
	// What is overwritten is one setting's value ("Setting it again
	// overwrites the previous value"): the update in place of a field,
	// which the previous value is one more update away from.
	rest := view[i+len(m):]
	object := rest
	if end := strings.IndexAny(object, ".;,:!?"); end >= 0 {
		object = object[:end]
	}
	if w := tlWords(object); len(w) > 0 && len(w) <= 4 {
		// "the fields given": the head before a participle that only
		// points at the arguments.
		head := w[len(w)-1]
		if len(w) > 1 && argParticiples()[head] {
			head = w[len(w)-2]
		}
		if settingValueNouns()[head] {
			return true
		}
	}
	return harmlessObject(rest)
}

// harmlessObject reports whether the three words after a destructive
// phrase name what is empty or a reference ("overwrite existing empty
// cells", "replaces existing tags").
func harmlessObject(rest string) bool {
	after := tlWords(rest)
	if len(after) > 3 {
		after = after[:3]
	}
	for _, w := range after {
		if w == "empty" || w == "blank" || w == "unused" || referenceNouns()[w] {
			return true
		}
	}
	return false
}

// versionsKeptRE finds a description's statement that earlier versions
// of what the tool writes are kept ("earlier versions stay in the
// dashboard history", "old versions remain", "Drive keeps previous
// revisions", "a revision of the previous content is stored"): an
// overwrite there loses nothing, and a replacement the lead verb names
// ("Replace the body of a page. The previous version stays in the page
// history") can be had back, as a deletion to the trash can (undoable).
var versionsKeptRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:earlier|previous|prior|older|old) (?:versions?|revisions?) (?:stays?|remains?|(?:is|are) (?:kept|retained|preserved|stored)|(?:can|may) (?:still )?be (?:restored|read|retrieved))\b|\b(?:keeps?|retains?|preserves?) (?:the |all )?(?:earlier|previous|prior|older|old) (?:versions?|revisions?)\b|\ba (?:new )?(?:version|revision) of the (?:previous|old|current) (?:content|version|value)s? is (?:kept|stored|saved)\b`)
})

// settingValueNouns end the object of an overwrite that replaces one
// setting's value or the fields of a record in place ("overwrites the
// previous value", "overwriting the fields given"), not content. "values"
// is not among them: a sheet's values are its content.
var settingValueNouns = lazyWordSet(`value setting settings preference preferences field fields attribute attributes property properties`)

// argParticiples follow a noun to point at the call's arguments ("the
// fields given").
var argParticiples = lazyWordSet(`given provided specified supplied passed`)

// tlFirstClause is the first sentence of a match view up to a colon or a
// dash that introduces a list or a definition ("Store details: name,
// address").
func tlFirstClause(s string) string { return tlSentenceClause(tlFirstSentence(s)) }

// tlSentenceClause is tlFirstClause of a text whose first sentence is f.
func tlSentenceClause(f string) string {
	for _, sep := range []string{": ", " - ", " — ", " – "} {
		if i := strings.Index(f, sep); i >= 0 {
			f = f[:i]
		}
	}
	return strings.TrimSuffix(f, ":")
}

// skipFillers drops leading filler words, adverbs and the tool's own name
// words (own, the split name, for a description) from a description's
// first sentence. A name word followed by a determiner takes an object:
// it is the clause's verb, one the lexicon does not know ("Resize a
// droplet to a new size" for droplet-resize), and the skipping stops
// there, before it reaches a word of the object ("new").
func skipFillers(words, own []string) []string {
	i := 0
	for i < len(words) && (leadFillers()[words[i]] || ownWord(words, i, own) || strings.HasSuffix(words[i], "ly") && len(words[i]) > 4) {
		i++
	}
	return words[i:]
}

// ownWord reports whether words[i] is a word of the name (own) that
// skipFillers may skip: not a known verb, not followed by a determiner,
// and not the "dry" of a dry run, which changes the verb after it
// ("Dry-run a migration" for dry_run_migration runs nothing).
func ownWord(words []string, i int, own []string) bool {
	if !tlHas(own, words[i]) || verbLexicon()[words[i]] != 0 || dryRun(words, i+1) {
		return false
	}
	return i+1 >= len(words) || !determiners()[words[i+1]] && !verbParticles()[words[i+1]]
}

// determiners open a noun phrase: the word before one takes it as its
// object.
var determiners = lazyWordSet(`a an the this these those its your my our their every each`)

// verbParticles follow a verb to take its object ("Subscribe to change
// events", "Listen for updates"): a name word before one, heading the
// description, is the clause's verb, as before a determiner, and "to
// change" there is no infinitive of the tool's own.
var verbParticles = lazyWordSet(`to for from into onto`)

func tagEvidence(ev []verbEvidence, source string) []verbEvidence {
	for i := range ev {
		ev[i].source = source
	}
	return ev
}

// hint is one annotation of a tool.
type annHint struct {
	present bool
	value   bool
	boolean bool // a JSON boolean (false: present but another type)
	ptr     string
	pos     jsonc.Pos
	raw     *jsonc.Value
}

func readHint(t *Tool, ann *jsonc.Value, name string) annHint {
	m := ann.Member(name)
	if m == nil {
		return annHint{}
	}
	h := annHint{present: true, ptr: t.Pointer + "/annotations/" + name, pos: m.Value.Pos, raw: m.Value}
	if m.Value.Kind == jsonc.Bool {
		h.boolean, h.value = true, m.Value.Bool
	}
	return h
}

// annotationRules runs A001–A005 on a tool.
func (a *toolAnalysis) annotationRules(t *Tool) {
	ev := a.gatherEvidence(t)
	// A005: a displayed title strictly safer than the name (annotations
	// or not).
	a.titleRule(t, ev)
	ann := t.Value.Get("annotations")
	if ann == nil || ann.Kind != jsonc.Object {
		return
	}
	ro := readHint(t, ann, "readOnlyHint")
	de := readHint(t, ann, "destructiveHint")
	id := readHint(t, ann, "idempotentHint")
	ow := readHint(t, ann, "openWorldHint")
	// A005: a hint of another type. JavaScript clients read any non-empty
	// string (even "false") and any non-zero number as true.
	for _, h := range []struct {
		name string
		h    annHint
	}{{"readOnlyHint", ro}, {"destructiveHint", de}, {"idempotentHint", id}, {"openWorldHint", ow}} {
		if h.h.present && !h.h.boolean && h.h.raw.Kind != jsonc.Null {
			a.add(ruleA005, h.h.pos, h.h.ptr, fmt.Sprintf("tool %s: %s is a JSON %s, not a boolean; clients disagree on what it means (JavaScript reads any non-empty string, even \"false\", as true)",
				QuoteName(t.Name), h.name, h.h.raw.Kind),
				map[string]any{"kind": "non-boolean-hint", "tool": t.Name, "hint": h.name, "value": tlValueText(h.h.raw)}, "non-boolean", h.name)
		}
	}
	all := ev.all()
	if ev.descReadOnly {
		// "Run a read-only query": the description's own verbs are no
		// evidence of writes or execution; the name and parameters still are.
		all = withoutExecFromDescription(all)
	}
	readOnly := ro.boolean && ro.value

	// A001: readOnlyHint true on a tool that writes, deletes, executes or sends.
	if readOnly {
		a1 := all
		if ev.descView != "" && !ev.descUnread && noWriteRE().MatchString(ev.descView) {
			// "Create a share link … Nothing is written": what the verb
			// makes is computed (a signed URL), stored nowhere. Deleting,
			// running and sending still count.
			a1 = withoutPlainWrites(all)
		}
		if bad := pickEvidence(a1, classMutate|classDestroy|classExec|classSend); len(bad) > 0 {
			f := a.add(ruleA001, ro.pos, ro.ptr, fmt.Sprintf("tool %s is annotated readOnlyHint: true but %s; clients that auto-approve read-only tools run it without asking",
				QuoteName(t.Name), describeEvidence(bad)), annEvidence(t, "readOnlyHint", bad), "readOnlyHint")
			graded(f, bad, all, 3)
		}
	}
	// A002: destructiveHint false on a tool that deletes or overwrites
	// (meaningful only when readOnlyHint is false).
	if !readOnly && de.boolean && !de.value {
		if bad := pickEvidence(all, classDestroy); len(bad) > 0 {
			f := a.add(ruleA002, de.pos, de.ptr, fmt.Sprintf("tool %s is annotated destructiveHint: false but %s",
				QuoteName(t.Name), describeEvidence(bad)), annEvidence(t, "destructiveHint", bad), "destructiveHint")
			// With readOnlyHint false a client still asks before the call;
			// destructiveHint false only spares the extra warning, and
			// authors differ on what counts as destructive (cancelling,
			// overwriting). So the finding is an error where the
			// description says the tool destroys and the name that it
			// changes something ("put_file": "Replaces an existing file"),
			// and a note on the name alone or the description alone.
			f.Severity = reports.SeverityNote
			if saysDestroys(bad) && strength(bad, all) == 3 && !undoable(ev, bad) {
				f.Severity = reports.SeverityError
			}
		}
	}
	// A003: openWorldHint false on a tool that reaches what is outside any
	// one service: code or commands it runs, a URL it is given, an address
	// it sends to. A tool that calls its own vendor's API is a closed world
	// whatever its verb (fetch, run, upload, send).
	if ow.boolean && !ow.value {
		if bad := openWorld(all); len(bad) > 0 {
			f := a.add(ruleA003, ow.pos, ow.ptr, fmt.Sprintf("tool %s is annotated openWorldHint: false but %s",
				QuoteName(t.Name), describeEvidence(bad)), annEvidence(t, "openWorldHint", bad), "openWorldHint")
			graded(f, bad, all, 2)
		}
	}
	// A004: idempotentHint true on a tool whose calls each add something
	// (meaningful only when readOnlyHint is false).
	if !readOnly && id.boolean && id.value && !(a.cur.admits(auxIdempotentClaim) && a.m.idempotentClaim.MatchString(ev.descView)) && !orExisting(a.cur.nameWords(t)) && !uniquelyKeyed(a.cur.params(t)) && !createsNamedPath(a.cur.nameWords(t), a.cur.params(t)) {
		if bad := pickEvidence(all, classNonIdem); len(bad) > 0 && !keyedRepeat(a.cur.params(t), ev) {
			f := a.add(ruleA004, id.pos, id.ptr, fmt.Sprintf("tool %s is annotated idempotentHint: true but %s; a client that retries it duplicates the effect",
				QuoteName(t.Name), describeEvidence(bad)), annEvidence(t, "idempotentHint", bad), "idempotentHint")
			graded(f, bad, all, 2)
			if f.Severity == reports.SeverityWarning && repeatDisputed(bad, all) {
				f.Severity = reports.SeverityNote
			}
		}
	}
	// A005: both readOnlyHint and destructiveHint true. MCP defines
	// destructiveHint as meaningful only when readOnlyHint is false, and
	// mark3labs/mcp-go's NewTool writes destructiveHint: true unless the
	// server sets it: a read-only tool of such a server carries both. A
	// note, for the reader of the annotations; clients act on neither.
	if readOnly && de.boolean && de.value {
		f := a.add(ruleA005, de.pos, de.ptr, fmt.Sprintf("tool %s is annotated both readOnlyHint: true and destructiveHint: true (MCP ignores destructiveHint on a read-only tool)", QuoteName(t.Name)),
			map[string]any{"kind": "contradictory", "tool": t.Name}, "contradictory")
		f.Severity = reports.SeverityNote
	}
}

// risk ranks classes for the title comparison.
func verbRisk(c verbClass) int {
	switch {
	case c&(classDestroy|classExec) != 0:
		return 3
	case c&(classMutate|classSend) != 0:
		return 2
	case c&classNet != 0:
		return 1
	}
	return 0
}

// titleRule reports a title or annotations.title whose verbs are all safer
// than the name's ("delete_all_files" shown as "Read a document").
func (a *toolAnalysis) titleRule(t *Tool, ev *toolEvidence) {
	nameRisk := verbRisk(classesOf(ev.name))
	if nameRisk < 2 {
		return
	}
	for _, tt := range []struct {
		ev    []verbEvidence
		field string
	}{{ev.title, "title"}, {ev.annTitle, "annotations/title"}} {
		// A neutral verb ("Trigger the cleanup") claims nothing.
		if c := classesOf(tt.ev); c == 0 || c&classNeutral != 0 || verbRisk(c) >= nameRisk {
			continue
		}
		// The name's own verb ("Cancel Job" for cancel_job, "Execute SQL"
		// for execute_sql) claims the same action: the title and the name
		// differ only in how their objects were read.
		if sharesWord(evidenceWords(tt.ev), evidenceWords(ev.name)) {
			continue
		}
		ptr := t.Pointer + "/" + tt.field
		v := t.Value.Get("title")
		if tt.field != "title" {
			v = t.Value.Get("annotations").Get("title")
		}
		a.add(ruleA005, v.Pos, ptr, fmt.Sprintf("tool %s is shown as %s, which reads safer than its name (%s)",
			QuoteName(t.Name), QuoteName(v.Str), describeEvidence(ev.name)),
			map[string]any{"kind": "title-safer-than-name", "tool": t.Name, "field": strings.ReplaceAll(tt.field, "/", "."),
				"title_verbs": evidenceWords(tt.ev), "name_verbs": evidenceWords(ev.name)}, "title", tt.field)
	}
}

func sharesWord(a, b []string) bool {
	for _, w := range a {
		if slices.Contains(b, w) {
			return true
		}
	}
	return false
}

func evidenceWords(ev []verbEvidence) []string {
	var out []string
	for _, e := range ev {
		out = tlAppendUnique(out, e.word)
	}
	return out
}

func withoutExecFromDescription(ev []verbEvidence) []verbEvidence {
	out := make([]verbEvidence, 0, len(ev))
	for _, e := range ev {
		if e.source == "description" && e.class&classExec != 0 {
			e.class &^= classExec
			if e.class == 0 {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// strength grades the evidence of a contradiction: 3 when the name and a
// description or title agree on the action, 2 for one clear source, 1 for
// a weak one alone (an ambiguous word, a parameter).
func strength(ev, all []verbEvidence) int {
	nameHit, nameStrong, text, other := false, false, false, false
	// The other source agrees when it too says the tool changes
	// something ("put_file": "Replaces an existing file").
	nameChanges, textChanges, textReads := false, false, false
	for _, e := range all {
		if e.class&(classMutate|classDestroy|classExec|classSend) == 0 || e.weak {
			if e.source == "description" && e.class&^classNeutral != 0 && !e.weak {
				textReads = true // "Generate a chart", "Get the report"
			}
			continue
		}
		switch e.source {
		case "name":
			nameChanges = true
		case "description", "title", "annotations.title":
			textChanges = true
		}
	}
	for _, e := range ev {
		switch e.source {
		case "name":
			nameHit = true
			nameStrong = nameStrong || !e.weak
		case "description", "title", "annotations.title":
			if e.weak {
				other = true // "Execute a card": the vendor's operation
			} else {
				text = true
			}
		default:
			other = true
		}
	}
	switch {
	case nameHit && text, nameStrong && textChanges, text && nameChanges:
		return 3
	case nameStrong && textReads && !textChanges:
		// The description, the primary evidence, says the tool reads or
		// computes: the name's verb alone is a weak signal.
		return 1
	case nameStrong || text:
		return 2
	case nameHit || other:
		return 1
	}
	return 0
}

// restorableRE finds a description's statement that what the tool
// deletes can be had back: it "can be restored", goes "to the trash", or
// "itself is kept" (what it removes leaves a container only).
var restorableRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:itself|themselves) (?:is |are )?(?:kept|not (?:deleted|removed|affected|destroyed))\b|\b(?:can|may|could) (?:still |later )?be (?:restored|recovered|undeleted|retrieved)\b|\b(?:restor|recover)\w* (?:it |them )?from (?:the )?(?:trash|bin|recycle bin)\b|\b(?:mov|sen)\w* (?:\w+ ){0,3}to (?:the )?(?:trash|bin|recycle bin)\b|\bsoft[- ]delet`)
})

// undoable reports whether a tool's description, read, says that what it
// deletes or replaces can be restored ("Deleted stories can be restored
// from the trash for 30 days", "The previous version stays in the page
// history", for a replacement only: versionsKeptRE) and names no overwrite and no "cannot be undone"
// (descPhrase): the deletion is reversible, the reading in which authors
// annotate it destructiveHint: false. The name and the description then
// agree on a deletion, not on a destruction.
func undoable(ev *toolEvidence, bad []verbEvidence) bool {
	if ev.descView == "" || ev.descUnread || ev.descPhrase != "" {
		return false
	}
	return restorableRE().MatchString(ev.descView) || onlyReplaces(bad) && versionsKeptRE().MatchString(ev.descView)
}

// onlyReplaces reports whether the destructive evidence of a finding is
// a replacement only: a version history keeps what is replaced, not what
// is deleted ("Delete a document. Previous versions stay in the history"
// still deletes them).
func onlyReplaces(bad []verbEvidence) bool {
	found := false
	for _, e := range bad {
		if e.class&classDestroy == 0 {
			continue
		}
		if !replaceVerbs()[e.word] {
			return false
		}
		found = true
	}
	return found
}

// replaceVerbs put new content in the place of the old.
var replaceVerbs = lazyWordSet(`replace replaces overwrite overwrites rewrite rewrites`)

// transitionVerbs destroy in some readings only: cancelling an order or a
// booking, resetting settings or a password and terminating an employment
// or a contract change the state of a resource that stays, and authors
// annotate them either way. Alone they are context, not a verdict
// ("cannot be undone" beside them still is).
var transitionVerbs = lazyWordSet(`cancel reset terminate`)

// transition reports whether e is a transitionVerbs verb in its state
// reading. Terminating is one only for an agreement (agreementNouns):
// terminating an instance, a cluster or a process ends the thing itself,
// and an object not read ("terminate it") is no agreement either.
func transition(e verbEvidence) bool {
	if e.word == "terminate" {
		return agreementNouns()[e.object]
	}
	return transitionVerbs()[e.word]
}

// agreementNouns are what a termination ends while its record stays: an
// agreement, or the party to one whose employment ends ("an employee's
// employment", whose object is read as "employee").
var agreementNouns = lazyWordSet(`employment employments contract contracts agreement agreements subscription subscriptions
	lease leases membership memberships engagement engagements plan plans policy policies
	employee employees worker workers contractor contractors`)

// saysDestroys reports whether the description or a title (not the name
// alone, not a parameter) gives clear evidence of destruction: a verb
// that destroys in every reading.
func saysDestroys(ev []verbEvidence) bool {
	for _, e := range ev {
		switch e.source {
		case "description", "title", "annotations.title":
			if !e.weak && e.class&classDestroy != 0 && !transition(e) {
				return true
			}
		}
	}
	return false
}

// graded sets the severity of an annotation finding from the strength of
// its evidence, at most top (3 error, 2 warning): an error only when the
// name and the description agree, a note on a weak signal alone.
func graded(f *reports.Finding, ev, all []verbEvidence, top int) {
	switch min(strength(ev, all), top) {
	case 3:
		f.Severity = reports.SeverityError
	case 2:
		f.Severity = reports.SeverityWarning
	default:
		f.Severity = reports.SeverityNote
	}
}

// codeObjects are what an execution verb runs that can do anything.
var codeObjects = lazyWordSet(`command commands code script scripts shell python javascript js typescript ts node program
	programs binary binaries process processes snippet snippets expression expressions cmd bash powershell terminal sh`)

// urlObjects are objects that are addresses on the network.
var urlObjects = lazyWordSet(`url urls uri uris link links page pages website websites site sites webpage webpages address
	addresses endpoint endpoints web internet`)

// openWorld returns the evidence that a tool reaches an open world: code
// it runs, a URL it fetches, a recipient it sends to. A verb alone is no
// evidence: it needs an object or a parameter that is open. Parameters
// alone are weak evidence.
func openWorld(ev []verbEvidence) []verbEvidence {
	var params []verbEvidence
	for _, e := range ev {
		if e.source == "parameter" {
			params = append(params, e)
		}
	}
	var out []verbEvidence
	for _, e := range ev {
		if e.source == "parameter" {
			continue
		}
		switch {
		case e.class&classExec != 0 && (execNouns()[e.word] && e.word != "eval" || codeObjects()[e.object]):
			out = append(out, verbEvidence{class: classExec, word: e.word, source: e.source, weak: e.weak})
		case e.class&(classNet|classSend) != 0 && (urlObjects()[e.object] || len(params) > 0):
			out = append(out, verbEvidence{class: e.class & (classNet | classSend), word: e.word, source: e.source, weak: e.weak})
		}
	}
	if len(out) > 0 {
		return append(out, params...)
	}
	return params
}

// pick returns the evidence of the given classes.
func pickEvidence(ev []verbEvidence, c verbClass) []verbEvidence {
	var out []verbEvidence
	for _, e := range ev {
		if e.class&c != 0 {
			out = append(out, verbEvidence{class: e.class & c, word: e.word, source: e.source, weak: e.weak, object: e.object})
		}
	}
	return out
}

// describe renders evidence for a message: `its name says "delete"`.
func describeEvidence(ev []verbEvidence) string {
	by := map[string][]string{}
	var order []string
	for _, e := range ev {
		if _, ok := by[e.source]; !ok {
			order = append(order, e.source)
		}
		by[e.source] = tlAppendUnique(by[e.source], e.word)
	}
	parts := make([]string, 0, len(order))
	for _, s := range order {
		what := "its " + s + " says"
		if s == "parameter" {
			what = "its parameters are"
		}
		parts = append(parts, fmt.Sprintf("%s %s", what, strings.Join(tlQuoted(by[s], 3), ", ")))
	}
	return strings.Join(parts, " and ")
}

func annEvidence(t *Tool, h string, ev []verbEvidence) map[string]any {
	list := make([]any, 0, len(ev))
	cls := verbClass(0)
	for _, e := range ev {
		list = append(list, map[string]any{"class": strings.Join(e.class.names(), ","), "word": e.word, "source": e.source})
		cls |= e.class
	}
	names := cls.names()
	sort.Strings(names)
	return map[string]any{"tool": t.Name, "hint": h, "classes": names, "evidence": list}
}
