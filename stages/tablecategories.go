package stages

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Table categories: a column of a few values that repeat (a status, a
// type, a reason, a node) groups a table's rows. A folded table shows
// each value's first row, and its last marker counts the values, as
// log_dedup's templates count their records: "Scheduled ×50, BackOff ×1".

const (
	maxCategoryValues  = 8 // values a category column holds at most
	maxCategoryRows    = 8 // rows shown for their values, rarest first
	maxCategoryColumns = 2 // columns the last marker counts
)

// category is a column of a few values: each with its first row and
// count, in the order met.
type category struct {
	name   string
	values []string
	first  []int
	counts []int
}

// tableCategories returns the category columns of a table: two to
// maxCategoryValues values, none a number, each held by three rows on
// average at least.
func tableCategories(header []string, rows [][]string) []category {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	var cats []category
	for j := range width {
		c := category{}
		if j < len(header) {
			c.name = strings.TrimSpace(header[j])
		}
		index := map[string]int{}
		for i, r := range rows {
			v := ""
			if j < len(r) {
				v = strings.TrimSpace(r[j])
			}
			if _, _, numeric := cellQuantity(v); numeric || v == "" {
				c.values = nil
				break
			}
			k, ok := index[v]
			if !ok {
				if len(c.values) == maxCategoryValues {
					c.values = nil
					break
				}
				k = len(c.values)
				index[v] = k
				c.values, c.first, c.counts = append(c.values, v), append(c.first, i), append(c.counts, 0)
			}
			c.counts[k]++
		}
		if len(c.values) >= 2 && len(rows) >= 3*len(c.values) {
			cats = append(cats, c)
		}
	}
	return cats
}

// categoryRows returns the first rows of the category values that rows
// [edge, n-edge) hold first, maxCategoryRows at most, the rarest values'
// first.
func categoryRows(cats []category, n, edge int) []int {
	type firstRow struct{ row, count int }
	var firsts []firstRow
	for _, c := range cats {
		for k, r := range c.first {
			if r >= edge && r < n-edge {
				firsts = append(firsts, firstRow{r, c.counts[k]})
			}
		}
	}
	slices.SortStableFunc(firsts, func(a, b firstRow) int { return cmp.Compare(a.count, b.count) })
	var out []int
	for _, f := range firsts {
		if len(out) == maxCategoryRows {
			break
		}
		if !slices.Contains(out, f.row) {
			out = append(out, f.row)
		}
	}
	return out
}

// categorySummary counts the values of maxCategoryColumns category
// columns, status columns (textkit.IsStatusField) first, most held values
// first: "; STATUS: Running ×297, CrashLoopBackOff ×2".
func categorySummary(cats []category) string {
	cats = slices.Clone(cats)
	slices.SortStableFunc(cats, func(a, b category) int {
		return textkit.BoolOrder(!textkit.IsStatusField(a.name)) - textkit.BoolOrder(!textkit.IsStatusField(b.name))
	})
	var b strings.Builder
	for _, c := range cats[:min(len(cats), maxCategoryColumns)] {
		order := make([]int, len(c.values))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(c.counts[b], c.counts[a]) })
		b.WriteString("; ")
		if c.name != "" {
			b.WriteString(c.name + ": ")
		}
		for i, k := range order {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.values[k] + " ×" + strconv.Itoa(c.counts[k]))
		}
	}
	return b.String()
}
