// Package redacttest generates planted secrets for tests: random values of
// every kind package redact knows, each in a line of the context it is
// usually found in.
package redacttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/jetcompact/jetcompact/redact"
)

// Secret is one planted secret: Value must not survive redaction; Line
// carries it in context.
type Secret struct {
	Kind, Value, Line string
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum       = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64url      = alnum + "-_"
)

func pick(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

// mixed is a random string with at least one upper, lower and digit.
func mixed(r *rand.Rand, set string, n int) string {
	return "A" + "z" + "7" + pick(r, set, n-3)
}

// Planted returns one secret of every kind, fresh from r.
func Planted(r *rand.Rand) []Secret {
	aws := "AKIA" + pick(r, upperDigits, 16)
	ghp := "ghp_" + mixed(r, alnum, 36)
	glpat := "glpat-" + mixed(r, b64url, 20)
	slack := "xoxb-" + pick(r, "0123456789", 12) + "-" + mixed(r, alnum, 24)
	jwtHead := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	jwtBody := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","iat":%d}`, pick(r, alnum, 8), r.IntN(1e9))))
	jwt := jwtHead + "." + jwtBody + "." + mixed(r, b64url, 43)
	keyBody := base64.StdEncoding.EncodeToString([]byte(pick(r, alnum, 300)))
	var pem strings.Builder
	pem.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for i := 0; i < len(keyBody); i += 64 {
		pem.WriteString(keyBody[i:min(i+64, len(keyBody))] + "\n")
	}
	pem.WriteString("-----END RSA PRIVATE KEY-----")
	password := "Pw" + pick(r, alnum, 10) + "!x"
	dbPass := "Db" + pick(r, alnum, 12)
	bearer := mixed(r, b64url, 40)
	entropy := mixed(r, alnum, 40)
	secretJSON := "sk" + pick(r, alnum, 18)
	flag := "Fl" + pick(r, alnum, 12)
	return []Secret{
		{redact.KindAWSKey, aws, "2025-01-01 10:00:00 INFO using credentials " + aws + " for s3://bucket"},
		{redact.KindGitHub, ghp, "git clone https://github.com/org/repo.git # token " + ghp},
		{redact.KindGitLab, glpat, "export CI_TOKEN_HOLDER " + glpat},
		{redact.KindSlack, slack, "posting to slack with " + slack},
		{redact.KindJWT, jwt, "session cookie=" + jwt + "; Path=/"},
		{redact.KindPrivateKey, keyBody[:64], pem.String()},
		{redact.KindAssignment, password, "2025-01-01 10:00:02 DEBUG login user=alice password=" + password + " ok"},
		{redact.KindAssignment, secretJSON, `{"client_secret": "` + secretJSON + `", "user": "bob"}`},
		{redact.KindAssignment, flag, "+ mysql --user root --password " + flag + " -h db"},
		{redact.KindConnString, dbPass, "connecting to postgres://app:" + dbPass + "@db.internal:5432/prod"},
		{redact.KindBearer, bearer, "curl -H 'Authorization: Bearer " + bearer + "' https://api.example.com/v1"},
		{redact.KindHighEntropy, entropy, "2025-01-01 10:00:03 WARN signing with " + entropy + " now"},
	}
}

// Text embeds every planted secret among filler log lines.
func Text(r *rand.Rand, secrets []Secret) string {
	var b strings.Builder
	for i, s := range secrets {
		for j := range 3 {
			fmt.Fprintf(&b, "2025-01-01 10:%02d:%02d INFO worker %d processed batch %d in %dms\n", i, j, j, i*10+j, r.IntN(900))
		}
		b.WriteString(s.Line + "\n")
	}
	return b.String()
}
