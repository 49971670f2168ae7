// Package redact replaces secrets in text with a marker naming their kind:
// well-known credential shapes (cloud and forge tokens, JWTs, private
// keys, password=/secret=/token= values, URLs with a password) and long
// high-entropy strings. It is pure text in, text out, linear in the input,
// and reports how many secrets of each kind it replaced, never the secrets.
package redact

import (
	"math"
	"regexp"
	"sort"
	"strings"
)

// The kinds of secret Text replaces.
const (
	KindPrivateKey  = "private_key"
	KindAWSKey      = "aws_access_key"
	KindGitHub      = "github_token"
	KindGitLab      = "gitlab_token"
	KindSlack       = "slack_token"
	KindJWT         = "jwt"
	KindBearer      = "bearer_token"
	KindConnString  = "connection_string"
	KindAssignment  = "secret_value"
	KindHighEntropy = "high_entropy"
)

// Pair redacts the two messages of a chat request and returns their
// counts together, as Counts.String.
func Pair(system, user string) (string, string, string) {
	system, sc := Text(system)
	user, uc := Text(user)
	return system, user, sc.Add(uc).String()
}

// Marker is what replaces a secret of the given kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// Counts is the number of secrets replaced, by kind.
type Counts map[string]int

// Total is the number of secrets replaced.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Add adds o's counts to c (allocating c when nil) and returns it.
func (c Counts) Add(o Counts) Counts {
	for k, v := range o {
		if c == nil {
			c = Counts{}
		}
		c[k] += v
	}
	return c
}

// String lists the counts as "kind=n" sorted by kind.
func (c Counts) String() string {
	kinds := make([]string, 0, len(c))
	for k := range c {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(itoa(c[k]))
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d [20]byte
	i := len(d)
	for ; n > 0; n /= 10 {
		i--
		d[i] = byte('0' + n%10)
	}
	return string(d[i:])
}

// pattern is one secret shape. group is the submatch that is the secret
// (0 = the whole match); the rest of the match is kept as context.
type pattern struct {
	kind  string
	group int
	// anchors are lower-case literals a match starts with; the regexp,
	// anchored, is tried only where one occurs, on at most window bytes.
	// That keeps a pass linear and fast whatever the text.
	anchors []string
	// backScheme: the anchor ("://") follows a URL scheme the match
	// starts with.
	backScheme bool
	// token: the match is a token of its own, so it starts where no token
	// character ([A-Za-z0-9_-]) precedes it. This also keeps each run of
	// token characters to one try, so a pass stays linear.
	token  bool
	window int
	re     *regexp.Regexp
}

func mustAnchored(expr string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + expr + `)`) }

// Patterns run in this order: specific shapes first, so a JWT in a
// token= value is counted as a JWT.
var patterns = []pattern{
	// PEM private keys of any algorithm: see replacePEM.
	{kind: KindPrivateKey, anchors: []string{"-----begin "}},
	// AWS access key ids (long-lived AKIA, temporary ASIA, and the rest).
	{kind: KindAWSKey, token: true, anchors: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"},
		re: mustAnchored(`[A-Z]{4}[0-9A-Z]{16}\b`)},
	// GitHub personal, OAuth, app and refresh tokens, fine-grained PATs.
	{kind: KindGitHub, token: true, anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: mustAnchored(`gh[pousr]_[A-Za-z0-9]{36,255}\b|github_pat_[A-Za-z0-9_]{22,255}\b`)},
	// GitLab personal, pipeline trigger, runner, deploy and other tokens.
	{kind: KindGitLab, token: true, anchors: []string{"glpat-", "glptt-", "glrt-", "gldt-", "glcbt-", "glft-", "glsoat-"},
		re: mustAnchored(`gl[a-z]{2,5}-[A-Za-z0-9_\-]{20,}`)},
	// Slack bot, user, app and refresh tokens, and incoming webhooks.
	{kind: KindSlack, token: true, anchors: []string{"xox", "https://hooks.slack.com/"},
		re: mustAnchored(`xox[abposre]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]+`)},
	// JSON Web Tokens: two base64url JSON parts starting {" and a signature.
	{kind: KindJWT, token: true, anchors: []string{"eyj"}, window: 16 << 10,
		re: mustAnchored(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	// HTTP bearer credentials, and basic ones after an Authorization header.
	{kind: KindBearer, group: 1, anchors: []string{"bearer", "authorization"},
		re: mustAnchored(`(?i)(?:bearer|authorization\s*[:=]\s*["']?basic)\s+([A-Za-z0-9._~+/-]{16,}=*)`)},
	// URLs with a user and password: scheme://user:password@host.
	{kind: KindConnString, group: 1, anchors: []string{"://"}, backScheme: true,
		re: mustAnchored(`[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@'"]*:([^\s@/'"]+)@`)},
	// key=value and "key": "value" where the key names a credential. The
	// key ends right before its separator, so db_password= matches and
	// max_tokens= does not; numbers, literals and $REFERENCES are not
	// secrets. (pwd is left out: it is the shell's working directory.)
	{kind: KindAssignment, group: 1, anchors: []string{"password", "passwd", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "private_key", "private-key", "credential", "auth"},
		re: mustAnchored(`(?i)(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth)["']?[ \t]*(?:[:=]|=>)[ \t]*["']?([^\s"'&,;<>\[\]{}()]{3,})`)},
	// The same as a command-line flag: --password VALUE.
	{kind: KindAssignment, group: 1, anchors: []string{"--password", "--passwd", "--token", "--secret", "--api-key", "--apikey"},
		re: mustAnchored(`(?i)--(?:password|passwd|token|secret|api-key|apikey)[ \t]+["']?([^\s"'&,;<>\[\]{}()]{3,})`)},
}

// notSecretValue: values of credential keys that are no secret.
func notSecretValue(v string) bool {
	if strings.Trim(v, "0123456789.") == "" || strings.Trim(v, "*xX") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none", "yes", "no", "required", "optional", "string", "redacted", "hidden":
		return true
	}
	// References to a secret held elsewhere, and YAML keys.
	return strings.HasPrefix(v, "$") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "<") || strings.HasSuffix(v, ":")
}

// Text returns s with every secret replaced by Marker(kind), and the
// counts by kind. A text with no secret comes back as it is.
func Text(s string) (string, Counts) {
	s, counts := Known(s)
	s = highEntropy(s, &counts)
	return s, counts
}

// Known is Text without the high-entropy rule: well-known shapes only.
func Known(s string) (string, Counts) {
	var counts Counts
	lower := asciiLower(s)
	for _, p := range patterns {
		if out := replace(s, lower, p, &counts); out != s {
			s, lower = out, asciiLower(out)
		}
	}
	return s, counts
}

// asciiLower lowers ASCII letters only, so offsets match s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// candidates returns the sorted start offsets of p's anchors in lower.
func candidates(lower string, p pattern) []int {
	var at []int
	for _, a := range p.anchors {
		for off := 0; ; {
			i := strings.Index(lower[off:], a)
			if i < 0 {
				break
			}
			pos := off + i
			if p.backScheme {
				for pos > 0 && schemeByte(lower[pos-1]) {
					pos--
				}
			}
			at = append(at, pos)
			off += i + len(a)
		}
	}
	if len(p.anchors) > 1 {
		sort.Ints(at)
	}
	return at
}

func schemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func replace(s, lower string, p pattern, counts *Counts) string {
	if p.kind == KindPrivateKey {
		return replacePEM(s, lower, p, counts)
	}
	window := p.window
	if window == 0 {
		window = 2 << 10
	}
	var b strings.Builder
	last, scanned := 0, 0
	for _, pos := range candidates(lower, p) {
		if pos < scanned {
			continue
		}
		if p.token && pos > 0 && (wordByte(s[pos-1]) || s[pos-1] == '-') {
			continue
		}
		loc := p.re.FindStringSubmatchIndex(s[pos:min(len(s), pos+window)])
		if loc == nil {
			continue
		}
		start, end := loc[2*p.group], loc[2*p.group+1]
		if start < 0 {
			continue
		}
		start, end = start+pos, end+pos
		scanned = pos + loc[1] // a rejected match is not tried again from inside
		if strings.HasPrefix(s[start:end], "[REDACTED") || (p.kind == KindAssignment && notSecretValue(s[start:end])) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Marker(p.kind))
		last = end
		if *counts == nil {
			*counts = Counts{}
		}
		(*counts)[p.kind]++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

var (
	pemHeader = mustAnchored(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----`)
	pemFooter = mustAnchored(`-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----`)
	// maxPEM bounds a key block; an RSA-16384 key is about 13 kB.
	maxPEM = 64 << 10
)

// replacePEM replaces private key blocks, header to footer. A block with
// no footer within maxPEM is replaced through its base64 lines. The next
// footer is tracked with one forward pointer, so repeated unterminated
// headers cost one pass, not one pass each.
func replacePEM(s, lower string, p pattern, counts *Counts) string {
	var b strings.Builder
	last, nextEnd := 0, 0 // nextEnd: the next footer at or after it; -1 none
	for _, pos := range candidates(lower, p) {
		if pos < last {
			continue
		}
		h := pemHeader.FindStringIndex(s[pos:min(len(s), pos+80)])
		if h == nil {
			continue
		}
		bodyStart := pos + h[1]
		for nextEnd >= 0 && (nextEnd < bodyStart || pemFooter.FindStringIndex(s[nextEnd:min(len(s), nextEnd+80)]) == nil) {
			from := max(nextEnd+1, bodyStart)
			i := strings.Index(lower[from:], "-----end ")
			if i < 0 {
				nextEnd = -1
				break
			}
			nextEnd = from + i
		}
		end := bodyStart
		if nextEnd >= 0 && nextEnd-bodyStart <= maxPEM {
			end = nextEnd + pemFooter.FindStringIndex(s[nextEnd:min(len(s), nextEnd+80)])[1]
		} else {
			end = base64LinesEnd(s, bodyStart)
		}
		b.WriteString(s[last:pos])
		b.WriteString(Marker(p.kind))
		last = end
		if *counts == nil {
			*counts = Counts{}
		}
		(*counts)[p.kind]++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// base64LinesEnd returns the end of the lines of 16 or more base64
// characters that follow i.
func base64LinesEnd(s string, i int) int {
	for {
		j := i
		if j < len(s) && s[j] == '\r' {
			j++
		}
		if j >= len(s) || s[j] != '\n' {
			return i
		}
		j++
		k := j
		for k < len(s) && (wordByte(s[k]) && s[k] != '_' || s[k] == '+' || s[k] == '/' || s[k] == '=') {
			k++
		}
		if k-j < 16 {
			return i
		}
		i = k
	}
}

// High-entropy tokens: runs of base64/base64url characters whose longest
// piece between separators (/ _ - . + =) is at least minEntropyLen long,
// mixes upper case, lower case and digits, switches between them often
// and carries at least minEntropyBits bits per character: generated keys.
// Words, camel-case names, paths, slugs, hex hashes and UUIDs fail one of
// these.
const (
	minEntropyLen  = 20
	minEntropyBits = 3.7
	minSwitchRate  = 0.3
)

// HighEntropy replaces the high-entropy strings of s only.
func HighEntropy(s string) (string, Counts) {
	var counts Counts
	s = highEntropy(s, &counts)
	return s, counts
}

func highEntropy(s string, counts *Counts) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !tokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		if j-i >= minEntropyLen && secretLike(s[i:j]) {
			b.WriteString(s[last:i])
			b.WriteString(Marker(KindHighEntropy))
			last = j
			if *counts == nil {
				*counts = Counts{}
			}
			(*counts)[KindHighEntropy]++
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c == '.'
}

func secretLike(tok string) bool {
	longest := ""
	for piece := range strings.FieldsFuncSeq(tok, func(r rune) bool { return strings.ContainsRune("/_-.+=", r) }) {
		if len(piece) > len(longest) {
			longest = piece
		}
	}
	if len(longest) < minEntropyLen {
		return false
	}
	class := func(c byte) int {
		switch {
		case c >= 'A' && c <= 'Z':
			return 0
		case c >= 'a' && c <= 'z':
			return 1
		}
		return 2
	}
	var seen [3]int
	var freq [256]int
	switches := 0
	for i := 0; i < len(longest); i++ {
		c := longest[i]
		freq[c]++
		seen[class(c)]++
		if i > 0 && class(c) != class(longest[i-1]) {
			switches++
		}
	}
	if seen[0] == 0 || seen[1] == 0 || seen[2] == 0 || float64(switches) < minSwitchRate*float64(len(longest)-1) {
		return false
	}
	bits, n := 0.0, float64(len(longest))
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			bits -= p * math.Log2(p)
		}
	}
	return bits >= minEntropyBits
}
