package stages

import (
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// maxTableOutliers bounds the rows a folded table shows between its edges.
const maxTableOutliers = 5

// tableOutliers picks, among the rows of a folded table's body between
// its edge rows, the maxTableOutliers rarest that stand apart, in their
// order. A row stands apart by a value of a status column (status,
// result, level: textkit.IsStatusField) that few rows hold while most
// share one (FAILED among ok), its rarity the rows holding that value;
// or by a verdict cell (see verdictCell) that at most one row in ten
// has, its rarity the rows that have one. cells splits a row (and the
// header) into its cells.
func tableOutliers(header string, body []string, edge int, cells func(string) []string) []int {
	n := len(body)
	if n <= 2*edge {
		return nil
	}
	var status []int // the status columns
	for j, name := range cells(header) {
		if textkit.IsStatusField(strings.TrimSpace(name)) {
			status = append(status, j)
		}
	}
	counts := make([]map[string]int, len(status))
	for k := range counts {
		counts[k] = map[string]int{}
	}
	signal := make([]bool, n)
	signals := 0
	for i, row := range body {
		c := cells(row)
		if verdictCell(c) {
			signal[i] = true
			signals++
		}
		for k, j := range status {
			// A column of ids or free text counts no rare value:
			// past maxTableValues distinct values it stops counting.
			if counts[k] != nil && j < len(c) {
				counts[k][strings.TrimSpace(c[j])]++
				if len(counts[k]) > maxTableValues {
					counts[k] = nil
				}
			}
		}
	}
	tops := make([]int, len(status))
	for k, m := range counts {
		for _, c := range m {
			tops[k] = max(tops[k], c)
		}
	}
	picks := textkit.Rarest[int]{Max: maxTableOutliers}
	for i := edge; i < n-edge; i++ {
		rarity := 0
		if signal[i] && signals*10 <= n {
			rarity = signals
		}
		if len(status) > 0 {
			c := cells(body[i])
			for k, j := range status {
				if counts[k] == nil || j >= len(c) {
					continue
				}
				if cnt := counts[k][strings.TrimSpace(c[j])]; textkit.RareValue(cnt, tops[k], n) && (rarity == 0 || cnt < rarity) {
					rarity = cnt
				}
			}
		}
		if rarity > 0 {
			picks.Offer(i, rarity)
		}
	}
	slices.Sort(picks.Items)
	return picks.Items
}

// verdictCell reports a row with a cell of one word that reports a
// failure (FAILED, error, timeout, ✗): a verdict, whatever its column's
// name. A cell of several words (a description that names
// an error) is no verdict.
func verdictCell(cells []string) bool {
	return slices.ContainsFunc(cells, func(c string) bool { return isVerdict(strings.TrimSpace(c)) })
}

// isVerdict reports a value of one word that reports a failure (FAILED,
// error, timeout, ✗): a table's cell, a record's value.
func isVerdict(v string) bool {
	return v != "" && !strings.ContainsAny(v, " \t") && lineSignal(v) == 3
}

// maxTableValues is the most distinct values a status column may hold.
const maxTableValues = 64

// csvCells splits a CSV row on commas outside double quotes; quotes stay.
func csvCells(row string) []string {
	var out []string
	start, inQuote := 0, false
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '"':
			inQuote = !inQuote
		case ',':
			if !inQuote {
				out = append(out, row[start:i])
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSuffix(row[start:], "\r"))
}

// tsvCells splits a TSV row on tabs.
func tsvCells(row string) []string {
	return strings.Split(strings.TrimSuffix(row, "\r"), "\t")
}

// markdownCells splits a Markdown table row on its pipes, the outer ones
// dropped.
func markdownCells(row string) []string {
	s := strings.TrimSpace(row)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "|"), "|")
	return strings.Split(s, "|")
}
