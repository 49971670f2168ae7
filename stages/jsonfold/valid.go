package jsonfold

import (
	"sync"
	"unsafe"

	"github.com/minio/simdjson-go"
)

// simdJSON says whether Valid may use simdjson-go: it needs AVX2 (and
// CLMUL); without them the literal tokenizer checks every document.
var simdJSON = simdjson.SupportedCPU()

// simdJSONMaxBytes bounds the documents given to simdjson-go, whose tape
// takes several times a document's size; larger ones are walked.
const simdJSONMaxBytes = 16 << 20

// parsedPool reuses simdjson-go's tape between documents.
var parsedPool sync.Pool

// Valid reports whether text is one JSON object or array. simdjson-go
// checks the common case at about 1 GB/s; what it refuses is walked again
// by the literal tokenizer, which accepts all of JSON's grammar (numbers
// beyond float64 such as 1e400 among them), so both paths agree.
func Valid(text string) bool {
	if simdJSON && len(text) > 0 && len(text) <= simdJSONMaxBytes {
		reuse, _ := parsedPool.Get().(*simdjson.ParsedJson)
		// simdjson-go reads its input and never writes it. Only validity
		// is asked: strings stay in the input, not copied to the tape.
		pj, err := simdjson.Parse(unsafe.Slice(unsafe.StringData(text), len(text)), reuse, simdjson.WithCopyStrings(false))
		if pj != nil {
			parsedPool.Put(pj)
		}
		if err == nil {
			return true
		}
	}
	return walkJSON(text)
}

// walkJSON is Valid by the literal tokenizer alone.
func walkJSON(text string) bool {
	src := newJSONSource(text)
	first := true
	for {
		t, err := src.next()
		if err != nil {
			return false
		}
		if first && t != tokObjStart && t != tokArrStart {
			return false
		}
		if t == tokEnd {
			return true
		}
		first = false
	}
}
