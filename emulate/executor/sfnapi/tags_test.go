package sfnapi_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tags builds a TagList from key, value pairs.
func tags(kv ...string) []sfntypes.Tag {
	out := make([]sfntypes.Tag, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		out = append(out, sfntypes.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

// listTags returns a resource's tags as key, value pairs, in order.
func (v *env) listTags(t *testing.T, arn string) []string {
	t.Helper()
	out, err := v.client.ListTagsForResource(context.Background(), &sfn.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	require.NotNil(t, out.Tags)
	kv := []string{}
	for _, tg := range out.Tags {
		kv = append(kv, aws.ToString(tg.Key), aws.ToString(tg.Value))
	}
	return kv
}

func TestTags(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	created, err := v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("redrive"), Definition: aws.String(attemptDef), RoleArn: aws.String(roleARN),
		Tags: tags("team", "ops", "cost center", "12345"),
	})
	require.NoError(t, err)
	sm := aws.ToString(created.StateMachineArn)
	other := v.create(t, "cooldown", cooldownDef)
	assert.Equal(t, []string{"team", "ops", "cost center", "12345"}, v.listTags(t, sm), "CreateStateMachine's tags, in order")
	assert.Equal(t, []string{}, v.listTags(t, other), "no tags is an empty list")

	_, err = v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("redrive"), Definition: aws.String(attemptDef), RoleArn: aws.String(roleARN),
		Tags: tags("team", "dev"),
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"team", "ops", "cost center", "12345"}, v.listTags(t, sm), "an idempotent create ignores its tags, as AWS does")

	_, err = v.client.TagResource(ctx, &sfn.TagResourceInput{ResourceArn: aws.String(sm), Tags: tags("team", "sre", "env", "local", "empty", "")})
	require.NoError(t, err)
	assert.Equal(t, []string{"team", "sre", "cost center", "12345", "env", "local", "empty", ""}, v.listTags(t, sm),
		"a key already there takes its new value in place; new keys follow")

	_, err = v.client.UntagResource(ctx, &sfn.UntagResourceInput{ResourceArn: aws.String(sm), TagKeys: []string{"cost center", "absent"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"team", "sre", "env", "local", "empty", ""}, v.listTags(t, sm), "an absent key is no error")
	assert.Equal(t, []string{}, v.listTags(t, other), "tags are per state machine")

	t.Run("a state machine created on the executor", func(t *testing.T) {
		direct, err := v.e.CreateStateMachine(ctx, "direct", cooldownDef, roleARN)
		require.NoError(t, err)
		assert.Equal(t, []string{}, v.listTags(t, direct))
		_, err = v.client.TagResource(ctx, &sfn.TagResourceInput{ResourceArn: aws.String(direct), Tags: tags("origin", "executor")})
		require.NoError(t, err)
		assert.Equal(t, []string{"origin", "executor"}, v.listTags(t, direct))
	})

	t.Run("up to 50 tags", func(t *testing.T) {
		var kv []string
		for i := range 50 {
			kv = append(kv, fmt.Sprintf("k%02d", i), "v")
		}
		_, err := v.client.TagResource(ctx, &sfn.TagResourceInput{ResourceArn: aws.String(other), Tags: tags(kv...)})
		require.NoError(t, err)
		assert.Len(t, v.listTags(t, other), 2*50, "50 key, value pairs")
		_, err = v.client.TagResource(ctx, &sfn.TagResourceInput{ResourceArn: aws.String(other), Tags: tags("k00", "replaced")})
		require.NoError(t, err, "replacing a value adds no tag")
		_, err = v.client.TagResource(ctx, &sfn.TagResourceInput{ResourceArn: aws.String(other), Tags: tags("k50", "v")})
		requireAPIError(t, err, "TooManyTags", true)
		assert.Len(t, v.listTags(t, other), 2*50, "a failed TagResource adds nothing")
	})

	t.Run("Unicode letters, digits, white space and _ . : / = + - @", func(t *testing.T) {
		_, err := v.client.TagResource(ctx, &sfn.TagResourceInput{
			ResourceArn: aws.String(sm), Tags: tags("équipe_1.a:b/c=d+e-f@g", "donnée 2\u00a0ok"),
		})
		require.NoError(t, err)
	})
}
