package stack

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// alarmView is what an alarm watches, when it fires and whom it tells, as
// text.
type alarmView struct {
	Watches   []string // "expression" or "Namespace/Metric{dims} Stat/period", sorted
	Threshold float64  // reached or exceeded (GreaterThanOrEqualToThreshold)
	Periods   float64  // evaluation periods, each of which must breach
	Missing   string
	Notifies  []string // the ALARM actions, which are the OK actions too
}

// metricText renders a metric as Namespace/Metric{Name=value,...}.
func metricText(m map[string]any) string {
	var dims []string
	list, _ := m["Dimensions"].([]any)
	for _, d := range list {
		dm := d.(map[string]any)
		dims = append(dims, fmt.Sprintf("%v=%s", dm["Name"], render(dm["Value"])))
	}
	return fmt.Sprintf("%v/%v{%s}", m["Namespace"], m["MetricName"], strings.Join(dims, ","))
}

func viewAlarm(t *testing.T, p map[string]any) alarmView {
	t.Helper()
	require.Equal(t, "GreaterThanOrEqualToThreshold", p["ComparisonOperator"])
	require.Equal(t, p["EvaluationPeriods"], p["DatapointsToAlarm"], "every evaluated period must breach")
	v := alarmView{Threshold: p["Threshold"].(float64), Periods: p["EvaluationPeriods"].(float64), Missing: p["TreatMissingData"].(string)}
	v.Notifies = renderAll(p["AlarmActions"])
	assert.Equal(t, v.Notifies, renderAll(p["OKActions"]), "ALARM and OK notify the same topic")
	if name, ok := p["MetricName"]; ok {
		v.Watches = []string{fmt.Sprintf("%s %v/%v", metricText(map[string]any{
			"Namespace": p["Namespace"], "MetricName": name, "Dimensions": p["Dimensions"],
		}), p["Statistic"], p["Period"])}
	}
	metrics, _ := p["Metrics"].([]any)
	for _, m := range metrics {
		q := m.(map[string]any)
		if expr, ok := q["Expression"].(string); ok {
			if period, ok := q["Period"]; ok { // a Metrics Insights query's own period
				expr += fmt.Sprintf(" /%v", period)
			}
			v.Watches = append(v.Watches, expr)
			continue
		}
		stat := q["MetricStat"].(map[string]any)
		v.Watches = append(v.Watches, fmt.Sprintf("%v=%s %v/%v", q["Id"], metricText(stat["Metric"].(map[string]any)), stat["Stat"], stat["Period"]))
	}
	sort.Strings(v.Watches)
	return v
}

func TestAlarms(t *testing.T) {
	// The fixtures' thresholds: set (existing), and the defaults (demo):
	// DLQ ages of 15m and four times that, 5 attempt errors, 10,000
	// messages, an hour's wait.
	wantDLQAge := map[string]time.Duration{existingName: 10 * time.Minute, demoName: 15 * time.Minute}
	wantDLQAgeCritical := map[string]time.Duration{existingName: 45 * time.Minute, demoName: time.Hour}
	wantAttemptErrors := map[string]int{existingName: 3, demoName: 5}
	wantRoomDepth := map[string]int{existingName: 500, demoName: 10000}
	wantOldestWaiting := map[string]time.Duration{existingName: 20 * time.Minute, demoName: time.Hour}
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		notify := []string{alarmTopic(t, s)}
		dlqName, lotName := "orders-dlq", "{"+s.id(t, "AWS::SQS::Queue", "ParkingLot")+".QueueName}"
		if fixture == demoName {
			dlqName = "{" + s.id(t, "AWS::SQS::Queue", "DeadLetterQueue") + ".QueueName}"
		}
		redrive := "{" + s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine") + "}"
		release := "{" + s.id(t, "AWS::StepFunctions::StateMachine", "ReleaseStateMachine") + "}"
		fn := func(name string) string { id, _ := s.function(t, name); return "{" + id + "}" }
		executionsOf := func(sm, metric, id string) string {
			return fmt.Sprintf("%s=AWS/States/%s{StateMachineArn=%s} Sum/300", id, metric, sm)
		}
		executions := func(metric, id string) string { return executionsOf(redrive, metric, id) }
		throttles := []string{"FILL(m0, 0) + FILL(m1, 0) + FILL(m2, 0) + FILL(m3, 0) + FILL(m4, 0) + FILL(m5, 0) + FILL(m6, 0) + FILL(m7, 0)"}
		for i, spec := range functions {
			throttles = append(throttles, fmt.Sprintf("m%d=AWS/Lambda/Throttles{FunctionName=%s} Sum/300", i, fn(spec.name)))
		}
		throttles = append(throttles, executions("ExecutionThrottled", "m6"), executionsOf(release, "ExecutionThrottled", "m7"))
		sort.Strings(throttles)

		failed := map[string][]string{
			existingName: {"FILL(m0, 0) + FILL(m1, 0) + FILL(m2, 0)",
				executions("ExecutionsFailed", "m0"), executions("ExecutionsTimedOut", "m1"), executions("ExecutionsAborted", "m2")},
			demoName: {"FILL(m0, 0) + FILL(m1, 0)", executions("ExecutionsFailed", "m0"), executions("ExecutionsTimedOut", "m1")},
		}
		dlqAge := []string{"AWS/SQS/ApproximateAgeOfOldestMessage{QueueName=" + dlqName + "} Maximum/60"}
		want := map[string]alarmView{
			"DeadLetterQueueAgeAlarm": {Watches: dlqAge, Threshold: wantDLQAge[fixture].Seconds(), Periods: 5, Missing: "notBreaching", Notifies: notify},
			"DeadLetterQueueAgeCriticalAlarm": {Watches: dlqAge, Threshold: wantDLQAgeCritical[fixture].Seconds(), Periods: 5,
				Missing: "notBreaching", Notifies: notify},
			// Every message newly parked in a minute, so each batch
			// notifies; sent counts SendMessage (the starter's and Park's).
			"ParkedMessagesAlarm": {Watches: []string{"AWS/SQS/NumberOfMessagesSent{QueueName=" + lotName + "} Sum/60"},
				Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			"AttemptErrorsAlarm": {Watches: []string{"AWS/Lambda/Errors{FunctionName=" + fn(attemptFn) + "} Sum/300"},
				Threshold: float64(wantAttemptErrors[fixture]), Periods: 3, Missing: "notBreaching", Notifies: notify},
			// Aborted only when the attempt state machine is Standard (the
			// existing fixture's): an Express execution cannot be stopped.
			"FailedExecutionsAlarm": {Watches: failed[fixture], Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			// The attempt state machine's throttled transitions and the
			// account's throttled StartExecution calls.
			"AttemptStartsThrottledAlarm": {Watches: []string{
				"FILL(m0, 0) + FILL(m1, 0)", executions("ExecutionThrottled", "m0"),
				"m1=AWS/States/ThrottledEvents{APIName=StartExecution} Sum/300",
			}, Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			"ReleaserFailedAlarm": {Watches: []string{
				"FILL(m0, 0) + FILL(m1, 0) + FILL(m2, 0)", executionsOf(release, "ExecutionsFailed", "m0"),
				executionsOf(release, "ExecutionsTimedOut", "m1"), executionsOf(release, "ExecutionsAborted", "m2"),
			}, Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			"ReleaseErrorsAlarm": {Watches: []string{"AWS/Lambda/Errors{FunctionName=" + fn(releaseFn) + "} Sum/300"},
				Threshold: 7, Periods: 1, Missing: "notBreaching", Notifies: notify},
			// The releasers' gauges, the worst key: RoomDepth is written
			// about once a minute, so 5-minute periods.
			"RoomDepthAlarm": {Watches: []string{`SELECT MAX(RoomDepth) FROM SCHEMA("Redrive", Breaker) /300`},
				Threshold: float64(wantRoomDepth[fixture]), Periods: 3, Missing: "notBreaching", Notifies: notify},
			"OldestWaitingAlarm": {Watches: []string{`SELECT MAX(OldestWaitingSeconds) FROM SCHEMA("Redrive", Breaker) /60`},
				Threshold: wantOldestWaiting[fixture].Seconds(), Periods: 5, Missing: "notBreaching", Notifies: notify},
			"BreakerTrippedAlarm": {Watches: []string{`SELECT SUM(Trips) FROM SCHEMA("Redrive", Breaker) /60`},
				Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			"ThrottlesAlarm": {Watches: throttles, Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			"StartThrottledAlarm": {Watches: []string{`SELECT SUM(StartThrottled) FROM SCHEMA("Redrive", Breaker) /60`},
				Threshold: 1, Periods: 5, Missing: "notBreaching", Notifies: notify},
			"TableUnavailableAlarm": {Watches: []string{`SELECT SUM(TableUnavailable) FROM SCHEMA("Redrive", Breaker) /60`},
				Threshold: 1, Periods: 3, Missing: "notBreaching", Notifies: notify},
			"UnrecordedOutcomesAlarm": {Watches: []string{`SELECT SUM(UnrecordedOutcomes) FROM SCHEMA("Redrive", Breaker) /60`},
				Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
			"ReleaserNotStartedAlarm": {Watches: []string{`SELECT SUM(ReleaserNotStarted) FROM SCHEMA("Redrive", Breaker) /60`},
				Threshold: 1, Periods: 1, Missing: "notBreaching", Notifies: notify},
		}
		for _, key := range s.settings.AlarmBreakerKeys {
			want["BreakerNotClosedAlarm"+alphanumeric(key)] = alarmView{Watches: []string{
				"IF(state >= 1 AND state <= 3, 1, 0)",
				"state=Redrive/BreakerState{Breaker=" + key + "} Minimum/60",
			}, Threshold: 1, Periods: 1, Missing: "ignore", Notifies: notify}
		}

		t.Run(fixture+"/count", func(t *testing.T) {
			assert.Len(t, s.ofType("AWS::CloudWatch::Alarm"), len(want))
		})
		for constructID, view := range want {
			t.Run(fixture+"/"+constructID, func(t *testing.T) {
				assert.Equal(t, view, viewAlarm(t, s.resources[s.id(t, "AWS::CloudWatch::Alarm", constructID)].Properties))
			})
		}
	}
}

// alarmTopic is what every alarm's actions name: the fixture's topicArn,
// or the topic the stack created.
func alarmTopic(t testing.TB, s *synthesized) string {
	if arn := s.settings.Alarms.TopicArn; arn != "" {
		return arn
	}
	return "{" + s.id(t, "AWS::SNS::Topic", "AlarmTopic") + "}"
}

// TestAlarmTopic: with topicArn the alarms notify that topic and the
// stack makes none; without it the stack makes one, encrypted with a key
// of its own that CloudWatch may use, to which only this account's and
// Region's CloudWatch alarms may publish, and only over TLS.
func TestAlarmTopic(t *testing.T) {
	t.Run("given", func(t *testing.T) {
		s := synth(t, existingName)
		assert.Equal(t, topicArn, output(t, s, "AlarmTopicArn"))
		for _, typ := range []string{"AWS::SNS::Topic", "AWS::SNS::TopicPolicy", "AWS::KMS::Key"} {
			assert.Empty(t, s.ofType(typ), typ)
		}
	})
	t.Run("created", func(t *testing.T) {
		s := synth(t, demoName)
		topicID, topic := s.only(t, "AWS::SNS::Topic")
		keyID, key := s.only(t, "AWS::KMS::Key")
		ref := "{" + topicID + "}"
		assert.Equal(t, ref, output(t, s, "AlarmTopicArn"))
		assert.Equal(t, "{"+keyID+".Arn}", render(topic.Properties["KmsMasterKeyId"]), "a key CloudWatch may use, not aws/sns")
		assert.Equal(t, true, key.Properties["EnableKeyRotation"])
		assert.Equal(t, "Delete", key.DeletionPolicy, "it protects notifications in flight only")

		root := map[string]any{"AWS": map[string]any{"Fn::Join": []any{"", []any{
			"arn:", map[string]any{"Ref": "AWS::Partition"}, ":iam::", map[string]any{"Ref": "AWS::AccountId"}, ":root",
		}}}}
		cloudwatch := map[string]any{"Service": "cloudwatch.amazonaws.com"}
		assert.Equal(t, []map[string]any{
			// KMS's default: the account's IAM policies may grant the
			// key's use (none here does).
			{"Effect": "Allow", "Principal": root, "Action": "kms:*", "Resource": "*"},
			{"Sid": "CloudWatchAlarmsEncrypt", "Effect": "Allow", "Principal": cloudwatch,
				"Action": []any{"kms:Decrypt", "kms:GenerateDataKey"}, "Resource": "*"},
		}, statements(key.Properties["KeyPolicy"]))

		_, policy := s.only(t, "AWS::SNS::TopicPolicy")
		assert.Equal(t, []string{ref}, renderAll(policy.Properties["Topics"]))
		assert.Equal(t, []map[string]any{
			{"Sid": "AllowPublishThroughSSLOnly", "Effect": "Deny", "Principal": "*", "Action": "sns:Publish", "Resource": map[string]any{"Ref": topicID},
				"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}},
			{"Sid": "CloudWatchAlarmsPublish", "Effect": "Allow", "Principal": cloudwatch, "Action": "sns:Publish", "Resource": map[string]any{"Ref": topicID},
				"Condition": map[string]any{
					"StringEquals": map[string]any{"aws:SourceAccount": map[string]any{"Ref": "AWS::AccountId"}},
					"ArnLike": map[string]any{"aws:SourceArn": map[string]any{"Fn::Join": []any{"", []any{
						"arn:", map[string]any{"Ref": "AWS::Partition"}, ":cloudwatch:", map[string]any{"Ref": "AWS::Region"}, ":",
						map[string]any{"Ref": "AWS::AccountId"}, ":alarm:*",
					}}}},
				}},
		}, statements(policy.Properties["PolicyDocument"]))
	})
}

// TestAlarmsWithinCloudWatchLimits: a metric math alarm may use at most 10
// metrics (a hard limit; CloudFormation's schema does not check it).
func TestAlarmsWithinCloudWatchLimits(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		for _, id := range s.ofType("AWS::CloudWatch::Alarm") {
			metrics, _ := s.resources[id].Properties["Metrics"].([]any)
			n := 0
			for _, m := range metrics {
				if _, ok := m.(map[string]any)["MetricStat"]; ok {
					n++
				}
			}
			assert.LessOrEqual(t, n, maxAlarmMetrics, "%s/%s", fixture, id)
		}
	}
}

// alphanumeric is what a logical id keeps of a construct id.
func alphanumeric(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, breakerAlarmID(s)[len("BreakerNotClosedAlarm"):])
}

func TestDashboard(t *testing.T) {
	s := synth(t, demoName)
	_, dashboard := s.only(t, "AWS::CloudWatch::Dashboard")
	var body struct {
		Widgets []struct {
			Type       string
			Properties struct {
				Title   string
				Alarms  []string
				Metrics []any
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(render(dashboard.Properties["DashboardBody"])), &body))
	widgets := map[string]string{}
	var alarms []string
	for _, w := range body.Widgets {
		if w.Type == "alarm" {
			alarms = w.Properties.Alarms
			continue
		}
		b, _ := json.Marshal(w.Properties.Metrics)
		widgets[w.Properties.Title] = string(b)
	}

	assert.Len(t, alarms, len(s.ofType("AWS::CloudWatch::Alarm")), "every alarm on the dashboard")
	search := func(metric, stat string) string {
		b, _ := json.Marshal(searchExpression(metric, stat))
		return strings.Trim(string(b), `"`)
	}
	tests := []struct{ widget, contains string }{
		{"Breaker state by key (0 closed, 1 half-open, 2 open, 3 forced open, 4 forced closed)", search("BreakerState", "Maximum")},
		{"Breaker activity per minute (all keys)", "SUM(" + search("Trips", "Sum") + ")"},
		{"Messages per minute (all keys)", "SUM(" + search("Delivered", "Sum") + ")"},
		{"Messages per minute (all keys)", "SUM(" + search("Transient", "Sum") + ")"},
		{"Messages per minute (all keys)", "SUM(" + search("Parked", "Sum") + ")"},
		{"Delivered per minute by key", search("Delivered", "Sum")},
		{"Transient failures per minute by key", search("Transient", "Sum")},
		{"Attempt executions per minute (one per delivery try)", "ExecutionsStarted"},
		{"Attempt executions per minute (one per delivery try)", "ExecutionThrottled"},
		{"Executions running (account-wide open Standard executions)", "OpenExecutionCount"},
		{"Dead-letter queue", "ApproximateNumberOfMessagesVisible"},
		{"Parking lot", "ApproximateNumberOfMessagesVisible"},
		{"Parking lot", "NumberOfMessagesSent"},
		{"StartExecution throttled per minute", "SUM(" + search("StartThrottled", "Sum") + ")"},
		{"Waiting room depth by key (while released)", search("RoomDepth", "Maximum")},
		{"Oldest waiting message by key (seconds)", search("OldestWaitingSeconds", "Maximum")},
		{"Release rate per minute: pace by key, released and throttled (all keys)", search("ReleaseRatePerMinute", "Maximum")},
		{"Release rate per minute: pace by key, released and throttled (all keys)", "pace ${PROP('Dim.Breaker')}"},
		{"Release rate per minute: pace by key, released and throttled (all keys)", "SUM(" + search("Released", "Sum") + ")"},
		{"Release rate per minute: pace by key, released and throttled (all keys)", "SUM(" + search("Throttled", "Sum") + ")"},
		{"Function errors per minute", "Errors"},
		{"Attempt duration (ms)", "p99"},
	}
	for _, tt := range tests {
		t.Run(tt.widget+"/"+tt.contains, func(t *testing.T) {
			require.Contains(t, widgets, tt.widget)
			assert.Contains(t, widgets[tt.widget], tt.contains)
		})
	}
}
