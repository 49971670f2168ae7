package pipeline

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Budget classes, in the order lines are kept: the last class folds first.
const (
	BudgetFailure   = "failure"        // a failure or warning signal (stages.LineSignal)
	BudgetRegion    = "failure region" // build output around a failure: its test's banner and source, its stack
	BudgetRare      = "rare"           // a log record seen once or twice, where others carry [×N] counts
	BudgetProtected = "protected"      // a user request, code or edit block (stages.Protect)
	BudgetEdge      = "edge"           // the first and last lines
	BudgetCommon    = "common"         // everything else, repeated templates and earlier fold markers included
	BudgetChatter   = "chatter"        // in build output: passing tests, a runner's bookkeeping, progress (stages.Chatter)
	BudgetSummary   = "summary"        // what varied among a count's records, cut to the count before any line folds
)

// budgetEdgeLines is how many lines at each end count as the first and
// last records.
const budgetEdgeLines = 3

// A failure's region, in lines before and after its line.
const (
	budgetRegionBefore = 40
	budgetRegionAfter  = 8
	budgetBesideAfter  = 3  // non-blank lines after a failure kept as part of its message
	budgetBlockMax     = 40 // lines a failure's message may continue on (see failureBlocks)
)

// BudgetReport says what was folded to fit a token budget.
type BudgetReport struct {
	Tokens    int `json:"tokens"`     // the budget
	TokensIn  int `json:"tokens_in"`  // estimated tokens of the pipeline's output
	TokensOut int `json:"tokens_out"` // estimated tokens after folding
	// Folded counts the lines folded to meet the budget, by class.
	Folded map[string]int `json:"folded,omitempty"`
}

// FitBudget folds lines of text until its estimated tokens
// (stages.EstimateTokens) are at most budget, lowest-ranked lines first
// (see the Budget classes), each run of folded lines into one marker. The
// result never exceeds budget, except that a text folded whole is one
// marker line. Transcript markers carry no counts (design.md, Evidence). A
// budget of zero or less, or a text that fits, comes back unchanged.
//
// refChars is what the reference each fold marker will carry adds
// (RefChars; AddMarkerRefs after), 0 for none: the references are counted
// in, so the text with them fits. Count lines' references are not: under
// a budget they come only when they fit too.
func FitBudget(text string, budget int, kind stages.Kind, refChars int) (string, BudgetReport) {
	rep := BudgetReport{Tokens: budget, TokensIn: stages.EstimateTokens(text)}
	rep.TokensOut = rep.TokensIn
	if budget <= 0 || rep.TokensIn+refTokens(text, refChars) <= budget {
		return text, rep
	}
	body, trailingNL := strings.CutSuffix(text, "\n")
	lines := strings.Split(body, "\n")
	// What varied among a count's records ("[×57; 10:00–11:00; user: 9
	// distinct (…)]") goes before any line does: the count stays.
	summaries := 0
	for i, l := range lines {
		if short, ok := withoutSummary(l); ok {
			lines[i] = short
			summaries++
		}
	}
	f := newBudgetFolder(lines, kind.IsTranscript())
	f.trailingNL = trailingNL
	if refChars > 0 {
		f.refChars = refChars
		f.referenced = make([]bool, len(lines))
		for i, l := range lines {
			f.referenced[i] = foldMarkerLine(l)
		}
	}
	// Smallest prefix of the fold order that fits; the cost is not strictly
	// monotonic (a new run adds a marker), so check upward from there.
	lo, hi := 0, len(lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if f.tokens(mid) <= budget {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	k := lo
	for ; k < len(lines) && f.tokens(k) > budget; k++ {
	}
	out := f.render(k)
	if trailingNL {
		out += "\n"
	}
	rep.TokensOut = stages.EstimateTokens(out)
	rep.Folded = map[string]int{}
	if summaries > 0 {
		rep.Folded[BudgetSummary] = summaries
	}
	f.mark(k)
	for i, folded := range f.folded {
		if folded {
			rep.Folded[f.class[i]]++
		}
	}
	return out, rep
}

// refTokens estimates what references of refChars characters add to
// text's fold markers.
func refTokens(text string, refChars int) int {
	if refChars <= 0 {
		return 0
	}
	n := 0
	for l := range strings.SplitSeq(text, "\n") {
		if foldMarkerLine(l) {
			n++
		}
	}
	return (n*refChars + 3) / 4
}

type budgetFolder struct {
	lines      []string
	class      []string
	weight     []int  // lines of the original a line stands for: >1 for an earlier fold marker
	cjk, other []int  // rune counts, as EstimateTokens weighs them
	order      []int  // line indexes, first folded first
	folded     []bool // scratch
	transcript bool
	trailingNL bool
	refChars   int    // a reference's characters, 0 without
	referenced []bool // a kept line that will carry a reference
}

func newBudgetFolder(lines []string, transcript bool) *budgetFolder {
	n := len(lines)
	f := &budgetFolder{lines: lines, class: make([]string, n), weight: make([]int, n), cjk: make([]int, n), other: make([]int, n),
		order: make([]int, n), folded: make([]bool, n), transcript: transcript}
	fa := analyseBudgetLines(lines)
	rank := make([]int, n)
	for i, l := range lines {
		f.cjk[i], f.other[i] = runeWeights(l)
		f.weight[i] = max(markerLines(l), 1) // a node's marker, or an earlier budget's
		f.class[i], rank[i] = fa.classify(i, rank)
		f.order[i] = i
	}
	blankRanks(lines, rank)
	f.sortOrder(rank, fa)
	return f
}

// budgetFacts is what the budget knows of each line before ranking it.
type budgetFacts struct {
	lines   []string
	counted bool // a log whose records carry [×N] counts: the others are rare
	sig     []int
	chatter []bool
	// region: a failure's neighbourhood in build and test output; beside:
	// the line before a failure and the few after it; near: a region
	// line's distance to its nearest failure.
	region, beside []bool
	near           []int
	// level: a record's level; novelty: 1 for the first failure of its
	// message shape; dump: a register dump as a failure's message.
	level, novelty []int
	dump           []bool
	block          []int // failureBlocks
	count          []int // a count line's [×N]
	prot           []bool
}

func analyseBudgetLines(lines []string) *budgetFacts {
	n := len(lines)
	fa := &budgetFacts{lines: lines, sig: make([]int, n), chatter: make([]bool, n), count: make([]int, n),
		prot: stages.ProtectedLines(strings.Join(lines, "\n"))}
	for i, l := range lines {
		fa.count[i] = dedupCount(l)
		fa.counted = fa.counted || fa.count[i] > 0
	}
	for i, l := range lines {
		fa.sig[i] = stages.LineSignal(l)
		if !fa.counted && stages.Chatter(l) { // build output only: a record's "45%" is its message
			fa.chatter[i], fa.sig[i] = true, 0
		}
	}
	fa.markRegions()
	fa.markRecordFacts()
	fa.block = failureBlocks(lines, fa.sig, fa.chatter, fa.counted, fa.level, fa.dump)
	return fa
}

// markRegions: in build and test output (no [×N] counts), a failure's
// region is budgetRegionBefore lines before it (a test's banner and
// source, a command) and budgetRegionAfter after it (a message continued,
// a stack, an assertion's expected and actual). Beside it: the line before
// and the few after (a diagnostic's source line and caret, an "Error:"
// header's test name).
func (fa *budgetFacts) markRegions() {
	n := len(fa.lines)
	fa.region, fa.beside, fa.near = make([]bool, n), make([]bool, n), make([]int, n)
	for i := range fa.lines {
		if fa.counted || fa.sig[i] < 3 { // records carry their own message
			continue
		}
		for j := max(i-budgetRegionBefore, 0); j < n && j <= i+budgetRegionAfter; j++ {
			if d := max(i-j, j-i); !fa.region[j] || d < fa.near[j] {
				fa.near[j] = d
			}
			fa.region[j] = true
		}
		if i > 0 {
			fa.beside[i-1] = true
		}
		for j, kept := i+1, 0; j < n && j <= i+budgetRegionAfter && kept < budgetBesideAfter; j++ {
			fa.beside[j] = true
			if strings.TrimSpace(fa.lines[j]) != "" {
				kept++
			}
		}
	}
}

// markRecordFacts: a record's level outranks the words of its message (an
// INFO record that mentions an error, "parity error corrected", is no
// failure); the first failure of a message shape is novel.
func (fa *budgetFacts) markRecordFacts() {
	n := len(fa.lines)
	fa.level, fa.novelty, fa.dump = make([]int, n), make([]int, n), make([]bool, n)
	seen := map[string]bool{}
	for i, l := range fa.lines {
		if fa.sig[i] == 0 {
			continue
		}
		var msg string
		fa.level[i], msg = recordLevel(l)
		fa.dump[i] = fieldDump(l) || registerDump(msg)
		shape := messageShape(msg)
		if !seen[shape] && fa.sig[i] >= 2 { // weak facts (a location) are no kind of failure
			seen[shape], fa.novelty[i] = true, 1
		}
	}
}

// classify gives line i its budget class and rank; rank holds the ranks
// of the lines before i (a message's body ranks below its head).
func (fa *budgetFacts) classify(i int, rank []int) (string, int) {
	l, sig := fa.lines[i], fa.sig[i]
	switch {
	case foldMarkerLine(l) || strings.TrimSpace(l) == "":
		return BudgetCommon, 0
	case fa.chatter[i]:
		return BudgetChatter, 5
	case sig > 0 && fa.dump[i]:
		return BudgetFailure, 46
	case sig > 0 && fa.level[i] == levelInfo:
		return BudgetFailure, 42
	case sig >= 2 && fa.novelty[i] > 0:
		return BudgetFailure, 50 + 5*fa.novelty[i] + sig
	case sig >= 2:
		return BudgetFailure, 50 + sig
	case fa.block[i] > 0:
		// A failure's message continued (its stack, an assertion's
		// expected and actual): just below its head.
		return BudgetRegion, rank[fa.block[i]-1] - 2
	case sig > 0:
		// A weak fact (a command, a location) outside any failure's
		// message: below the lines around a failure.
		return BudgetFailure, 44
	default:
		return fa.classifyQuiet(i)
	}
}

// classifyQuiet is classify for a line that carries no failure: near
// one, rare, protected, at an edge, or common.
func (fa *budgetFacts) classifyQuiet(i int) (string, int) {
	n := len(fa.lines)
	switch {
	case fa.region[i] && fa.beside[i]:
		// Right beside its failure ("Error:" then the test's name): part
		// of the message, above weaker signals such as stack locations.
		return BudgetRegion, 52
	case fa.region[i]:
		return BudgetRegion, 45
	case fa.counted && fa.count[i] <= 2 && !fa.prot[i]:
		return BudgetRare, 40
	case fa.prot[i]:
		if (i == 0 || !fa.prot[i-1]) || (i == n-1 || !fa.prot[i+1]) {
			return BudgetProtected, 35 // a region's first and last lines (fences) outlive its middle
		}
		return BudgetProtected, 30
	case i < budgetEdgeLines || i >= n-budgetEdgeLines:
		return BudgetEdge, 20
	default:
		return BudgetCommon, 10
	}
}

// blankRanks: a blank line folds with the first of its neighbours to
// fold; alone it would cost a marker.
func blankRanks(lines []string, rank []int) {
	n := len(lines)
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			continue
		}
		lo, hi := 0, 0
		for j := i - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) != "" {
				lo = rank[j]
				break
			}
		}
		for j := i + 1; j < n; j++ {
			if strings.TrimSpace(lines[j]) != "" {
				hi = rank[j]
				break
			}
		}
		rank[i] = min(lo, hi)
	}
}

// sortOrder puts the lowest rank first. Among failures, the least
// repeated first (a failure that recurs is an incident), then the
// earliest (a build's last failure is its cause). Otherwise the middle of
// the text first, so folded runs stay few and long.
func (f *budgetFolder) sortOrder(rank []int, fa *budgetFacts) {
	n := len(f.lines)
	block, near, count := fa.block, fa.near, fa.count
	edgeDist := func(i int) int { return min(i, n-1-i) }
	slices.SortStableFunc(f.order, func(a, b int) int {
		if c := cmp.Compare(rank[a], rank[b]); c != 0 {
			return c
		}
		if block[a] > 0 && block[b] > 0 {
			// Whole messages fold, the last failure's first (the first
			// failure is the cause more often than what it set off), each
			// from its end.
			return cmp.Or(cmp.Compare(block[b], block[a]), cmp.Compare(b, a))
		}
		if rank[a] == 45 {
			// A region's lines farthest from its failure first: the test's
			// name and the message's next lines are kept longest.
			return cmp.Or(cmp.Compare(near[b], near[a]), cmp.Compare(a, b))
		}
		if rank[a] >= 45 {
			return cmp.Or(cmp.Compare(count[a], count[b]), cmp.Compare(a, b))
		}
		return cmp.Or(cmp.Compare(edgeDist(b), edgeDist(a)), cmp.Compare(a, b))
	})
}

// failureBlocks marks the lines that continue a failure's message in
// build output: after a failure or warning line, its first
// budgetBesideAfter non-blank lines, then the lines indented deeper than
// it or that are stack frames (stages.StackFrame), up to budgetBlockMax
// lines, ended by chatter, another failure or a fold marker. A line's
// value is 1 + its failure's index, 0 outside any. The class: test and
// compiler failures printed as a headline and an indented body.
func failureBlocks(lines []string, sig []int, chatter []bool, counted bool, level []int, dump []bool) []int {
	n := len(lines)
	block := make([]int, n)
	if counted {
		return block
	}
	for i := range lines {
		if sig[i] < 2 || dump[i] || level[i] == levelInfo {
			continue
		}
		in := stages.Indent(lines[i])
		last, nonBlank := i, 0
		for j := i + 1; j < n && j <= i+budgetBlockMax; j++ {
			l := lines[j]
			if strings.TrimSpace(l) == "" {
				continue
			}
			deeper := stages.Indent(l) > in
			if chatter[j] || sig[j] >= 2 && !deeper || foldMarkerLine(l) {
				break // a failure indented under this one ("Error:" in a TAP body) is part of it
			}
			if nonBlank >= budgetBesideAfter && !deeper && !stages.StackFrame(l) {
				break
			}
			nonBlank++
			last = j
		}
		for j := i + 1; j <= last; j++ {
			if block[j] == 0 {
				block[j] = i + 1
			}
		}
	}
	return block
}

// Record levels, as recordLevel reads them.
const (
	levelNone = iota
	levelInfo // INFO, DEBUG, TRACE, NOTICE, VERBOSE
	levelWarn
	levelError // ERROR and above: FATAL, SEVERE, CRITICAL, PANIC, ...
)

// recordLevel finds the level word of a log record among its first
// tokens (upper case as "FATAL", or in brackets as "[error]", or as
// "level=warn"), and returns it with the message after it; without one,
// levelNone and the whole line. The class: any log whose records name a
// level, whatever its header.
func recordLevel(line string) (int, string) {
	rest := line
	for t := 0; t < 12 && rest != ""; t++ {
		rest = strings.TrimLeft(rest, " \t")
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		tok := rest[:end]
		rest = rest[end:]
		w := strings.Trim(tok, "[]():<>,|\"'")
		w, _ = strings.CutPrefix(w, "level=")
		if w == "" || len(w) > 8 || (w != strings.ToUpper(w) && !strings.HasPrefix(tok, "[") && !strings.HasPrefix(tok, "level=")) {
			continue
		}
		switch strings.ToUpper(w) {
		case "INFO", "DEBUG", "TRACE", "NOTICE", "VERBOSE", "FINE", "FINER", "FINEST":
			return levelInfo, rest
		case "WARN", "WARNING":
			return levelWarn, rest
		case "ERROR", "ERR", "FATAL", "SEVERE", "CRITICAL", "CRIT", "ALERT", "EMERG", "PANIC", "FAILURE":
			return levelError, rest
		}
	}
	return levelNone, line
}

// messageShape is a message with its variable words masked (numbers,
// ids, paths) and a log_dedup count removed: failures of one shape are one
// kind, whatever file or host they name.
func messageShape(msg string) string {
	if i := strings.LastIndex(msg, " [×"); i >= 0 && strings.HasSuffix(msg, "]") {
		msg = msg[:i]
	}
	words := strings.Fields(msg)
	for i, w := range words {
		if strings.ContainsAny(w, "0123456789/\\") {
			words[i] = "#"
		}
	}
	return strings.Join(words, " ")
}

// registerDump reports a message of register values only: "name=0x…"
// pairs and hex words ("dbcr0=0x00000000 dbsr=0x00000000", "fpr29=0xffffffff
// ffffffff"). Like fieldDump, its failure word is the report's.
func registerDump(msg string) bool {
	pairs := 0
	for _, w := range strings.Fields(msg) {
		if i := strings.IndexByte(w, '='); i > 0 {
			w = w[i+1:]
			pairs++
		}
		w = strings.TrimPrefix(w, "0x")
		if len(w) < 4 || strings.TrimFunc(w, func(r rune) bool { return r < 128 && textkit.IsHexDigit(byte(r)) }) != "" {
			return false
		}
	}
	return pairs > 0
}

// fieldDump reports a line of a crash report's state dump: a label, then
// a colon or a dot leader, then one value ("machine state register:
// 0x00002000", "floating pt ex mode 0 enable......0", "RIP: 0010"). Its
// failure word is the report's, not the line's: the headline outlives it.
func fieldDump(line string) bool {
	body := line
	if i := strings.LastIndex(body, " [×"); i >= 0 {
		body = body[:i]
	}
	body = strings.TrimRight(body, " \t")
	j := len(body)
	for j > 0 && textkit.IsHexDigit(body[j-1]) {
		j--
	}
	value := strings.TrimPrefix(body[j:], "0x")
	if j == len(body) || strings.HasSuffix(body[:j], "0x") && value == "" {
		return false
	}
	head := strings.TrimSuffix(body[:j], "0x")
	// "label:value" but not "host:port" or "12:30": a word before the colon.
	glued := len(head) >= 2 && head[len(head)-1] == ':' && isLetterByte(head[len(head)-2])
	return strings.HasSuffix(head, ": ") || glued || strings.HasSuffix(head, "..")
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// withoutSummary is a count line " [×N; what varied]" cut to " [×N]".
func withoutSummary(line string) (string, bool) {
	i := strings.LastIndex(line, " [×")
	if i < 0 || !strings.HasSuffix(line, "]") {
		return line, false
	}
	j := strings.IndexByte(line[i:], ';')
	if j < 0 || dedupCount(line) == 0 {
		return line, false
	}
	return line[:i+j] + "]", true
}

// dedupCount is N of a record's " [×N" count, 0 when it has none.
func dedupCount(line string) int {
	i := strings.LastIndex(line, " [×")
	if i < 0 {
		return 0
	}
	rest := line[i+len(" [×"):]
	e := 0
	for e < len(rest) && rest[e] >= '0' && rest[e] <= '9' {
		e++
	}
	n, err := strconv.Atoi(rest[:e])
	if err != nil {
		return 0
	}
	return n
}

func runeWeights(s string) (cjk, other int) {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk, other
}

func (f *budgetFolder) mark(k int) {
	clear(f.folded)
	for _, i := range f.order[:k] {
		f.folded[i] = true
	}
	// A run that costs no more than its marker (and reference) stays:
	// folding it would save nothing and lose its text.
	for i := 0; i < len(f.lines); {
		if !f.folded[i] {
			i++
			continue
		}
		j, n, chars := i, 0, 0
		for ; j < len(f.lines) && f.folded[j]; j++ {
			n += f.weight[j]
			chars += f.cjk[j]*4*2/3 + f.other[j] + 1 // in EstimateTokens' quarter tokens
			if f.referenced != nil && f.referenced[j] {
				chars += f.refChars
			}
		}
		if chars <= len(f.marker(n))+1+f.refChars {
			clear(f.folded[i:j])
		}
		i = j
	}
}

// marker is the line that stands for n folded lines.
func (f *budgetFolder) marker(n int) string {
	if f.transcript {
		return "[... lines folded]"
	}
	if n == 1 {
		return "[... 1 line folded]"
	}
	return "[... " + strconv.Itoa(n) + " lines folded]"
}

// tokens estimates the output with the first k lines of the order folded,
// as EstimateTokens would count the rendered text (newlines included).
func (f *budgetFolder) tokens(k int) int {
	f.mark(k)
	cjk, other, rows := 0, 0, 0
	for i := 0; i < len(f.lines); {
		if !f.folded[i] {
			cjk, other, rows = cjk+f.cjk[i], other+f.other[i], rows+1
			if f.referenced != nil && f.referenced[i] {
				other += f.refChars
			}
			i++
			continue
		}
		n := 0
		for ; i < len(f.lines) && f.folded[i]; i++ {
			n += f.weight[i]
		}
		other += len(f.marker(n)) + f.refChars // ASCII
		rows++
	}
	other += rows - 1
	if f.trailingNL {
		other++
	}
	return int(float64(cjk)/1.5 + float64(other)/4.0)
}

func (f *budgetFolder) render(k int) string {
	f.mark(k)
	var b strings.Builder
	for i := 0; i < len(f.lines); {
		if i > 0 {
			b.WriteByte('\n')
		}
		if !f.folded[i] {
			b.WriteString(f.lines[i])
			i++
			continue
		}
		n := 0
		for ; i < len(f.lines) && f.folded[i]; i++ {
			n += f.weight[i]
		}
		b.WriteString(f.marker(n))
	}
	return b.String()
}

// foldedText is ", folded failure=2 common=40" in class order, or "".
func (b BudgetReport) foldedText() string {
	var parts []string
	for _, c := range []string{BudgetFailure, BudgetRegion, BudgetRare, BudgetProtected, BudgetEdge, BudgetCommon, BudgetChatter, BudgetSummary} {
		if n := b.Folded[c]; n > 0 {
			parts = append(parts, strings.ReplaceAll(c, " ", "_")+"="+strconv.Itoa(n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ", folded " + strings.Join(parts, " ")
}
