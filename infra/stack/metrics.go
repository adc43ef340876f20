package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// The embedded metrics the tasks write (lambda/telemetry): namespace, the
// one dimension, and the metric names.
const (
	metricNamespace = "Redrive"
	metricDimension = "Breaker"

	metricDelivered      = "Delivered"
	metricTransient      = "Transient"
	metricPoison         = "Poison"
	metricParked         = "Parked"
	metricTrips          = "Trips"
	metricCloses         = "Closes"
	metricCanaries       = "Canaries"
	metricWaits          = "Waits"
	metricDuplicates     = "Duplicates"
	metricStartThrottled = "StartThrottled"
	metricThrottled      = "Throttled"
	metricReleased       = "Released"
	// What the routing rules did (rules).
	metricQuarantined = "Quarantined"
	metricHeld        = "Held"
	// metricTableUnavailable counts Attempts the table failed before they
	// delivered (retried for hours); metricUnrecordedOutcomes counts
	// outcomes the Attempt knew but could not store.
	metricTableUnavailable   = "TableUnavailable"
	metricUnrecordedOutcomes = "UnrecordedOutcomes"
	// metricReleaserNotStarted counts breakers' controllers the starter,
	// the waiting room or an Attempt could not start.
	metricReleaserNotStarted = "ReleaserNotStarted"
	// The waiting room's gauges, written by its controller while it runs:
	// RoomDepth about once a minute, the others every tick.
	metricRoomDepth            = "RoomDepth"
	metricOldestWaitingSeconds = "OldestWaitingSeconds"
	metricReleaseRatePerMinute = "ReleaseRatePerMinute"
	// metricBreakerState is written on every state change: 0 closed,
	// 1 half-open, 2 open, 3 forced open, 4 forced closed.
	metricBreakerState = "BreakerState"
)

var minute = awscdk.Duration_Minutes(jsii.Number(1))

// breakerMetric is one breaker's metric.
func breakerMetric(name, key, statistic string) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(metricNamespace),
		MetricName:    jsii.String(name),
		DimensionsMap: &map[string]*string{metricDimension: jsii.String(key)},
		Statistic:     jsii.String(statistic),
		Period:        minute,
	})
}

// searchExpression is the SEARCH over every breaker's metric name, so
// breakers keyed by attribute or body show up without a list of keys.
func searchExpression(name, statistic string) string {
	return fmt.Sprintf(`SEARCH('{%s,%s} MetricName="%s"', '%s', 60)`, metricNamespace, metricDimension, name, statistic)
}

// perBreaker graphs name for every breaker, one line per key.
func perBreaker(name, statistic string) awscloudwatch.SearchExpression {
	return awscloudwatch.NewSearchExpression(&awscloudwatch.SearchExpressionProps{
		Expression: jsii.String(searchExpression(name, statistic)),
		Period:     minute,
	})
}

// allBreakers sums name over every breaker, per minute.
func allBreakers(name string) awscloudwatch.MathExpression {
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String("SUM(" + searchExpression(name, "Sum") + ")"),
		Label:      jsii.String(name),
		Period:     minute,
	})
}

// insightsSum is a Metrics Insights query summing name over every breaker;
// unlike SEARCH, an alarm can watch it.
func insightsSum(name string, period awscdk.Duration) awscloudwatch.MathExpression {
	return insights("SUM", name, name+" (all breakers)", period)
}

// insightsMax is a Metrics Insights query for the largest value of name
// of any breaker: a gauge's worst key.
func insightsMax(name string, period awscdk.Duration) awscloudwatch.MathExpression {
	return insights("MAX", name, name+" (largest of any breaker)", period)
}

func insights(function, name, label string, period awscdk.Duration) awscloudwatch.MathExpression {
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf(`SELECT %s(%s) FROM SCHEMA("%s", %s)`, function, name, metricNamespace, metricDimension)),
		Label:      &label,
		Period:     period,
	})
}
