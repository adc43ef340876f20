// Command infra is the Redrive CDK app: it reads the "redrive" context
// (cdk.json, or -c redrive='{...}') and the stack name ("stackName",
// default Redrive), builds the stack, and checks it with cdk-nag's
// AwsSolutions rules, which fail the synth on any unsuppressed finding.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
	"github.com/redrive/redrive/infra/stack"
)

const defaultStackName = "Redrive"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	settings, err := stack.SettingsFromContext(app.Node().TryGetContext(jsii.String(stack.ContextKey)))
	if err != nil {
		return err
	}
	name := defaultStackName
	if v, ok := app.Node().TryGetContext(jsii.String("stackName")).(string); ok && v != "" {
		name = v
	}
	if _, err := stack.NewRedriveStack(app, name, &stack.Props{
		StackProps: awscdk.StackProps{Env: environment(), Description: jsii.String("Redrive: circuit-breaker redrive of an SQS dead-letter queue")},
		Settings:   settings,
	}); err != nil {
		return fmt.Errorf("synth %s: %w", name, err)
	}
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	app.Synth(nil)
	return nil
}

// environment pins the stack to the CLI's account and Region when it knows
// them (credentials configured), so props can be checked against the
// Region; without them (offline synth) the stack is environment-agnostic.
func environment() *awscdk.Environment {
	account, region := os.Getenv("CDK_DEFAULT_ACCOUNT"), os.Getenv("CDK_DEFAULT_REGION")
	if account == "" || region == "" {
		return nil
	}
	return &awscdk.Environment{Account: &account, Region: &region}
}
