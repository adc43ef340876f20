package test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is the root module's path.
const module = "github.com/redrive/redrive"

// TestProductLinksNoEmulator checks the layout's one rule: what is
// deployed (every package outside emulate/, test/ and cmd/redrive, the
// Lambda mains under cmd/lambda among them) links nothing under emulate/,
// which exists only to run locally. Test files may use the emulators;
// the packages' own code may not, directly or through another package.
func TestProductLinksNoEmulator(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())

	var product []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(fields[0], module+"/")
		if !isProduct(pkg) {
			continue
		}
		product = append(product, pkg)
		for _, dep := range fields[1:] {
			assert.False(t, strings.HasPrefix(dep, module+"/emulate/"), "%s links %s: product code must not depend on emulate/", pkg, dep)
		}
	}
	require.NoError(t, sc.Err())
	for _, want := range []string{"breaker", "dynamo", "attempt", "starter", "room", "park", "cmd/lambda/attempt", "cmd/lambda/starter"} {
		assert.Contains(t, product, want, "the check covers the product package %s", want)
	}
}

// isProduct reports whether a package of the module (its path inside the
// module) is product code.
func isProduct(pkg string) bool {
	for _, local := range []string{"emulate", "test", "cmd/redrive"} {
		if pkg == local || strings.HasPrefix(pkg, local+"/") {
			return false
		}
	}
	return true
}
