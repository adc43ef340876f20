// Package ddbserver is the DynamoDB endpoint of the local stacks: an
// http.Handler that owns an embedded minidyn server
// (github.com/truora/minidyn/server), passes the operations minidyn
// implements through to it, and fills at this edge the gaps that SDK
// waiters, the AWS CLI and runbooks hit, in the shapes of the DynamoDB API
// reference:
//
//   - CreateTable, UpdateTable and DescribeTable report TableStatus ACTIVE
//     (minidyn reports none), so the table-exists waiters return at once;
//     DeleteTable reports DELETING. The null members minidyn writes for
//     unset fields of a table description are left out, as AWS does.
//   - ListTables lists the tables created through the handler, in name
//     order, paged by Limit and ExclusiveStartTableName.
//   - DescribeTimeToLive and UpdateTimeToLive remember each table's TTL
//     setting; a handler made with a clock deletes expired items every
//     thousand writes (Sweep), so a long-running stack's table holds what
//     has not expired, as DynamoDB's does.
//   - Snapshot and Restore carry the tables and their items across a
//     restart.
//   - Scan and Query with Select COUNT answer Count and ScannedCount and
//     no Items (minidyn ignores Select).
//   - Every answer carries an x-amzn-RequestId header, and every error a
//     namespaced __type: an operation outside the above and minidyn's is
//     UnknownOperationException, a body that is not a JSON object
//     SerializationException.
//
// The table operations run one at a time and apart from the item
// operations, since minidyn does not lock its table map for them.
//
// Where it departs from DynamoDB: tables are usable at once, so CreateTable
// and UpdateTable answer ACTIVE where AWS answers CREATING and UPDATING
// (API_CreateTable, API_UpdateTable); a TTL change takes effect at once,
// without the ENABLING and DISABLING states or the hour before the next
// change (API_UpdateTimeToLive); and with Select COUNT, ScannedCount is
// Count even under a FilterExpression, since minidyn does not report how
// many items it evaluated (API_Scan: they differ only under a filter).
// Table ARNs in place of table names are not accepted.
package ddbserver
