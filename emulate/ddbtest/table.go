package ddbtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TablePrefix starts every table name CreateTable makes, so leftovers on a
// shared endpoint are easy to recognise.
const TablePrefix = "redrive-test-"

// tableTimeout bounds creating a table (including waiting for it to become
// active) and deleting it.
const tableTimeout = 2 * time.Minute

// CreateFunc creates the table called name and returns once it is usable,
// e.g. a closure over dynamo.CreateTable.
type CreateFunc func(ctx context.Context, name string) error

// CreateTable creates a uniquely named table with create, deletes it when tb
// ends, and returns its name. Any failure stops the test.
func CreateTable(tb testing.TB, client *dynamodb.Client, create CreateFunc) string {
	tb.Helper()
	// rand.Text is 26 base32 characters: unique enough that test processes
	// sharing one endpoint never pick the same table, and valid in a name.
	name := TablePrefix + rand.Text()
	ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
	defer cancel()
	if err := create(ctx, name); err != nil {
		tb.Fatalf("ddbtest: create table %q: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
		defer cancel()
		if err := deleteTable(ctx, client, name); err != nil {
			tb.Errorf("ddbtest: %v", err)
		}
	})
	return name
}

// deleteTable removes the table; one that is already gone is not an error.
func deleteTable(ctx context.Context, client *dynamodb.Client, name string) error {
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	var notFound *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &notFound) {
		return fmt.Errorf("delete table %q: %w", name, err)
	}
	return nil
}
