package stack

import (
	"fmt"
	"net/url"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

var fiveMinutes = awscdk.Duration_Minutes(jsii.Number(5))

// alarmSpec is one alarm: what it watches, when it fires, and what to do.
type alarmSpec struct {
	id          string
	description string
	metric      awscloudwatch.IMetric
	threshold   int
	periods     int // evaluation periods, all of which must breach; default 1
	missing     awscloudwatch.TreatMissingData
}

// newAlarms creates the alarms, each notifying topic on ALARM and OK.
// releaseErrorsThreshold is one failed round of a releaser's tries: the
// release state machine's first try and its six retries.
const releaseErrorsThreshold = 7

func newAlarms(scope constructs.Construct, s Settings, st *storage, fns map[string]*function, sms *stateMachines, topic awssns.ITopic) []awscloudwatch.Alarm {
	dlqAge := st.dlq.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: minute})
	specs := []alarmSpec{
		{
			id: "DeadLetterQueueAgeAlarm",
			description: fmt.Sprintf("Warning: the DLQ's oldest message is older than %v: the starter is not taking messages "+
				"(disabled event source, failing or throttled starter, StartExecution quota). See the starter's logs.", s.Alarms.DeadLetterQueueAge),
			metric:    dlqAge,
			threshold: int(s.Alarms.DeadLetterQueueAge.Std().Seconds()),
			periods:   5,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "DeadLetterQueueAgeCriticalAlarm",
			description: fmt.Sprintf("Critical: the DLQ's oldest message is older than %v: the starter has not taken messages for that long, "+
				"and messages are lost when they outlive the DLQ's retention period. Check the event source mapping, the starter's "+
				"logs and errors, and the StartThrottled and Throttles alarms.", s.Alarms.DeadLetterQueueAgeCritical),
			metric:    dlqAge,
			threshold: int(s.Alarms.DeadLetterQueueAgeCritical.Std().Seconds()),
			periods:   5,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			// Messages sent in each minute, not the depth: a depth alarm
			// stays in ALARM while anything is parked, so later messages
			// would notify no one. SQS counts SendMessage (the starter's
			// and Park's), not what a DLQ's redrive policy moves in: with
			// the advised policy (50 receives, 181 s visibility) those
			// waited in the DLQ for over 2 hours, past both age alarms'
			// defaults.
			id: "ParkedMessagesAlarm",
			description: "Messages were parked in the last minute: poison, out of attempts, or not startable. Each carries " +
				"its lineage and failure history; fix the cause, then move them back with SQS's redrive.",
			metric: st.parkingLot.MetricNumberOfMessagesSent(&awscloudwatch.MetricOptions{
				Statistic: jsii.String("Sum"), Period: minute,
			}),
			threshold: 1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "AttemptErrorsAlarm",
			description: fmt.Sprintf("The attempt function failed %d or more times in each of three 5-minute periods (a consumer's "+
				"failures are outcomes, not errors): timeouts, crashes, the table failing. The state machine retries; a failing "+
				"table is waited out, other errors park the message after a few tries. See the attempt function's logs.", s.Alarms.AttemptErrors),
			metric:    fns[attemptFn].fn.MetricErrors(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: fiveMinutes}),
			threshold: s.Alarms.AttemptErrors,
			periods:   3,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id:          "FailedExecutionsAlarm",
			description: failedExecutionsDescription(s),
			metric:      sumOf("Failed and timed-out attempt executions", failedExecutionMetrics(s, sms)...),
			threshold:   s.Alarms.FailedExecutions,
			missing:     awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "AttemptStartsThrottledAlarm",
			description: "Attempt executions were throttled in 5 minutes: StartExecution calls (the account's StartExecution " +
				"quota, 6,000 a second for Express, which the starter's first tries and the controllers' releases share) or the " +
				"executions' state transitions. Nothing is lost: a throttled start stays in the DLQ or in its room and is tried " +
				"again, but deliveries slow down. Lower Release.MaxRate, ReleaseWorkers or StarterMaxConcurrency, or raise the quota.",
			metric: sumOf("Throttled attempt executions and StartExecution calls",
				sms.redrive.MetricThrottled(nil), startExecutionThrottles()),
			threshold: 1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "ReleaserFailedAlarm",
			description: "A breaker's controller (release state machine execution) ended without draining its room: stopped, " +
				"timed out, or failed at its history limit after days of a failing release function. Nothing is lost: its lease " +
				"expires, and the next message entering the room, canary or operator command (release) starts another.",
			metric:    sumOf("Failed, timed-out and aborted controllers", sms.release.MetricFailed(nil), sms.release.MetricTimedOut(nil), sms.release.MetricAborted(nil)),
			threshold: 1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "ReleaseErrorsAlarm",
			description: fmt.Sprintf("The release function failed %d or more times in 5 minutes: a controller's tries keep failing "+
				"(a table or Lambda outage, a bad setting), and it tries again every minute; its room waits meanwhile. See the "+
				"release function's logs.", releaseErrorsThreshold),
			metric:    fns[releaseFn].fn.MetricErrors(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: fiveMinutes}),
			threshold: releaseErrorsThreshold,
			periods:   1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "RoomDepthAlarm",
			description: fmt.Sprintf("A waiting room being released held %d or more messages in each of three 5-minute periods: the "+
				"release is not keeping up (a slow or throttling target, RELEASE_MAX_RATE, RELEASE_WORKERS, the StartExecution quota). "+
				"Messages wait safely; see the dashboard's release rate against the target's throttles.", s.Alarms.RoomDepth),
			metric:    insightsMax(metricRoomDepth, fiveMinutes),
			threshold: s.Alarms.RoomDepth,
			periods:   3,
			// The controller reports the room only while it runs: no
			// controller, no room being released.
			missing: awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "OldestWaitingAlarm",
			description: fmt.Sprintf("The oldest message in a waiting room being released has waited %v or more: the release "+
				"does not reach it (a stuck or failing controller, or a pace far below the backlog). Messages wait safely, as "+
				"documents in the table, for up to RoomTTL; see the release function's logs and the dashboard's release rate.",
				s.Alarms.OldestWaiting),
			metric:    insightsMax(metricOldestWaitingSeconds, minute),
			threshold: int(s.Alarms.OldestWaiting.Std().Seconds()),
			periods:   5,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "BreakerTrippedAlarm",
			description: "A breaker tripped (CLOSED or HALF_OPEN to OPEN), any key: its target is failing. " +
				"Its messages wait in its room; nothing is lost. See the dashboard's breaker state.",
			metric:    insightsSum(metricTrips, minute),
			threshold: 1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "ThrottlesAlarm",
			description: fmt.Sprintf("%d or more function invocations or state transitions were throttled in 5 minutes: "+
				"raise the Lambda concurrency or Step Functions quotas, or lower StarterMaxConcurrency.", s.Alarms.Throttles),
			metric:    sumOf("Throttles", throttleMetrics(fns, sms)...),
			threshold: s.Alarms.Throttles,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "TableUnavailableAlarm",
			description: "The table failed Attempts before they could deliver (throttled, unreachable, or a breaker row this " +
				"version cannot read) in each of 3 minutes. Nothing is parked yet: each message waits it out up to TABLE_RETRY_BUDGET (6h by default). " +
				"See the attempt function's logs and the table's metrics; a row that cannot be read is shown by `admin status`.",
			metric:    insightsSum(metricTableUnavailable, minute),
			threshold: 1,
			periods:   3,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "UnrecordedOutcomesAlarm",
			description: "An Attempt learned a delivery's outcome but could not store it on its delivery record or its breaker " +
				"row: the message was routed by the outcome all the same (a delivered message is Delivered), but the breaker " +
				"did not count it. See the attempt function's logs.",
			metric:    insightsSum(metricUnrecordedOutcomes, minute),
			threshold: 1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "ReleaserNotStartedAlarm",
			description: "A breaker's controller could not be started when its room got messages or its breaker let messages " +
				"through (the pace row's lease or StartExecution failed; see the starter's, waitroom's and attempt function's " +
				"logs): the minute's sweep (SweepSchedule) starts one once Step Functions takes starts again, or the next " +
				"message entering the room does. Start one at once with " +
				"`redrive admin release --breaker KEY` (the admin state machine's release command).",
			metric:    insightsSum(metricReleaserNotStarted, minute),
			threshold: 1,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
		{
			id: "StartThrottledAlarm",
			description: "The starter's StartExecution was throttled in each of 5 minutes: it retries through the DLQ, but the " +
				"Step Functions StartExecution quota is too low for the rate; lower StarterMaxConcurrency or raise the quota.",
			metric:    insightsSum(metricStartThrottled, minute),
			threshold: 1,
			periods:   5,
			missing:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		},
	}
	for _, key := range s.AlarmBreakerKeys {
		specs = append(specs, breakerNotClosed(key))
	}

	alarms := make([]awscloudwatch.Alarm, 0, len(specs))
	for _, spec := range specs {
		alarms = append(alarms, spec.create(scope, topic))
	}
	return alarms
}

// newAlarmTopic returns the topic the alarms notify: Alarms.TopicArn, or
// else a topic of the stack's own, so that no alarm goes unheard. Only
// CloudWatch alarms of this account and Region may publish to it, over TLS.
// It has a key of its own: CloudWatch cannot use the AWS managed key
// (aws/sns), whose policy cannot let it in.
func newAlarmTopic(scope constructs.Construct, s Settings) awssns.ITopic {
	id := jsii.String("AlarmTopic")
	if s.Alarms.TopicArn != "" {
		return awssns.Topic_FromTopicArn(scope, id, jsii.String(s.Alarms.TopicArn))
	}
	cloudwatch := awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)
	key := awskms.NewKey(scope, jsii.String("AlarmTopicKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the Redrive alarm topic"),
		EnableKeyRotation: jsii.Bool(true),
		// It protects notifications in flight only: nothing is left to
		// decrypt once the topic is gone.
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsEncrypt"),
		Principals: &[]awsiam.IPrincipal{cloudwatch},
		// What SNS asks KMS for on a publisher's behalf; in a key policy,
		// "*" is this key.
		Actions:   jsii.Strings("kms:Decrypt", "kms:GenerateDataKey"),
		Resources: jsii.Strings("*"),
	}), nil)
	topic := awssns.NewTopic(scope, id, &awssns.TopicProps{
		DisplayName: jsii.String("Redrive alarms"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	alarms := awscdk.Stack_Of(scope).FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("cloudwatch"),
		Resource:     jsii.String("alarm"),
		ResourceName: jsii.String("*"),
		ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
	topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsPublish"),
		Principals: &[]awsiam.IPrincipal{cloudwatch},
		Actions:    jsii.Strings("sns:Publish"),
		Resources:  &[]*string{topic.TopicArn()},
		Conditions: &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": awscdk.Aws_ACCOUNT_ID()},
			"ArnLike":      map[string]any{"aws:SourceArn": alarms},
		},
	}))
	return topic
}

// breakerNotClosed alarms while key's breaker is open, half-open or forced
// open. BreakerState is written only on a change, so missing data keeps the
// alarm's state; the period's minimum is the state it ended in unless it
// changed more than once in that minute.
func breakerNotClosed(key string) alarmSpec {
	return alarmSpec{
		id: breakerAlarmID(key),
		description: fmt.Sprintf("Breaker %q is not closed (open, half-open or forced open): its target is failing or an "+
			"operator forced it. Its messages wait in its room. Admin state machine: {\"command\": \"status\", \"breaker\": %q}.", key, key),
		metric: awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression:   jsii.String("IF(state >= 1 AND state <= 3, 1, 0)"),
			UsingMetrics: &map[string]awscloudwatch.IMetric{"state": breakerMetric(metricBreakerState, key, "Minimum")},
			Label:        jsii.String(key + " not closed"),
			Period:       minute,
		}),
		threshold: 1,
		missing:   awscloudwatch.TreatMissingData_IGNORE,
	}
}

// create makes the alarm, notifying topic on ALARM and OK.
func (a alarmSpec) create(scope constructs.Construct, topic awssns.ITopic) awscloudwatch.Alarm {
	periods := max(a.periods, 1)
	alarm := awscloudwatch.NewAlarm(scope, jsii.String(a.id), &awscloudwatch.AlarmProps{
		AlarmDescription:   jsii.String(a.description),
		Metric:             a.metric,
		Threshold:          jsii.Number(float64(a.threshold)),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		EvaluationPeriods:  jsii.Number(float64(periods)),
		DatapointsToAlarm:  jsii.Number(float64(periods)),
		TreatMissingData:   a.missing,
	})
	action := awscloudwatchactions.NewSnsAction(topic)
	alarm.AddAlarmAction(action)
	alarm.AddOkAction(action)
	return alarm
}

// sumOf adds metrics over 5 minutes, a missing value counting as 0. It
// panics on more metrics than an alarm may use: a programming error.
func sumOf(label string, metrics ...awscloudwatch.IMetric) awscloudwatch.MathExpression {
	if len(metrics) > maxAlarmMetrics {
		panic(fmt.Sprintf("stack: %s sums %d metrics; an alarm may use %d", label, len(metrics), maxAlarmMetrics))
	}
	using := map[string]awscloudwatch.IMetric{}
	expr := ""
	for i, m := range metrics {
		id := fmt.Sprintf("m%d", i)
		using[id] = m
		if i > 0 {
			expr += " + "
		}
		expr += "FILL(" + id + ", 0)"
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   &expr,
		UsingMetrics: &using,
		Label:        &label,
		Period:       fiveMinutes,
	})
}

// startExecutionThrottles counts the account's throttled StartExecution
// calls (Step Functions' API metric), of every state machine.
func startExecutionThrottles() awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String("AWS/States"),
		MetricName:    jsii.String("ThrottledEvents"),
		DimensionsMap: &map[string]*string{"APIName": jsii.String("StartExecution")},
		Statistic:     jsii.String("Sum"),
		Period:        fiveMinutes,
	})
}

// failedExecutionMetrics are the attempt state machine's failed and
// timed-out executions, and aborted ones when it is Standard (an Express
// execution cannot be stopped).
func failedExecutionMetrics(s Settings, sms *stateMachines) []awscloudwatch.IMetric {
	out := []awscloudwatch.IMetric{sms.redrive.MetricFailed(nil), sms.redrive.MetricTimedOut(nil)}
	if s.AttemptStateMachineType == AttemptStandard {
		out = append(out, sms.redrive.MetricAborted(nil))
	}
	return out
}

// failedExecutionsDescription says what a failed attempt execution means
// and where its message is.
func failedExecutionsDescription(s Settings) string {
	where := "Its message is in the execution's log (the attempt state machine's log group, with execution data): send its " +
		"document's message back to the DLQ."
	if s.AttemptStateMachineType == AttemptStandard {
		where = "A failed execution keeps its message in its input and history: redrive it from the console."
	}
	return fmt.Sprintf("%d or more attempt executions failed or timed out in 5 minutes (every try ends delivered, in the room "+
		"or parked, so a failure is the parking lot failing, or a bug). %s", s.Alarms.FailedExecutions, where)
}

// throttleMetrics are every function's throttles and the redrive and
// release state machines' throttled transitions, summed per period: at
// most maxAlarmMetrics.
func throttleMetrics(fns map[string]*function, sms *stateMachines) []awscloudwatch.IMetric {
	sum := &awscloudwatch.MetricOptions{Statistic: jsii.String("Sum")}
	var out []awscloudwatch.IMetric
	for _, spec := range functions {
		out = append(out, fns[spec.name].fn.MetricThrottles(sum))
	}
	return append(out, sms.redrive.MetricThrottled(sum), sms.release.MetricThrottled(sum))
}

// maxAlarmMetrics is how many metrics a metric math alarm may use
// (CloudWatch's hard limit).
const maxAlarmMetrics = 10

// breakerAlarmID names key's alarm construct; path-escaping keeps keys
// apart and "/", the construct path separator, out.
func breakerAlarmID(key string) string {
	return "BreakerNotClosedAlarm[" + url.PathEscape(key) + "]"
}
