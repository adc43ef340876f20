package stack

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
	"github.com/stretchr/testify/require"
)

// The stack is synthesized once per fixture per test binary (through the
// jsii runtime, the costly part) and every test reads the shared template.

// buildDir is a placeholder for `make build`'s output: one bootstrap file
// per function, made by TestMain. Tests only; the stack never makes one.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redrive-infra-build-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, fn := range functions {
		err := os.MkdirAll(filepath.Join(dir, fn.name), 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fn.name, "bootstrap"), []byte("placeholder "+fn.name), 0o755)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Account, Region and ARNs the fixtures use.
const (
	testRegion   = "eu-west-1"
	testAccount  = "123456789012"
	dlqArn       = "arn:aws:sqs:eu-west-1:123456789012:orders-dlq"
	dlqKeyArn    = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	consumerArn  = "arn:aws:lambda:eu-west-1:123456789012:function:orders-consumer:live"
	sourceArn    = "arn:aws:sqs:eu-west-1:123456789012:orders"
	topicArn     = "arn:aws:sns:eu-west-1:123456789012:redrive-alarms"
	existingName = "existing"
	demoName     = "demo"
	fifoName     = "fifo"
)

// fixtureSettings are the deployments the tests synthesize: an existing
// KMS-encrypted DLQ feeding a Lambda consumer with a fixed key, a Standard
// attempt state machine, tracing, an alarm topic, the waiting room's
// settings and bodies kept 45 days; and the demo queues with an SQS
// target, breakers keyed by a JSON pointer, and defaults elsewhere (an
// Express attempt state machine, bodies kept 30 days); and an existing
// FIFO DLQ whose messages go back to their FIFO source queue, a group
// held behind each parked message (FIFO_ON_PARK=hold).
func fixtureSettings(name string) Settings {
	switch name {
	case existingName:
		return Settings{
			DeadLetterQueueArn:      dlqArn,
			DeadLetterQueueKeyArn:   dlqKeyArn,
			Target:                  Target{Kind: TargetLambda, FunctionArn: consumerArn, SourceQueueArn: sourceArn},
			BreakerKey:              KeySelector{Fixed: "orders"},
			Policy:                  map[string]string{"BREAKER_COOLDOWN_BASE": "1m", "BREAKER_WINDOW_SIZE": "30", "BREAKER_CANARY_LEASE": "3m"},
			MaxAttempts:             8,
			BackoffBase:             Duration(2e9),
			BackoffMax:              Duration(300e9),
			PoisonErrorTypes:        []string{"ValidationError", "SchemaError"},
			ThrottleErrorTypes:      []string{"TooBusy", "RateLimited"},
			AttemptTimeout:          Duration(120e9),
			UnknownOutcome:          "park",
			TableRetryBudget:        Duration(2 * time.Hour),
			AttemptStateMachineType: "standard",
			RoomTTL:                 Duration(7 * 24 * time.Hour),
			BodyRetentionDays:       45,
			ReleaseWorkers:          32,
			Release:                 ReleasePace{StartRate: 5, MaxRate: 120.5, Backoff: 0.8, Tick: Duration(2 * time.Second), Lease: Duration(90 * time.Second)},
			StarterMaxConcurrency:   5,
			Alarms: Alarms{TopicArn: topicArn, DeadLetterQueueAge: Duration(10 * time.Minute), DeadLetterQueueAgeCritical: Duration(45 * time.Minute),
				AttemptErrors: 3, RoomDepth: 500, OldestWaiting: Duration(20 * time.Minute)},
			LogRetentionDays: 90,
			Tracing:          true,
			BuildDir:         buildDir,
		}
	case demoName:
		return Settings{
			DemoQueues:       true,
			Target:           Target{Kind: TargetSQS},
			BreakerKey:       KeySelector{Pointer: "/tenant/id"},
			AlarmBreakerKeys: []string{"acme", "globex/eu"},
			BuildDir:         buildDir,
		}
	case fifoName:
		return Settings{
			DeadLetterQueueArn: dlqArn + ".fifo",
			Target:             Target{Kind: TargetSQS, SourceQueueArn: sourceArn + ".fifo"},
			BreakerKey:         KeySelector{Fixed: "accounts"},
			FIFOOnPark:         "hold",
			BuildDir:           buildDir,
		}
	}
	panic("no fixture " + name)
}

// synthesized is one fixture's stack, template and cdk-nag findings.
type synthesized struct {
	settings  Settings
	template  map[string]any
	resources map[string]resource
	// findings are the unsuppressed AwsSolutions errors and warnings.
	findings []string
	// suppressed are the findings a suppression hid, as "construct path:
	// rule[applies to]" with logical ids' hashes dropped.
	suppressed []string
}

// resource is one template resource.
type resource struct {
	Type                string
	Properties          map[string]any
	DependsOn           any
	Metadata            map[string]any
	DeletionPolicy      string
	UpdateReplacePolicy string
}

var (
	synthOnce = map[string]*sync.Once{existingName: {}, demoName: {}, fifoName: {}}
	synths    = map[string]*synthesized{}
	synthErrs = map[string]error{}
)

// synth returns fixture name synthesized, synthesizing it on first use.
func synth(t testing.TB, name string) *synthesized {
	t.Helper()
	synthOnce[name].Do(func() { synths[name], synthErrs[name] = synthesize(name) })
	require.NoError(t, synthErrs[name], "synthesize fixture %s", name)
	return synths[name]
}

func synthesize(name string) (*synthesized, error) {
	s := fixtureSettings(name)
	app := awscdk.NewApp(nil)
	props := &Props{Settings: s}
	if name == existingName {
		props.Env = &awscdk.Environment{Account: jsii.String(testAccount), Region: jsii.String(testRegion)}
	}
	stack, err := NewRedriveStack(app, "Redrive", props)
	if err != nil {
		return nil, err
	}
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{
		LogIgnores: jsii.Bool(true), // report suppressed findings too, as info
	}), nil)
	template := *assertions.Template_FromStack(stack, nil).ToJSON()

	out := &synthesized{settings: s.withDefaults(), template: template, resources: map[string]resource{}}
	raw, _ := template["Resources"].(map[string]any)
	for id, r := range raw {
		m := r.(map[string]any)
		res := resource{DependsOn: m["DependsOn"]}
		res.Type, _ = m["Type"].(string)
		res.Properties, _ = m["Properties"].(map[string]any)
		res.Metadata, _ = m["Metadata"].(map[string]any)
		res.DeletionPolicy, _ = m["DeletionPolicy"].(string)
		res.UpdateReplacePolicy, _ = m["UpdateReplacePolicy"].(string)
		out.resources[id] = res
	}
	annotations := assertions.Annotations_FromStack(stack)
	rule := assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-.*"))
	out.findings = append(messages(annotations.FindError(jsii.String("*"), rule)),
		messages(annotations.FindWarning(jsii.String("*"), rule))...)
	for _, m := range messages(annotations.FindInfo(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("was triggered but suppressed")))) {
		path, msg, _ := strings.Cut(m, ": ")
		out.suppressed = append(out.suppressed, path+": "+suppressedRule(msg))
	}
	sort.Strings(out.findings)
	sort.Strings(out.suppressed)
	return out, nil
}

// ofType returns the logical ids of the resources of type typ, sorted.
func (s *synthesized) ofType(typ string) []string {
	var ids []string
	for id, r := range s.resources {
		if r.Type == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// only returns the one resource of type typ.
func (s *synthesized) only(t testing.TB, typ string) (string, resource) {
	t.Helper()
	ids := s.ofType(typ)
	require.Len(t, ids, 1, "resources of type %s", typ)
	return ids[0], s.resources[ids[0]]
}

// function returns the Lambda function deployed from build/<name>.
func (s *synthesized) function(t testing.TB, name string) (string, resource) {
	t.Helper()
	for _, id := range s.ofType("AWS::Lambda::Function") {
		if desc, _ := s.resources[id].Properties["Description"].(string); desc == specOf(name).description {
			return id, s.resources[id]
		}
	}
	t.Fatalf("no function %s", name)
	return "", resource{}
}

// messages renders annotations as "construct path: message".
//
//lint:ignore SA1019 the assertions API returns this type; aws-cdk-go has no other.
func messages(list *[]*cxapi.SynthesisMessage) []string {
	var out []string
	for _, m := range *list {
		out = append(out, fmt.Sprintf("%s: %v", *m.Id, m.Entry.Data)) //lint:ignore SA1019 as above
	}
	return out
}

// suppressedPattern reads cdk-nag's "CdkNagSuppression[Resource::<Attempt1A2B3C4D.Arn>:*]:
// AwsSolutions-IAM5 was triggered but suppressed."
var (
	suppressedPattern = regexp.MustCompile(`^CdkNagSuppression(\[.*\])?: (\S+) was triggered but suppressed`)
	logicalIDHash     = regexp.MustCompile(`([A-Za-z0-9]+?)[0-9A-F]{8}\b`)
)

// suppressedRule turns a suppression message into "rule[applies to]".
func suppressedRule(msg string) string {
	m := suppressedPattern.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	return m[2] + logicalIDHash.ReplaceAllString(m[1], "$1")
}
