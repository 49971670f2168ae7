// Package logs is the log analysis of stages: the record layout of a log,
// the tokens of its lines, template mining and the slot summaries of
// mined templates. It imports textkit only, never stages.
package logs
