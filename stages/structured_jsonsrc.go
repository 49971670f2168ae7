package stages

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/minio/simdjson-go"
)

// The JSON fold walks a stream of tokens. Two sources produce the same
// stream: simdjson-go's tape, walked with its iterator (no maps, no
// interfaces), and encoding/json's Decoder.Token for CPUs simdjson-go does
// not support (it needs AVX2 and CLMUL).

type jsonTok uint8

const (
	tokEnd jsonTok = iota // the document is over
	tokObjStart
	tokObjEnd
	tokArrStart
	tokArrEnd
	tokString // a key or a string value; text() holds it unescaped
	tokInt    // an integer; text() holds its canonical literal
	tokFloat  // any other number; text() holds its canonical literal
	tokTrue
	tokFalse
	tokNull
)

// errBadJSON means the text is not one valid JSON value.
var errBadJSON = errors.New("malformed JSON")

// jsonSource is a pull tokenizer over one JSON value.
type jsonSource interface {
	// next returns the next token.
	next() (jsonTok, error)
	// text returns the bytes of the last tokString, tokInt or tokFloat.
	// They are valid until the next call.
	text() []byte
	// skip consumes the rest of the container whose start token next just
	// returned, up to and including its end token.
	skip() error
}

// simdBuffers are reused across parses: the input copy and the tape.
type simdBuffers struct {
	msg []byte
	pj  *simdjson.ParsedJson
}

var simdPool = sync.Pool{New: func() any { return &simdBuffers{} }}

// newJSONSource parses text with simdjson-go when the CPU supports it and
// std is false, else with encoding/json. Text simdjson-go rejects is
// tried again with encoding/json, which is more lenient about a few things
// (lone surrogates, numbers out of float range). release returns the
// parser's buffers; nothing read from the source may be used after it.
func newJSONSource(text string, std bool) (src jsonSource, release func()) {
	if !std && simdjson.SupportedCPU() {
		bufs := simdPool.Get().(*simdBuffers)
		bufs.msg = append(bufs.msg[:0], text...)
		pj, err := simdjson.Parse(bufs.msg, bufs.pj, simdjson.WithCopyStrings(false))
		if err == nil {
			bufs.pj = pj
			if s, ok := newSimdSource(pj); ok {
				return s, func() { simdPool.Put(bufs) }
			}
		}
		simdPool.Put(bufs)
	}
	return newStdSource(text), func() {}
}

// simdFrame is one open container on the simdjson walk.
type simdFrame struct {
	isObj   bool
	pending simdjson.Type // object: type of the value after the key just read
	obj     simdjson.Object
	arr     simdjson.Iter
	val     simdjson.Iter
}

type simdSource struct {
	root     simdjson.Iter
	rootType simdjson.Type
	started  bool
	frames   []simdFrame
	buf      []byte
	num      []byte
	arr      simdjson.Array
	// The last number, formatted only when text asks for it: most numbers
	// are only scanned for their type.
	numType simdjson.Type
	i64     int64
	u64     uint64
	f64     float64
}

func newSimdSource(pj *simdjson.ParsedJson) (*simdSource, bool) {
	it := pj.Iter()
	if it.Advance() != simdjson.TypeRoot {
		return nil, false
	}
	t, root, err := it.Root(nil)
	if err != nil || (t != simdjson.TypeObject && t != simdjson.TypeArray) {
		return nil, false
	}
	return &simdSource{root: *root, rootType: t, frames: make([]simdFrame, 0, 16)}, true
}

func (s *simdSource) text() []byte {
	switch s.numType {
	case simdjson.TypeInt:
		s.buf = strconv.AppendInt(s.num[:0], s.i64, 10)
	case simdjson.TypeUint:
		s.buf = strconv.AppendUint(s.num[:0], s.u64, 10)
	case simdjson.TypeFloat:
		s.buf = appendJSONFloat(s.num[:0], s.f64)
	default:
		return s.buf
	}
	s.num = s.buf
	s.numType = simdjson.TypeNone
	return s.buf
}

func (s *simdSource) next() (jsonTok, error) {
	if !s.started {
		s.started = true
		return s.value(&s.root, s.rootType)
	}
	if len(s.frames) == 0 {
		return tokEnd, nil
	}
	top := &s.frames[len(s.frames)-1]
	if top.isObj {
		if t := top.pending; t != simdjson.TypeNone {
			top.pending = simdjson.TypeNone
			v := top.val
			return s.value(&v, t)
		}
		name, t, err := top.obj.NextElementBytes(&top.val)
		if err != nil {
			return tokEnd, errBadJSON
		}
		s.numType = simdjson.TypeNone
		if t == simdjson.TypeNone {
			s.frames = s.frames[:len(s.frames)-1]
			return tokObjEnd, nil
		}
		top.pending = t
		s.buf = name
		return tokString, nil
	}
	t := top.arr.Advance()
	if t == simdjson.TypeNone {
		s.frames = s.frames[:len(s.frames)-1]
		return tokArrEnd, nil
	}
	v := top.arr
	return s.value(&v, t)
}

func (s *simdSource) value(it *simdjson.Iter, t simdjson.Type) (jsonTok, error) {
	s.numType = simdjson.TypeNone
	switch t {
	case simdjson.TypeObject:
		s.frames = append(s.frames, simdFrame{isObj: true})
		if _, err := it.Object(&s.frames[len(s.frames)-1].obj); err != nil {
			return tokEnd, errBadJSON
		}
		return tokObjStart, nil
	case simdjson.TypeArray:
		arr, err := it.Array(&s.arr)
		if err != nil {
			return tokEnd, errBadJSON
		}
		s.frames = append(s.frames, simdFrame{arr: arr.Iter()})
		return tokArrStart, nil
	case simdjson.TypeString:
		b, err := it.StringBytes()
		if err != nil {
			return tokEnd, errBadJSON
		}
		s.buf = b
		return tokString, nil
	case simdjson.TypeInt:
		v, err := it.Int()
		if err != nil {
			return tokEnd, errBadJSON
		}
		s.numType, s.i64 = t, v
		return tokInt, nil
	case simdjson.TypeUint:
		v, err := it.Uint()
		if err != nil {
			return tokEnd, errBadJSON
		}
		s.numType, s.u64 = t, v
		return tokInt, nil
	case simdjson.TypeFloat:
		v, err := it.Float()
		if err != nil {
			return tokEnd, errBadJSON
		}
		s.numType, s.f64 = t, v
		return tokFloat, nil
	case simdjson.TypeBool:
		v, err := it.Bool()
		if err != nil {
			return tokEnd, errBadJSON
		}
		if v {
			return tokTrue, nil
		}
		return tokFalse, nil
	case simdjson.TypeNull:
		return tokNull, nil
	}
	return tokEnd, errBadJSON
}

// skip drops the frame the container's start token pushed; its parent
// already stands past the whole container, so this is O(1).
func (s *simdSource) skip() error {
	if len(s.frames) == 0 {
		return errBadJSON
	}
	s.frames = s.frames[:len(s.frames)-1]
	return nil
}

// stdSource walks encoding/json's token stream.
type stdSource struct {
	dec   *json.Decoder
	buf   []byte
	depth int
	done  bool
}

func newStdSource(text string) *stdSource {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	return &stdSource{dec: dec}
}

func (s *stdSource) text() []byte { return s.buf }

func (s *stdSource) next() (jsonTok, error) {
	if s.done {
		// The root value is complete: only the end of input may follow.
		if _, err := s.dec.Token(); err == io.EOF {
			return tokEnd, nil
		}
		return tokEnd, errBadJSON
	}
	t, err := s.dec.Token()
	if err != nil {
		return tokEnd, errBadJSON
	}
	var tok jsonTok
	switch v := t.(type) {
	case json.Delim:
		switch v {
		case '{':
			s.depth++
			tok = tokObjStart
		case '[':
			s.depth++
			tok = tokArrStart
		case '}':
			s.depth--
			tok = tokObjEnd
		default:
			s.depth--
			tok = tokArrEnd
		}
	case string:
		s.buf = append(s.buf[:0], v...)
		tok = tokString
	case json.Number:
		var isFloat bool
		s.buf, isFloat = appendNumberLiteral(s.buf[:0], string(v))
		tok = tokInt
		if isFloat {
			tok = tokFloat
		}
	case bool:
		tok = tokFalse
		if v {
			tok = tokTrue
		}
	case nil:
		tok = tokNull
	default:
		return tokEnd, errBadJSON
	}
	if s.depth == 0 {
		if tok != tokObjEnd && tok != tokArrEnd {
			// Only objects and arrays are folded.
			return tokEnd, errBadJSON
		}
		s.done = true
	}
	return tok, nil
}

func (s *stdSource) skip() error {
	for depth := 1; depth > 0; {
		t, err := s.next()
		if err != nil {
			return err
		}
		switch t {
		case tokObjStart, tokArrStart:
			depth++
		case tokObjEnd, tokArrEnd:
			depth--
		}
	}
	return nil
}

// appendNumberLiteral appends the canonical form of a JSON number literal,
// classified the way simdjson-go classifies it: integers that fit int64 or
// uint64 are integers, everything else is a float64.
func appendNumberLiteral(dst []byte, lit string) ([]byte, bool) {
	if !strings.ContainsAny(lit, ".eE") {
		if v, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return strconv.AppendInt(dst, v, 10), false
		}
		if lit[0] != '-' {
			if v, err := strconv.ParseUint(lit, 10, 64); err == nil {
				return strconv.AppendUint(dst, v, 10), false
			}
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return append(dst, lit...), true
	}
	return appendJSONFloat(dst, f), true
}

// appendJSONFloat formats f the way encoding/json does.
func appendJSONFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0') // -0 too: it reads back as the integer 0
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
