// Package room is the waiting room: the documents of the messages that
// wait for their breaker (turned away while it is not CLOSED, paced out,
// backing off or delayed longer than a delivery try may last), stored
// under their breaker key in the breaker table, in line through the sparse
// index "room_line" (dynamo.RoomIndex) by when each may go and then by
// when it arrived, which lists entries without their documents; and their
// release: a claim (a conditional write with a lease, which reads the
// document from the item), an Express execution started with the
// document, then a conditional delete, so a
// controller that dies between the three loses nothing and releases
// nothing twice. A FIFO message waits in its message group's line
// (line.go): a group's turn, kept in one item, goes to one message at a
// time, in the group's order.
package room
