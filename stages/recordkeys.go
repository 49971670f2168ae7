package stages

import (
	"context"
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/logs"
)

// recordKey is a line's template key and the records it stands for (its
// count, see logs.SplitCount); record is false for a line that opens no
// record.
type recordKey struct {
	key    uint64
	weight int
	record bool
}

// recordMemoMaxLines bounds the lines a run remembers keys of.
const recordMemoMaxLines = 1 << 16

// recordMemo remembers the record keys of a run's lines under one
// layout: number_normalize counts templates, and keywords counts them
// again on its output, which differs by the lines whose numbers changed.
type recordMemo struct {
	lay  logs.Layout
	keys map[string]recordKey
}

// recordKeyer gives the record keys of lines under one layout.
type recordKeyer struct {
	lay  logs.Layout
	memo *recordMemo // nil: none, or one kept for another layout
	toks []logs.Tok
}

// newRecordKeyer returns a keyer for lay that uses ctx's run memo.
func newRecordKeyer(ctx context.Context, lay logs.Layout) *recordKeyer {
	return newRecordKeyerSized(ctx, lay, 0)
}

// newRecordKeyerSized is newRecordKeyer that makes a new run memo room
// for lines keys at once.
func newRecordKeyerSized(ctx context.Context, lay logs.Layout, lines int) *recordKeyer {
	k := &recordKeyer{lay: lay}
	m := runMemoOf(ctx)
	if m == nil || !lay.Analyzed {
		return k
	}
	switch r := &m.records; {
	case r.keys == nil:
		r.lay, r.keys = lay, make(map[string]recordKey, min(lines, recordMemoMaxLines))
		k.memo = r
	case sameLayout(r.lay, lay):
		k.memo = r
	}
	return k
}

func sameLayout(a, b logs.Layout) bool {
	return a.Analyzed == b.Analyzed && a.Records == b.Records && a.Fields == b.Fields &&
		a.ByRepeats == b.ByRepeats && a.HeaderCols == b.HeaderCols && slices.Equal(a.StatusFields, b.StatusFields) && slices.Equal(a.Openers, b.Openers)
}

// key returns line l's record key: the hash of its template tokens.
func (k *recordKeyer) key(l string) recordKey {
	if k.memo != nil {
		if r, ok := k.memo.keys[l]; ok {
			return r
		}
	}
	var r recordKey
	if k.lay.OpensRecord(l) {
		head, w := logs.SplitCount(l)
		k.toks = k.lay.TemplateTokens(head, k.toks[:0])
		r = recordKey{key: logs.LineKey(k.toks), weight: w, record: true}
	}
	k.remember(l, r)
	return r
}

func (k *recordKeyer) remember(l string, r recordKey) {
	if k.memo != nil && len(k.memo.keys) < recordMemoMaxLines {
		k.memo.keys[l] = r
	}
}

// seedRecordKeys tells ctx's run memo the record keys of the record lines
// of text whose heads are in heads (a head line and its LineKey, as
// mining found them), so that the nodes after log_dedup do not tokenize
// its templates again.
func seedRecordKeys(ctx context.Context, lay logs.Layout, text string, heads map[string]uint64) {
	k := newRecordKeyerSized(ctx, lay, len(heads))
	if k.memo == nil {
		return
	}
	for l := range strings.SplitSeq(text, "\n") {
		head, w := logs.SplitCount(l)
		if key, ok := heads[head]; ok && lay.OpensRecord(l) {
			k.remember(l, recordKey{key: key, weight: w, record: true})
		}
	}
}
