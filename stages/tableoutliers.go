package stages

import (
	"math"
	"slices"
	"strconv"
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
// or by a verdict cell (see isVerdict) that at most one row in ten
// has, its rarity the rows that have one; or by a spike in a numeric
// column (see columnSpikes), its rarity the rows of that spike. The
// first row of each value of a category column joins them (see
// tableCategories), and the categories are returned. cells splits a row
// (and the header) into its cells.
func tableOutliers(header string, body []string, edge int, cells func(string) []string) ([]int, []category) {
	n := len(body)
	if n <= 2*edge {
		return nil, nil
	}
	names := cells(header)
	var status []int // the status columns
	for j, name := range names {
		if textkit.IsStatusField(strings.TrimSpace(name)) {
			status = append(status, j)
		}
	}
	rows, signal, signals, counts := tableCounts(body, cells, status)
	tops := make([]int, len(status))
	for k, m := range counts {
		for _, c := range m {
			tops[k] = max(tops[k], c)
		}
	}
	picks := textkit.Rarest[int]{Max: maxTableOutliers}
	spikes := columnSpikes(rows)
	for i := edge; i < n-edge; i++ {
		rarity := spikes[i]
		if signal[i] && signals*10 <= n && (rarity == 0 || signals < rarity) {
			rarity = signals
		}
		if len(status) > 0 {
			c := rows[i]
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
	cats := tableCategories(names, rows)
	for _, r := range categoryRows(cats, n, edge) {
		if !slices.Contains(picks.Items, r) {
			picks.Items = append(picks.Items, r)
		}
	}
	slices.Sort(picks.Items)
	return picks.Items, cats
}

// tableCounts splits the rows of body into cells, marks the rows with a
// verdict cell (see isVerdict) and counts each status column's values;
// a column of ids or free text counts none: past maxTableValues
// distinct values it stops counting (nil).
func tableCounts(body []string, cells func(string) []string, status []int) (rows [][]string, signal []bool, signals int, counts []map[string]int) {
	counts = make([]map[string]int, len(status))
	for k := range counts {
		counts[k] = map[string]int{}
	}
	rows = make([][]string, len(body))
	signal = make([]bool, len(body))
	verdicts := map[string]bool{} // by cell: tables repeat their values
	for i, row := range body {
		c := cells(row)
		rows[i] = c
		if slices.ContainsFunc(c, func(v string) bool {
			yes, ok := verdicts[v]
			if !ok {
				yes = isVerdict(strings.TrimSpace(v))
				verdicts[v] = yes
			}
			return yes
		}) {
			signal[i] = true
			signals++
		}
		for k, j := range status {
			if counts[k] != nil && j < len(c) {
				counts[k][strings.TrimSpace(c[j])]++
				if len(counts[k]) > maxTableValues {
					counts[k] = nil
				}
			}
		}
	}
	return rows, signal, signals, counts
}

// columnSpikes returns, by row, how many rows share the spike that row
// holds in a numeric column (0: none). A column is numeric when nine rows
// in ten hold a number of one unit (12, 4.5G, 98%) there; its spike is
// the few rows, maxTableOutliers at most, far above the others: more
// than three standard deviations above the mean of the rows below its
// top maxTableOutliers values (the bulk), twice that mean at least, and
// half again the bulk's largest value (a long tail's top is no spike;
// the disk at
// 100% among disks at 5-60%, the process at 98% of a CPU, the pod
// restarted 27 times among pods never restarted). Ids and sizes spread
// evenly have no spike; a dip is no news.
func columnSpikes(rows [][]string) []int {
	n := len(rows)
	spikes := make([]int, n)
	if n < minSpikeRows {
		return spikes
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	values := make([]float64, n)
	held := make([]bool, n)
	for j := range width {
		if !numericColumn(rows, j, values, held) {
			continue
		}
		sorted := make([]float64, 0, n)
		for i, v := range values {
			if held[i] {
				sorted = append(sorted, v)
			}
		}
		slices.Sort(sorted)
		bulk := sorted[:len(sorted)-maxTableOutliers]
		mean, sd := meanSD(bulk)
		limit := max(mean+3*sd, 2*mean, 1.5*bulk[len(bulk)-1])
		far := 0
		for _, v := range sorted[len(bulk):] {
			if v > limit {
				far++
			}
		}
		if far == 0 {
			continue
		}
		for i, v := range values {
			if held[i] && v > limit && (spikes[i] == 0 || far < spikes[i]) {
				spikes[i] = far
			}
		}
	}
	return spikes
}

// minSpikeRows is the fewest rows a table holds for a value to stand far
// above the others.
const minSpikeRows = 12

// numericColumn fills values and held with column j's numbers and
// reports whether nine rows in ten hold one, all of one unit.
func numericColumn(rows [][]string, j int, values []float64, held []bool) bool {
	unit, count := "", 0
	for i, r := range rows {
		held[i] = false
		if j >= len(r) {
			continue
		}
		v, u, ok := cellQuantity(strings.TrimSpace(r[j]))
		if !ok {
			continue
		}
		if count == 0 {
			unit = u
		} else if u != unit {
			return false
		}
		values[i], held[i] = v, true
		count++
	}
	return count*10 >= len(rows)*9 && count > maxTableOutliers
}

// cellQuantity reads a cell holding a number and an optional unit of
// letters or % (12, 0.9, 4.5G, 98%, 27d).
func cellQuantity(c string) (float64, string, bool) {
	e := len(c)
	for e > 0 && (textkit.IsLetter(c[e-1]) || c[e-1] == '%') {
		e--
	}
	if e == 0 || e < len(c)-3 || !textkit.IsDigit(c[e-1]) {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(c[:e], 64)
	return f, c[e:], err == nil
}

// meanSD returns the mean and the standard deviation of vs.
func meanSD(vs []float64) (mean, sd float64) {
	for _, v := range vs {
		mean += v
	}
	mean /= float64(len(vs))
	for _, v := range vs {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(vs)))
}

// isVerdict reports a value of one word that reports a failure (FAILED,
// error, timeout, ✗): a table's cell, a record's value. A number or a
// time has no letter and no symbol, so it is none.
func isVerdict(v string) bool {
	return wordy(v) && !strings.ContainsAny(v, " \t") && lineSignal(v) == 3
}

// wordy reports a value with a letter or a byte past ASCII.
func wordy(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= 0x80 || textkit.IsLetter(c) {
			return true
		}
	}
	return false
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
