package stages

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// recordDoc generates a structured document of n records of one shape in
// one of four dialects, with random key names; odd plants, by record,
// what sets it apart.
type recordDoc struct {
	dialect string // yaml-docs, yaml-list, xml, ini
	keys    []string
	status  string // a status key's name, "" for none
	odd     map[int]string
	n       int
}

// Kinds of oddity a record may carry.
const (
	oddStatus = "status" // a rare value of the status key
	oddFlag   = "flag"   // a rare value of a two-valued key
	oddExtra  = "extra"  // a key no other record has
)

func (d recordDoc) record(r *rand.Rand, i int) string {
	type kv struct{ k, v string }
	fields := []kv{{"name", fmt.Sprintf("item-%d-%d", i, r.IntN(1000))}}
	for _, k := range d.keys {
		fields = append(fields, kv{k, fmt.Sprintf("v%d", r.IntN(3))})
	}
	fields = append(fields, kv{"enabled", "true"})
	if d.status != "" {
		fields = append(fields, kv{d.status, "ok"})
	}
	switch d.odd[i] {
	case oddStatus:
		fields[len(fields)-1].v = "cancelled"
	case oddFlag:
		for k := range fields {
			if fields[k].k == "enabled" {
				fields[k].v = "false"
			}
		}
	case oddExtra:
		fields = append(fields, kv{"note", "DEPRECATED do not use"})
	}
	var b strings.Builder
	switch d.dialect {
	case "yaml-docs":
		b.WriteString("---\nkind: Item\nspec:\n")
		for _, f := range fields {
			fmt.Fprintf(&b, "  %s: %s\n", f.k, f.v)
		}
	case "yaml-list":
		for k, f := range fields {
			lead := "  "
			if k == 0 {
				lead = "- "
			}
			fmt.Fprintf(&b, "%s%s: %s\n", lead, f.k, f.v)
		}
	case "xml":
		b.WriteString("  <item")
		for _, f := range fields[:2] {
			fmt.Fprintf(&b, " %s=%q", f.k, f.v)
		}
		b.WriteString(">\n")
		for _, f := range fields[2:] {
			fmt.Fprintf(&b, "    <%s>%s</%s>\n", f.k, f.v, f.k)
		}
		b.WriteString("  </item>\n")
	case "ini":
		fmt.Fprintf(&b, "[%s]\n", fields[0].v)
		for _, f := range fields[1:] {
			fmt.Fprintf(&b, "%s = %s\n", f.k, f.v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (d recordDoc) render(r *rand.Rand) (string, []string) {
	var b strings.Builder
	if d.dialect == "xml" {
		b.WriteString("<?xml version=\"1.0\"?>\n<items>\n")
	}
	records := make([]string, d.n)
	for i := range d.n {
		records[i] = d.record(r, i)
		b.WriteString(records[i])
	}
	if d.dialect == "xml" {
		b.WriteString("</items>\n")
	}
	return b.String(), records
}

var recordsFolded = regexp.MustCompile(`\[\.\.\. (\d+) records folded`)

// TestRecordBlocksFold: a structured document's records of one shape
// fold to the first, the records that stand apart (a rare status
// value, a rare value of a key with few values, a key of their own) and
// markers that count the rest; whatever the dialect, the key names and
// the number of records.
func TestRecordBlocksFold(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	r := rand.New(rand.NewPCG(61, 62))
	words := []string{"owner", "queue", "region", "tier", "zone", "pool", "team", "image"}
	for doc := range 48 {
		d := recordDoc{dialect: []string{"yaml-docs", "yaml-list", "xml", "ini"}[doc%4], n: 150 + r.IntN(400), odd: map[int]string{}}
		r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		d.keys = words[:1+r.IntN(4)]
		if doc%3 != 0 {
			d.status = []string{"status", "state", "result"}[r.IntN(3)]
		}
		kinds := []string{oddFlag, oddExtra}
		if d.status != "" {
			kinds = append(kinds, oddStatus)
		}
		for len(d.odd) < 1+r.IntN(3) {
			d.odd[1+r.IntN(d.n-1)] = kinds[r.IntN(len(kinds))]
		}
		text, records := d.render(r)
		label := fmt.Sprintf("doc %d (%s, %d records, status %q)", doc, d.dialect, d.n, d.status)
		if k := Detect(text); k != KindProse {
			t.Fatalf("%s: detected as %s", label, k)
		}
		_, out := runStructured(t, node, text, KindProse)
		if !strings.Contains(out, records[0]) {
			t.Errorf("%s: the first record is not shown whole:\n%s", label, out)
		}
		shown := 0
		for i, rec := range records {
			if strings.Contains(out, rec) {
				shown++
			} else if d.odd[i] != "" {
				t.Errorf("%s: record %d (%s) is not shown:\n%s", label, i, d.odd[i], out)
			}
		}
		folded := 0
		for _, m := range recordsFolded.FindAllStringSubmatch(out, -1) {
			k, _ := strconv.Atoi(m[1])
			folded += k
		}
		if shown+folded != d.n {
			t.Errorf("%s: %d records shown and %d folded, of %d:\n%s", label, shown, folded, d.n, out)
		}
		if len(out)*4 > len(text) {
			t.Errorf("%s: %d bytes of %d kept", label, len(out), len(text))
		}
		checkIdempotent(t, node, out, KindProse)
	}
}

// TestRecordBlocksStay: records of many shapes are no list of one kind,
// and a list too short to fold stays whole.
func TestRecordBlocksStay(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "- name: item-%d\n  key_%d: value\n", i, i)
	}
	short := "- name: a\n  v: 1\n- name: b\n  v: 2\n- name: c\n  v: 3\n"
	for _, text := range []string{b.String(), short} {
		if got := foldRecordBlocks(text); got != text {
			t.Errorf("changed:\n%s", got)
		}
	}
}

// TestStructuredDocumentsAreNoLogs: a structured document is read as
// prose (its records fold in structured), while logs and build output
// whose lines open alike stay logs.
func TestStructuredDocumentsAreNoLogs(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for doc := range 8 {
		d := recordDoc{dialect: []string{"yaml-docs", "yaml-list", "xml", "ini"}[doc%4], n: 100, keys: []string{"owner", "zone"}, status: "status"}
		if text, _ := d.render(r); Detect(text) != KindProse {
			t.Errorf("%s read as %s", d.dialect, Detect(text))
		}
	}
	var logText, build, yamlLog strings.Builder
	for i := range 200 {
		fmt.Fprintf(&logText, "2024-03-01 10:%02d:%02d INFO worker-%d: job %d done\n", i/60, i%60, i%4, i)
		fmt.Fprintf(&build, "warning: unused variable `x%d`\n  --> src/lib.rs:%d:9\n", i, i)
		fmt.Fprintf(&yamlLog, "- time: 2024-03-01T10:%02d:%02dZ\n  level: INFO\n  msg: job %d done on worker-%d\n", i/60, i%60, i, i%4)
	}
	for _, text := range []string{logText.String(), build.String(), yamlLog.String()} {
		if k := Detect(text); k != KindLog {
			t.Errorf("a log read as %s:\n%s", k, text[:200])
		}
	}
}

// TestRecordBlocksKeepContent: items that say things (a changelog's
// "- Fixed: ..." bullets) are content, not records of data: they stay.
func TestRecordBlocksKeepContent(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	words := strings.Fields("the parser now reads quoted keys and keeps every comment in place when a file is saved twice")
	var b strings.Builder
	b.WriteString("# Changelog\n\n")
	for i := range 40 {
		r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		fmt.Fprintf(&b, "- %s: %s\n", []string{"Fixed", "Added", "Changed"}[i%3], strings.Join(words[:4+r.IntN(8)], " "))
	}
	if text := b.String(); foldRecordBlocks(text) != text {
		t.Errorf("a changelog folded:\n%s", foldRecordBlocks(text))
	}
}
