package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Dashboard layout: CloudWatch dashboards are 24 units wide.
const (
	fullWidth  = 24
	thirdWidth = 8
	halfWidth  = 12
	rowHeight  = 6
)

// newDashboard shows the breakers (state and activity per key, found by
// SEARCH so keys need not be listed), the waiting rooms (depth, oldest
// message, release rate), messages per minute, executions, the queues, the
// functions, and every alarm.
func newDashboard(scope constructs.Construct, st *storage, fns map[string]*function, sms *stateMachines,
	alarms []awscloudwatch.Alarm) awscloudwatch.Dashboard {
	sum := func(label string) *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: minute, Label: jsii.String(label)}
	}
	maximum := func(label string) *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: minute, Label: jsii.String(label)}
	}

	breakers := []awscloudwatch.IWidget{
		graph("Breaker state by key (0 closed, 1 half-open, 2 open, 3 forced open, 4 forced closed)", halfWidth,
			[]awscloudwatch.IMetric{perBreaker(metricBreakerState, "Maximum")}, nil,
			&awscloudwatch.YAxisProps{Min: jsii.Number(0), Max: jsii.Number(4), ShowUnits: jsii.Bool(false)}),
		graph("Breaker activity per minute (all keys)", halfWidth, []awscloudwatch.IMetric{
			allBreakers(metricTrips), allBreakers(metricCloses), allBreakers(metricCanaries), allBreakers(metricWaits),
		}, nil, nil),
	}
	messages := []awscloudwatch.IWidget{
		graph("Messages per minute (all keys)", thirdWidth, []awscloudwatch.IMetric{
			allBreakers(metricDelivered), allBreakers(metricTransient), allBreakers(metricPoison),
			allBreakers(metricParked), allBreakers(metricDuplicates), allBreakers(metricQuarantined), allBreakers(metricHeld),
		}, nil, nil),
		graph("Delivered per minute by key", thirdWidth, []awscloudwatch.IMetric{perBreaker(metricDelivered, "Sum")}, nil, nil),
		graph("Transient failures per minute by key", thirdWidth, []awscloudwatch.IMetric{perBreaker(metricTransient, "Sum")}, nil, nil),
	}
	// The controllers write the room's gauges while they run: no line,
	// no room being released.
	room := []awscloudwatch.IWidget{
		graph("Waiting room depth by key (while released)", thirdWidth, []awscloudwatch.IMetric{perBreaker(metricRoomDepth, "Maximum")}, nil, nil),
		graph("Oldest waiting message by key (seconds)", thirdWidth,
			[]awscloudwatch.IMetric{perBreaker(metricOldestWaitingSeconds, "Maximum")}, nil, nil),
		graph("Release rate per minute: pace by key, released and throttled (all keys)", thirdWidth, []awscloudwatch.IMetric{
			awscloudwatch.NewSearchExpression(&awscloudwatch.SearchExpressionProps{
				Expression: jsii.String(searchExpression(metricReleaseRatePerMinute, "Maximum")),
				Label:      jsii.String("pace ${PROP('Dim." + metricDimension + "')}"),
				Period:     minute,
			}),
			allBreakers(metricReleased), allBreakers(metricThrottled),
		}, nil, nil),
	}
	executions := []awscloudwatch.IWidget{
		graph("Attempt executions per minute (one per delivery try)", halfWidth, []awscloudwatch.IMetric{
			sms.redrive.MetricStarted(sum("Started")), sms.redrive.MetricSucceeded(sum("Succeeded")),
			sms.redrive.MetricFailed(sum("Failed")), sms.redrive.MetricTimedOut(sum("Timed out")),
			sms.redrive.MetricAborted(sum("Aborted")), sms.redrive.MetricThrottled(sum("Throttled")),
		}, nil, nil),
		// Standard executions only (the controllers, admin commands, and
		// the attempts when STANDARD): Express executions are not open
		// executions.
		graph("Executions running (account-wide open Standard executions)", halfWidth, []awscloudwatch.IMetric{
			awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace: jsii.String("AWS/States"), MetricName: jsii.String("OpenExecutionCount"),
				Statistic: jsii.String("Maximum"), Period: minute, Label: jsii.String("Open executions"),
			}),
		}, nil, nil),
	}
	queues := []awscloudwatch.IWidget{
		graph("Dead-letter queue", thirdWidth, []awscloudwatch.IMetric{
			st.dlq.MetricApproximateNumberOfMessagesVisible(maximum("Waiting")),
			st.dlq.MetricApproximateNumberOfMessagesNotVisible(maximum("Being started")),
		}, []awscloudwatch.IMetric{st.dlq.MetricApproximateAgeOfOldestMessage(maximum("Oldest (s)"))}, nil),
		graph("Parking lot", thirdWidth, []awscloudwatch.IMetric{
			st.parkingLot.MetricApproximateNumberOfMessagesVisible(maximum("Parked messages")),
			st.parkingLot.MetricNumberOfMessagesSent(sum("Newly parked per minute")),
		}, nil, nil),
		graph("StartExecution throttled per minute", thirdWidth, []awscloudwatch.IMetric{allBreakers(metricStartThrottled)}, nil, nil),
	}
	var errs, throttles []awscloudwatch.IMetric
	for _, spec := range functions {
		errs = append(errs, fns[spec.name].fn.MetricErrors(sum(spec.id)))
		throttles = append(throttles, fns[spec.name].fn.MetricThrottles(sum(spec.id)))
	}
	lambdas := []awscloudwatch.IWidget{
		graph("Function errors per minute", thirdWidth, errs, nil, nil),
		graph("Function throttles per minute", thirdWidth, throttles, nil, nil),
		graph("Attempt duration (ms)", thirdWidth, []awscloudwatch.IMetric{
			fns[attemptFn].fn.MetricDuration(&awscloudwatch.MetricOptions{Statistic: jsii.String("p50"), Period: minute, Label: jsii.String("p50")}),
			fns[attemptFn].fn.MetricDuration(&awscloudwatch.MetricOptions{Statistic: jsii.String("p99"), Period: minute, Label: jsii.String("p99")}),
		}, nil, nil),
	}
	alarmRefs := make([]interfacesawscloudwatch.IAlarmRef, len(alarms))
	for i, a := range alarms {
		alarmRefs[i] = a
	}
	status := []awscloudwatch.IWidget{awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
		Title: jsii.String("Alarms"), Alarms: &alarmRefs, Width: jsii.Number(fullWidth), Height: jsii.Number(4),
	})}

	return awscloudwatch.NewDashboard(scope, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		Widgets: &[]*[]awscloudwatch.IWidget{&status, &breakers, &room, &messages, &executions, &queues, &lambdas},
	})
}

// graph is a line graph of left (and right) metrics.
func graph(title string, width float64, left, right []awscloudwatch.IMetric, leftAxis *awscloudwatch.YAxisProps) awscloudwatch.GraphWidget {
	props := &awscloudwatch.GraphWidgetProps{
		Title:     jsii.String(title),
		Width:     jsii.Number(width),
		Height:    jsii.Number(rowHeight),
		Left:      &left,
		LeftYAxis: leftAxis,
	}
	if len(right) > 0 {
		props.Right = &right
	}
	return awscloudwatch.NewGraphWidget(props)
}
