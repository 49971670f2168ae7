package jetstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	njs "github.com/nats-io/nats.go/jetstream"
)

// blobs moves bodies larger than the inline limit through object stores,
// and holds the stream handles used to look up originals and results.
//
// A blob's name is its owner's prefix (a document id, or a hop's message
// id) and a digest of its content: nobody can guess the name of a text
// they do not have, a reader checks that a name belongs to its own
// document, and content that does not match its name is refused.
type blobs struct {
	work, originals njs.ObjectStore
	originalsStream njs.Stream
	resultsStream   njs.Stream
}

func openBlobs(ctx context.Context, js njs.JetStream, n Names) (*blobs, error) {
	origStream, err := js.Stream(ctx, n.OriginalsStream())
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", n.OriginalsStream(), err)
	}
	resStream, err := js.Stream(ctx, n.ResultsStream())
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", n.ResultsStream(), err)
	}
	work, err := js.ObjectStore(ctx, n.BlobBucket())
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", n.BlobBucket(), err)
	}
	orig, err := js.ObjectStore(ctx, n.OriginalBlobBucket())
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", n.OriginalBlobBucket(), err)
	}
	return &blobs{work: work, originals: orig, originalsStream: origStream, resultsStream: resStream}, nil
}

// blobName names body under owner: owner "." and 128 bits of its SHA-256.
func blobName(owner string, body []byte) string {
	sum := sha256.Sum256(body)
	return owner + "." + hex.EncodeToString(sum[:16])
}

// minDigestHex is the shortest digest a blob name may carry (originals
// stored before names grew to 128 bits carry 64).
const minDigestHex = 16

// checkBlobName refuses a name that is not owner's.
func checkBlobName(name, owner string) error {
	digest, ok := strings.CutPrefix(name, owner+".")
	if !ok || len(digest) < minDigestHex || len(digest) > 2*sha256.Size || strings.Trim(digest, "0123456789abcdef") != "" {
		return fmt.Errorf("%w: blob %q does not belong to %s", errForged, name, owner)
	}
	return nil
}

// put stores body under its name unless an object of that name exists:
// a write never replaces one (what is there is checked when read).
func (b *blobs) put(ctx context.Context, store njs.ObjectStore, name string, body []byte) error {
	switch _, err := store.GetInfo(ctx, name); {
	case err == nil:
		return nil
	case !errors.Is(err, njs.ErrObjectNotFound):
		return fmt.Errorf("blob %s: %w", name, err)
	}
	if _, err := store.PutBytes(ctx, name, body); err != nil {
		return fmt.Errorf("put blob %s: %w", name, err)
	}
	return nil
}

// get returns owner's blob name after checking that the name is owner's
// and the content matches it. A missing blob, or one whose content was
// replaced, is a permanent error.
func (b *blobs) get(ctx context.Context, store njs.ObjectStore, name, owner string) ([]byte, error) {
	if err := checkBlobName(name, owner); err != nil {
		return nil, err
	}
	data, err := store.GetBytes(ctx, name)
	if errors.Is(err, njs.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: blob %s not found", errPermanent, name)
	}
	if err != nil {
		return nil, fmt.Errorf("get blob %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	if digest := name[len(owner)+1:]; !strings.HasPrefix(hex.EncodeToString(sum[:]), digest) {
		return nil, fmt.Errorf("%w: blob %s does not hold what its name says (replaced)", errForged, name)
	}
	return data, nil
}
