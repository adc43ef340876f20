package wire

// FunctionARN is the ARN of the Lambda function name in region and
// account: the resource a state machine's task names when it invokes one
// of the functions this package builds.
func FunctionARN(region, account, name string) string {
	return "arn:aws:lambda:" + region + ":" + account + ":function:" + name
}
