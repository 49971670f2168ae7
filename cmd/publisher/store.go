package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/jetcompact/jetcompact/docstore"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// refPrefixMin is the shortest document id prefix a reference carries.
const refPrefixMin = 8

// openStore opens the originals store: under --store-dir, else the user's
// state directory.
func (a *app) openStore() (*docstore.Store, error) {
	dir := a.o.storeDir
	if dir == "" {
		d, err := docstore.DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return docstore.Open(filepath.Join(dir, "originals"), a.file.Retention.MaxBytes, a.file.Retention.MaxAge)
}

// keepOriginal stores original under id and makes text's fold markers
// reference it. With --no-store, or when the store fails (a warning), text
// stays without references: a reference must resolve.
func (a *app) keepOriginal(id, original string, text *string, rep *pipeline.Report) {
	prefix, ok := a.storeOriginal(id, original)
	if !ok {
		return
	}
	budget := 0
	if rep.Budget != nil {
		budget = rep.Budget.Tokens
	}
	*text = pipeline.AddRefsWithinSpans(original, *text, prefix, budget, rep.Kind, rep.Spans)
	if rep.Budget != nil {
		rep.Budget.TokensOut = stages.EstimateTokens(*text)
	}
	rep.CharsOut = stages.Chars(*text)
}

// storeOriginal stores original under id and returns the id prefix its
// references carry; false with --no-store, or when the store fails (a
// warning): a reference must resolve.
func (a *app) storeOriginal(id, original string) (string, bool) {
	if a.o.noStore || id == "" {
		return "", false
	}
	st, err := a.openStore()
	if err == nil {
		err = st.Put(id, original)
	}
	if err != nil {
		slog.Warn("original not stored: markers carry no references", "error", err.Error())
		return "", false
	}
	return st.UniquePrefix(id, refPrefixMin), true
}

// getRef prints exactly the original text a reference names, from the
// local store; with --store-dir, a document only its embedded fleet kept
// is read there.
func (a *app) getRef(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usagef("get takes one reference: ID, an ID prefix, or ID:L<from>-<to>")
	}
	ref, err := pipeline.ParseRef(args[0])
	if err != nil {
		return usageError{Err: err}
	}
	st, err := a.openStore()
	if err != nil {
		return err
	}
	id, err := st.Resolve(ref.ID)
	if errors.Is(err, docstore.ErrUnknown) && a.o.storeDir != "" {
		return a.subcommand(ctx, "get", args) // an embedded fleet's originals stream
	}
	if err != nil {
		return err
	}
	text, err := st.Get(id)
	if err != nil {
		return err
	}
	return writeRef(a.stdout, text, ref)
}

// writeRef writes the part of an original a reference names.
func writeRef(w io.Writer, text string, ref pipeline.Ref) error {
	part, err := ref.Slice(text)
	if err != nil {
		return fmt.Errorf("reference %s:%s: %w", ref.ID, ref.Range(), err)
	}
	text = part
	_, err = io.WriteString(w, text)
	return err
}

// wholeID turns an id prefix into the whole id the local store knows it
// by (a cluster looks originals up by whole ids); otherwise it is as given.
func (a *app) wholeID(prefix string) string {
	if a.o.noStore {
		return prefix
	}
	st, err := a.openStore()
	if err != nil {
		return prefix
	}
	if id, err := st.Resolve(prefix); err == nil {
		return id
	}
	return prefix
}
