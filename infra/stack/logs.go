package stack

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
)

// retentionDays maps CloudWatch Logs' retention values, in days, to the
// CDK's names for them.
var retentionDays = map[int]awslogs.RetentionDays{
	1: awslogs.RetentionDays_ONE_DAY, 3: awslogs.RetentionDays_THREE_DAYS,
	5: awslogs.RetentionDays_FIVE_DAYS, 7: awslogs.RetentionDays_ONE_WEEK,
	14: awslogs.RetentionDays_TWO_WEEKS, 30: awslogs.RetentionDays_ONE_MONTH,
	60: awslogs.RetentionDays_TWO_MONTHS, 90: awslogs.RetentionDays_THREE_MONTHS,
	120: awslogs.RetentionDays_FOUR_MONTHS, 150: awslogs.RetentionDays_FIVE_MONTHS,
	180: awslogs.RetentionDays_SIX_MONTHS, 365: awslogs.RetentionDays_ONE_YEAR,
	400: awslogs.RetentionDays_THIRTEEN_MONTHS, 545: awslogs.RetentionDays_EIGHTEEN_MONTHS,
	731: awslogs.RetentionDays_TWO_YEARS, 1096: awslogs.RetentionDays_THREE_YEARS,
	1827: awslogs.RetentionDays_FIVE_YEARS, 2192: awslogs.RetentionDays_SIX_YEARS,
	2557: awslogs.RetentionDays_SEVEN_YEARS, 2922: awslogs.RetentionDays_EIGHT_YEARS,
	3288: awslogs.RetentionDays_NINE_YEARS, 3653: awslogs.RetentionDays_TEN_YEARS,
}

// retentionChoices lists the valid LogRetentionDays, ascending.
func retentionChoices() []int {
	days := make([]int, 0, len(retentionDays))
	for d := range retentionDays {
		days = append(days, d)
	}
	slices.Sort(days)
	return days
}

// newLogGroup makes a log group kept for the configured retention, named
// name when not empty. It is retained when the stack is deleted: logs are
// the record of what happened to each message.
func newLogGroup(scope constructs.Construct, id, name string, s Settings) awslogs.LogGroup {
	props := &awslogs.LogGroupProps{
		Retention:     retentionDays[s.LogRetentionDays],
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	}
	if name != "" {
		props.LogGroupName = &name
	}
	return awslogs.NewLogGroup(scope, &id, props)
}
