package asl

import (
	"errors"
	"strings"
)

// globPattern is a compiled StringMatches pattern: literal parts separated
// by "*" wildcards.
type globPattern struct {
	parts []string // len(parts) = number of wildcards + 1
}

// compileGlob compiles a StringMatches value: "*" matches any run of
// characters, "\*" is a literal asterisk and "\\" a literal backslash.
func compileGlob(s string) (*globPattern, error) {
	g := &globPattern{}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*':
			g.parts = append(g.parts, b.String())
			b.Reset()
		case '\\':
			if i+1 >= len(s) || (s[i+1] != '*' && s[i+1] != '\\') {
				return nil, errors.New(`a backslash must escape "*" or "\" in a StringMatches pattern`)
			}
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	g.parts = append(g.parts, b.String())
	return g, nil
}

// match reports whether s matches the whole pattern.
func (g *globPattern) match(s string) bool {
	first, last := g.parts[0], g.parts[len(g.parts)-1]
	if len(g.parts) == 1 {
		return s == first
	}
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for _, mid := range g.parts[1 : len(g.parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
