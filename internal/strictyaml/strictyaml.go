// Package strictyaml decodes a YAML node into a Go value, rejecting unknown
// keys, with errors that name the line and the YAML key path rather than
// Go types.
package strictyaml

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode decodes n into out, over what out holds. path is the key path of
// n in the file ("pipeline.nodes.keywords"), used in errors. An unknown
// key is an error that names its line and suggests the closest known key;
// a value of the wrong type names its line, its key and the type wanted.
func Decode(n *yaml.Node, out any, path string) error {
	if n == nil || n.Kind == 0 {
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	lines := map[int]string{}
	if err := checkKeys(n, reflect.TypeOf(out), path, lines); err != nil {
		return err
	}
	if err := n.Decode(out); err != nil {
		return translate(err, lines, path)
	}
	return nil
}

var (
	nodeType      = reflect.TypeOf(yaml.Node{})
	unmarshalType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
)

// checkKeys walks n along type t and reports the first key t has no field
// for. lines collects the key path of every value line, for translate.
func checkKeys(n *yaml.Node, t reflect.Type, path string, lines map[int]string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType || reflect.PointerTo(t).Implements(unmarshalType) {
		return nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				continue
			}
			sub := join(path, k.Value)
			ft, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: %s: unknown key%s", k.Line, sub, suggest(k.Value, keysOf(fields)))
			}
			lines[v.Line] = sub
			if err := checkKeys(v, ft, sub, lines); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			sub := join(path, n.Content[i].Value)
			lines[n.Content[i+1].Line] = sub
			if err := checkKeys(n.Content[i+1], t.Elem(), sub, lines); err != nil {
				return err
			}
		}
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for i, item := range n.Content {
			sub := fmt.Sprintf("%s[%d]", path, i)
			lines[item.Line] = sub
			if err := checkKeys(item, t.Elem(), sub, lines); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlFields maps the YAML key of each field of struct t, inline fields
// included, to the field's type.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func keysOf(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// suggest returns " (did you mean X?)" for the known name closest to name
// when it is a plausible typo of it, else a list of the known names.
func suggest(name string, known []string) string {
	if best := Closest(name, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	if len(known) == 0 {
		return ""
	}
	return " (known keys: " + strings.Join(known, ", ") + ")"
}

// Closest returns the name in known within a typo's distance of name: an
// edit distance of at most 2, and at most a third of name's length; "" when
// none is.
func Closest(name string, known []string) string {
	best, bestD := "", 1<<30
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if bestD <= 2 && bestD*3 <= len(name) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var typeErr = regexp.MustCompile("^line (\\d+): cannot unmarshal !!\\w+ `(.*)` into (.+)$")

// translate rewrites yaml's type errors to name the key and the type a
// reader knows (a number, a duration, a list) instead of a Go type.
func translate(err error, lines map[int]string, path string) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		if path != "" {
			return fmt.Errorf("%s: %w", path, err)
		}
		return err
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		m := typeErr.FindStringSubmatch(e)
		if m == nil {
			msgs = append(msgs, e)
			continue
		}
		var line int
		fmt.Sscan(m[1], &line)
		key := lines[line]
		if key == "" {
			key = path
		}
		msgs = append(msgs, fmt.Sprintf("line %s: %s: want %s, got %q", m[1], key, readableType(m[3]), m[2]))
	}
	return errors.New(strings.Join(msgs, "; "))
}

func readableType(goType string) string {
	switch {
	case goType == "time.Duration":
		return "a duration such as 10s or 5m"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string" || strings.HasSuffix(goType, ".Key") || strings.HasSuffix(goType, ".Mode") || strings.HasSuffix(goType, ".Kind"):
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a mapping of keys to values"
	}
	return "a mapping"
}
