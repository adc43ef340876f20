package sim

import (
	"cmp"
	"errors"
	"math"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/quota"
)

// quotasNone is the quotas of "none": no bucket and no limit that a run
// could meet, so a run is held to nothing, but the Standard executions
// open at once are still counted.
var quotasNone = quota.Profile{Name: "none", Limits: map[quota.Name]int{quota.OpenStandard: math.MaxInt32}}

// DefaultQuotas is the quotas a scenario that names none runs under: the
// account quotas of most Regions, so a run's figures hold in them.
const DefaultQuotas = "standard"

// QuotaProfile is the account quotas s's strategies run under.
func (s Scenario) QuotaProfile() (quota.Profile, error) {
	p := quotasNone
	if name := cmp.Or(s.Quotas, DefaultQuotas); name != quotasNone.Name {
		var err error
		if p, err = quota.ByName(name); err != nil {
			return quota.Profile{}, err
		}
	}
	if s.OpenExecutionsLimit > 0 {
		p = p.WithLimit(quota.OpenStandard, s.OpenExecutionsLimit)
	}
	return p, nil
}

// quotaRefused reports whether a StartExecution was refused by the
// account's quotas: throttled, or over the open executions. A starter
// tries it again later (an SQS event source: the message comes back).
func quotaRefused(err error) bool {
	return errors.Is(err, executor.ErrThrottled) || errors.Is(err, executor.ErrExecutionLimitExceeded)
}
