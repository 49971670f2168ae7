// Package cli is what the commands do alike at the command line and the
// terminal: reading an input under a size limit, a progress line, and:
// --help prints the usage and exits 0; a usage error prints one line and
// a hint and exits 2; any other failure exits 1.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// UsageError is a mistake in the command line.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// Parse parses args into fs. On --help it prints usage and fs's flags to
// stderr and returns flag.ErrHelp; any other parse error is a UsageError,
// printed once by ExitCode rather than with the whole usage.
func Parse(fs *flag.FlagSet, args []string, usage string, stderr io.Writer) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, usage)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return err
	}
	if err != nil {
		return UsageError{err}
	}
	return nil
}

// ExitCode prints err once, prefixed with the command's name, and returns
// the exit status: 0 for none or --help, 2 for a usage error (with a hint
// to --help), 1 for any other.
func ExitCode(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	var u UsageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		return 2
	}
	return 1
}
