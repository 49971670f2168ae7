package stages

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// A structured document (YAML documents or a YAML list, XML records,
// INI sections) is often a list of records of one shape: 120
// Deployments that differ in their name. foldRecordBlocks keeps the first
// record of each shape and the records that stand apart, and folds the
// others into a marker that says what varied among them.

// entry is one line of a structured document: its indentation, its key
// ("image", "<status", "- name", "---", "[") and the value after it.
type entry struct {
	indent     int
	key, value string
}

// parseEntry reads line as an entry; a line of free text is its own key.
func parseEntry(line string) entry {
	t := strings.TrimLeft(line, " \t")
	e := entry{indent: len(line) - len(t)}
	t = strings.TrimRight(t, " \t\r")
	switch {
	case t == "":
	case t == "---":
		e.key = t
	case t[0] == '[' && t[len(t)-1] == ']' && !strings.Contains(t, " "):
		e.key, e.value = "[", t
	case strings.HasPrefix(t, "- "):
		inner := parseEntry(t[2:])
		e.key, e.value = "- "+inner.key, inner.value
	case t[0] == '<':
		e.key, e.value = xmlEntry(t)
	default:
		if k, v, ok := keyValue(t); ok {
			e.key, e.value = k, v
		} else {
			e.key = t
		}
	}
	return e
}

// xmlEntry splits an element line into its key ("<id", "</job", "<job>"
// for an element that opens a block, "<item/" for an empty one) and its
// value (the text of an inline element, or the attributes).
func xmlEntry(t string) (key, value string) {
	end := 1
	if strings.HasPrefix(t, "</") {
		end = 2
	}
	for end < len(t) && t[end] != ' ' && t[end] != '>' && t[end] != '/' {
		end++
	}
	name := t[:end]
	rest := strings.TrimSpace(t[end:])
	switch {
	case strings.HasPrefix(t, "</"):
		return name, ""
	case strings.HasSuffix(t, "/>"):
		return name + "/", strings.TrimSuffix(rest, "/>")
	case strings.HasSuffix(t, "</"+name[1:]+">"):
		return name, strings.TrimPrefix(strings.TrimSuffix(rest, "</"+name[1:]+">"), ">")
	}
	return name + ">", strings.TrimSuffix(rest, ">")
}

// keyValue splits "key: value" or "key = value"; ok is false for a line
// that is no entry.
func keyValue(t string) (key, value string, ok bool) {
	k := 0
	for k < len(t) && k <= 64 && (textkit.IsWordByte(t[k]) || t[k] == '.' || t[k] == '-' || t[k] == '"' || t[k] == '\'') {
		k++
	}
	for j := k; j < len(t) && k > 0; j++ {
		switch t[j] {
		case ' ':
			continue
		case ':', '=':
			if j+1 == len(t) || t[j+1] == ' ' {
				return t[:k], strings.TrimSpace(t[j+1:]), true
			}
		}
		return "", "", false
	}
	return "", "", false
}

// isEntryLine reports a trimmed line that is an element of a structured
// document: an XML or HTML element line, a YAML, TOML or INI entry
// ("key: value", "- key: value", "key = value"), a section ("[server]")
// or a YAML document separator or list item.
func isEntryLine(t string) bool {
	switch {
	case t[0] == '<' && t[len(t)-1] == '>':
		return true
	case t[0] == '[' && t[len(t)-1] == ']' && !strings.Contains(t, " "):
		return true
	case t == "---" || strings.HasPrefix(t, "- "):
		return true
	}
	_, _, ok := keyValue(t)
	return ok
}

// mostlyEntries reports a text most of whose first 400 non-blank lines
// are entries of a structured document (see isEntryLine).
func mostlyEntries(text string) bool {
	lines := headLines(text)
	entries := 0
	for _, l := range lines {
		if isEntryLine(strings.TrimSpace(l)) {
			entries++
		}
	}
	return len(lines) >= 3 && entries*10 >= len(lines)*6
}

// headLines returns the first 400 non-blank lines of text: what the
// kind rules of structured documents and source code read.
func headLines(text string) []string {
	var lines []string
	for it := (lineIter{text: text}); len(lines) < 400; {
		l, _, ok := it.next()
		if !ok {
			break
		}
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// opener is the line that opens each record: "---", "[" (a section),
// "- " (a list item) or "<name>" (an element holding others), at one
// indentation.
type opener struct {
	indent int
	key    string
}

func openerKey(e entry) string {
	switch {
	case e.key == "---" || e.key == "[":
		return e.key
	case strings.HasPrefix(e.key, "- "):
		return "- "
	case strings.HasPrefix(e.key, "<") && strings.HasSuffix(e.key, ">") && !strings.HasPrefix(e.key, "</"):
		return e.key
	}
	return ""
}

// minRecordBlocks is the fewest records a run must hold to fold.
const minRecordBlocks = 6

// recordOpener picks the opener of a document's records: the shallowest
// that opens minRecordBlocks records or more.
func recordOpener(entries []entry) (opener, bool) {
	counts := map[opener]int{}
	for _, e := range entries {
		if k := openerKey(e); k != "" {
			counts[opener{e.indent, k}]++
		}
	}
	best, found := opener{}, false
	for o, c := range counts {
		if c < minRecordBlocks {
			continue
		}
		if !found || o.indent < best.indent || o.indent == best.indent && (c > counts[best] || c == counts[best] && o.key < best.key) {
			best, found = o, true
		}
	}
	return best, found
}

// recordBlock is one record: lines [start, end) of the document.
type recordBlock struct{ start, end int }

// recordRuns splits the lines into runs of consecutive records opened by
// o; lines outside a run stay as they are.
func recordRuns(entries []entry, o opener) [][]recordBlock {
	var runs [][]recordBlock
	var cur []recordBlock
	flush := func() {
		if len(cur) > 0 {
			runs = append(runs, cur)
		}
		cur = nil
	}
	sameIndentContent := o.key == "---" || o.key == "["
	closer := "</" + strings.TrimSuffix(strings.TrimPrefix(o.key, "<"), ">")
	for i, e := range entries {
		switch {
		case e.key == "":
			// A blank line goes with the record before it.
		case e.indent == o.indent && openerKey(e) == o.key:
			if len(cur) > 0 {
				cur[len(cur)-1].end = i
			}
			cur = append(cur, recordBlock{start: i, end: len(entries)})
			continue
		case len(cur) == 0:
		case e.indent < o.indent || e.indent == o.indent && !sameIndentContent && e.key != closer:
			cur[len(cur)-1].end = i
			flush()
		case e.indent == o.indent && e.key == closer:
			cur[len(cur)-1].end = i + 1
		}
	}
	flush()
	return runs
}

var recordSeed = maphash.MakeSeed()

// blockShape hashes the indentations and keys of a record's entries.
func blockShape(es []entry) uint64 {
	var h maphash.Hash
	h.SetSeed(recordSeed)
	for _, e := range es {
		h.WriteString(strconv.Itoa(e.indent))
		h.WriteString(e.key)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// maxRecordValues is the most distinct values a record position counts.
const maxRecordValues = 64

// valueCounts counts, for each line of a shape's records, its values;
// a position past maxRecordValues values counts none (nil).
type valueCounts []map[string]int

// foldRecordBlocks folds each run of records in text (see the top of
// this file); it returns text itself when nothing folds.
func foldRecordBlocks(text string) string {
	lines := strings.Split(text, "\n")
	entries := make([]entry, len(lines))
	for i, l := range lines {
		if IsProtectedLine(strings.TrimSpace(l)) || recordMarker(l) {
			return text // a region to keep, or folded already
		}
		entries[i] = parseEntry(l)
	}
	o, ok := recordOpener(entries)
	if !ok {
		return text
	}
	var out []string
	done, changed := 0, false
	for _, run := range recordRuns(entries, o) {
		kept, ok := foldRun(lines, entries, run, o.indent)
		if !ok {
			continue
		}
		out = append(out, lines[done:run[0].start]...)
		out = append(out, kept...)
		done, changed = run[len(run)-1].end, true
	}
	if !changed {
		return text
	}
	return strings.Join(append(out, lines[done:]...), "\n")
}

// recordMarker reports a line foldRecordBlocks wrote.
func recordMarker(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "[... ") && strings.Contains(t, " records folded")
}

// foldRun returns the lines that stand for run: the first record of
// each shape, up to maxTableOutliers records that stand apart (see
// runStats.rarity), and a marker for each stretch of records between;
// ok is false when the run stays.
func foldRun(lines []string, entries []entry, run []recordBlock, indent int) (kept []string, ok bool) {
	n := len(run)
	if n < minRecordBlocks {
		return nil, false
	}
	st := newRunStats(entries, run)
	if len(st.first) > maxTableOutliers || len(st.first)*2 > n {
		return nil, false // records of many shapes: no list of one kind
	}
	if st.sentences*4 >= n {
		return nil, false // records that say things (a changelog's items): content
	}
	picks := textkit.Rarest[int]{Max: maxTableOutliers}
	for i := range run {
		if r := st.rarity(i); r > 0 && st.first[st.shapes[i]] != i {
			picks.Offer(i, r)
		}
	}
	shown := make([]bool, n)
	for _, i := range st.first {
		shown[i] = true
	}
	for _, i := range picks.Items {
		shown[i] = true
	}
	major := st.shapes[0]
	for s, c := range st.members {
		if c > st.members[major] {
			major = s
		}
	}
	pad := strings.Repeat(" ", indent)
	for i := 0; i < n; {
		if shown[i] {
			kept = append(kept, lines[run[i].start:run[i].end]...)
			i++
			continue
		}
		j := i
		for j < n && !shown[j] {
			j++
		}
		marker := pad + "[... " + strconv.Itoa(j-i) + " records folded"
		if !slices.Contains(shown[j:], true) {
			// The last marker says what varied among the records of the
			// main shape.
			marker += "; in all " + strconv.Itoa(st.members[major]) + " like the first" +
				recordSummary(st.records[st.first[major]], st.counts[major])
		}
		kept = append(kept, marker+" ...]")
		i = j
	}
	return kept, true
}

// runStats is what a run's records share: each record's shape, the
// first record and the number of records of each shape, the values at
// each position of a shape, and how many records hold a verdict.
type runStats struct {
	records  [][]entry // each record's entries (see keyed)
	verdict  []bool    // each record's recordVerdict
	shapes   []uint64
	first    map[uint64]int
	members  map[uint64]int
	counts   map[uint64]valueCounts
	verdicts int
	// sentences counts the records with a value of four words or more.
	sentences int
}

func newRunStats(entries []entry, run []recordBlock) *runStats {
	st := &runStats{records: make([][]entry, len(run)), verdict: make([]bool, len(run)), shapes: make([]uint64, len(run)),
		first: map[uint64]int{}, members: map[uint64]int{}, counts: map[uint64]valueCounts{}}
	for i, b := range run {
		es := keyed(entries, b)
		sh := blockShape(es)
		st.records[i], st.shapes[i] = es, sh
		if _, seen := st.first[sh]; !seen {
			st.first[sh] = i
		}
		st.members[sh]++
		vc := st.counts[sh]
		if vc == nil {
			vc = make(valueCounts, len(es))
			for p := range vc {
				vc[p] = map[string]int{}
			}
			st.counts[sh] = vc
		}
		vc.add(es)
		if st.verdict[i] = recordVerdict(entries, b); st.verdict[i] {
			st.verdicts++
		}
		if slices.ContainsFunc(es, func(e entry) bool { return len(strings.Fields(e.value)) >= 4 }) {
			st.sentences++
		}
	}
	return st
}

// add counts the values of one record's entries es.
func (vc valueCounts) add(es []entry) {
	for p, e := range es {
		if vc[p] != nil {
			vc[p][e.value]++
			if len(vc[p]) > maxRecordValues {
				vc[p] = nil
			}
		}
	}
}

// rarity is how many records share what sets record i apart, or 0: a
// verdict that at most one record in ten holds, a shape that at most one
// in ten has (a key of their own), a rare value (textkit.RareValue) of
// a status key or of any key with four values at most, which the
// summary lists (enabled: false ×1).
func (st *runStats) rarity(i int) int {
	n := len(st.records)
	rarity := 0
	rarer := func(r int) {
		if rarity == 0 || r < rarity {
			rarity = r
		}
	}
	if st.verdicts*10 <= n && st.verdict[i] {
		rarer(st.verdicts)
	}
	vc, m := st.counts[st.shapes[i]], st.members[st.shapes[i]]
	if m*10 <= n {
		rarer(m)
	}
	for p, e := range st.records[i] {
		if vc[p] == nil || !textkit.IsStatusField(keyLabel(e.key)) && len(vc[p]) > 4 {
			continue
		}
		top := 0
		for _, c := range vc[p] {
			top = max(top, c)
		}
		if c := vc[p][e.value]; textkit.RareValue(c, top, m) {
			rarer(c)
		}
	}
	return rarity
}

// keyed returns the entries of record b's lines that are not blank, an
// element's attributes each an entry of its own ("<order@status"): the
// entries its shape is made of.
func keyed(entries []entry, b recordBlock) []entry {
	out := make([]entry, 0, b.end-b.start)
	for _, e := range entries[b.start:b.end] {
		if e.key == "" {
			continue
		}
		if !strings.HasPrefix(e.key, "<") || !strings.Contains(e.value, `="`) {
			out = append(out, e)
			continue
		}
		out = append(out, entry{indent: e.indent, key: e.key})
		for rest := e.value; ; {
			name, after, ok := strings.Cut(rest, `="`)
			if !ok {
				break
			}
			value, next, _ := strings.Cut(after, `"`)
			out = append(out, entry{indent: e.indent, key: e.key + "@" + strings.TrimSpace(name), value: value})
			rest = next
		}
	}
	return out
}

// recordVerdict reports a record with a value of one word that reports
// a failure (status: FAILED, <result>error</result>).
func recordVerdict(entries []entry, b recordBlock) bool {
	return slices.ContainsFunc(entries[b.start:b.end], func(e entry) bool { return isVerdict(strings.Trim(e.value, `"' `)) })
}

// keyLabel is how a summary names an entry's key: "status" for
// "<status", "order@id" for "<order>@id", "section" for an INI section.
func keyLabel(key string) string {
	if key == "[" {
		return "section"
	}
	return strings.NewReplacer(">@", "@", "/@", "@").Replace(strings.Trim(key, "<>/- "))
}

// maxSummaryKeys bounds the keys a record summary names.
const maxSummaryKeys = 6

// recordSummary says, for the keys of a shape whose value varies, how
// many values they take and a few of them, the rare ones with counts:
// "; name: 119 distinct (svc-1, svc-2, …); image: app:1.4.2 ×118,
// app:0.9.0-debug ×1".
func recordSummary(es []entry, vc valueCounts) string {
	var parts []string
	for p, e := range es {
		if len(parts) == maxSummaryKeys {
			break
		}
		key := keyLabel(e.key)
		switch m := vc[p]; {
		case key == "":
		case m == nil:
			parts = append(parts, key+": "+strconv.Itoa(maxRecordValues)+"+ distinct")
		case len(m) > 4:
			parts = append(parts, key+": "+strconv.Itoa(len(m))+" distinct")
		case len(m) > 1:
			vals := make([]string, 0, len(m))
			for v := range m {
				vals = append(vals, v)
			}
			slices.SortFunc(vals, func(a, b string) int { return cmp.Or(m[b]-m[a], strings.Compare(a, b)) })
			for k, v := range vals {
				vals[k] = v + " ×" + strconv.Itoa(m[v])
			}
			parts = append(parts, key+": "+strings.Join(vals, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; ")
}

// structuredDocument reports a text most of whose first 400 non-blank
// lines are entries, minRecordBlocks records or more among them, and
// whose records are no events: a log written as YAML or XML records
// (time: 2024-03-01T09:59:00Z, level: INFO, msg: ...) has a time stamp
// in most of them.
func structuredDocument(text string) bool {
	if !mostlyEntries(text) {
		return false
	}
	var entries []entry
	stamps := 0
	for _, l := range headLines(text) {
		e := parseEntry(l)
		if textkit.IsStamped(strings.Trim(e.value, `"'`)) {
			stamps++
		}
		entries = append(entries, e)
	}
	o, ok := recordOpener(entries)
	if !ok {
		return false
	}
	records := 0
	for _, e := range entries {
		if e.indent == o.indent && openerKey(e) == o.key {
			records++
		}
	}
	return stamps*2 < records
}
