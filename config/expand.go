package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// envRef is ${NAME} or ${NAME:-default}, as Vector and shells write it.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandEnv replaces ${NAME} and ${NAME:-default} in every plain or quoted
// string value of n, in place. $${NAME} stays a literal ${NAME}. An unset
// variable without a default is an error naming its line.
func expandEnv(n *yaml.Node) error {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
		var missing []string
		const escaped = "\x00dollar\x00"
		v := strings.ReplaceAll(n.Value, "$${", escaped)
		v = envRef.ReplaceAllStringFunc(v, func(ref string) string {
			m := envRef.FindStringSubmatch(ref)
			if val, ok := os.LookupEnv(m[1]); ok && val != "" {
				return val
			}
			if m[2] != "" {
				return m[3]
			}
			missing = append(missing, m[1])
			return ref
		})
		if len(missing) > 0 {
			return fmt.Errorf("line %d: ${%s} is not set (give a default with ${%s:-value})", n.Line, missing[0], missing[0])
		}
		n.Value = strings.ReplaceAll(v, escaped, "${")
		if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
			n.Tag = "" // resolve again: ${PORT} may stand for a number
		}
	}
	for _, c := range n.Content {
		if err := expandEnv(c); err != nil {
			return err
		}
	}
	return nil
}
