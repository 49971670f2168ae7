package jetstream

import (
	"context"
	"errors"
	"fmt"

	njs "github.com/nats-io/nats.go/jetstream"
)

// blobs moves bodies larger than the inline limit through object stores,
// and holds the stream handles used to look up originals and results.
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

func (b *blobs) put(ctx context.Context, store njs.ObjectStore, name string, body []byte) error {
	if _, err := store.PutBytes(ctx, name, body); err != nil {
		return fmt.Errorf("put blob %s: %w", name, err)
	}
	return nil
}

// get returns a blob; a missing one is a permanent error.
func (b *blobs) get(ctx context.Context, store njs.ObjectStore, name string) ([]byte, error) {
	data, err := store.GetBytes(ctx, name)
	if errors.Is(err, njs.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: blob %s not found", errPermanent, name)
	}
	if err != nil {
		return nil, fmt.Errorf("get blob %s: %w", name, err)
	}
	return data, nil
}
