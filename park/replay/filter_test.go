package replay_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/park/replay"
)

func TestParseBodyField(t *testing.T) {
	f, err := replay.ParseBodyField("/tenant/id=acme=1")
	require.NoError(t, err)
	assert.Equal(t, "/tenant/id", f.Pointer())
	assert.Equal(t, "acme=1", f.Value, "the value runs from the first '='")
	assert.True(t, f.Match(`{"tenant":{"id":"acme=1"}}`))
	assert.False(t, f.Match(`{"tenant":{"id":"acme"}}`))
	assert.False(t, f.Match(`not JSON`))

	empty, err := replay.ParseBodyField("/note=")
	require.NoError(t, err)
	assert.True(t, empty.Match(`{"note":""}`))
	assert.False(t, empty.Match(`{"note":null}`), "null is no value")

	for in, want := range map[string]string{
		"tenant=acme": `must start with "/"`,
		"/tenant":     "want /pointer=value",
		"/a~2=b":      "bad escape",
	} {
		_, err := replay.ParseBodyField(in)
		assert.ErrorContains(t, err, want, in)
	}
}

func TestFilterJSONRoundTrip(t *testing.T) {
	var f replay.Filter
	require.NoError(t, json.Unmarshal([]byte(`{"breaker":"-","body":["/a~1b=1","/n=2"]}`), &f))
	assert.Equal(t, replay.None, f.Breaker)
	require.Len(t, f.Body, 2)
	assert.True(t, f.Body[0].Match(`{"a/b":1}`))
	data, err := json.Marshal(f)
	require.NoError(t, err)
	assert.JSONEq(t, `{"breaker":"-","body":["/a~1b=1","/n=2"]}`, string(data))
	assert.Equal(t, "--breaker - --body /a~1b=1 --body /n=2", f.String())
	assert.Equal(t, "everything", replay.Filter{}.String())
	assert.Equal(t, "--reason 'table unavailable'", replay.Filter{Reason: "table unavailable"}.String())
	require.Error(t, json.Unmarshal([]byte(`{"body":["nope"]}`), &f))
}
