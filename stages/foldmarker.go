package stages

// FoldMarker is the line that stands for n folded lines, as every node
// writes it: "[... N lines WHAT ...]". Nodes that meet such a line count
// its N lines, and a stored original can give it a reference; code outside
// stages that folds lines writes the same line.
func FoldMarker(n int, what string) string { return foldMarker(n, what) }
