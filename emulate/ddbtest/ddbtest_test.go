package ddbtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
)

// createPK creates the project's pk-only table and waits until it is active.
func createPK(client *dynamodb.Client) ddbtest.CreateFunc {
	return func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	}
}

func TestCreateTableIsUniqueAndDeletedAtCleanup(t *testing.T) {
	client, backend := ddbtest.Client(t)
	t.Logf("backend %s", backend)
	var names []string
	t.Run("uses two tables", func(t *testing.T) {
		for range 2 {
			name := ddbtest.CreateTable(t, client, createPK(client))
			assert.True(t, strings.HasPrefix(name, ddbtest.TablePrefix), name)
			_, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{
				TableName: aws.String(name),
				Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}},
			})
			require.NoError(t, err, "table %s is usable", name)
			names = append(names, name)
		}
	})
	require.Len(t, names, 2)
	assert.NotEqual(t, names[0], names[1])
	for _, name := range names {
		out, err := client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil {
			// Some endpoints keep a deleted table visible while DELETING.
			assert.Equal(t, types.TableStatusDeleting, out.Table.TableStatus, name)
			continue
		}
		assert.ErrorAs(t, err, new(*types.ResourceNotFoundException), name)
	}
}
