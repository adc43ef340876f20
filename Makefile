# Redrive: circuit-breaker redrive orchestrator for SQS dead-letter queues.
# Everything a fresh machine needs is installed under .cache/ by these targets.

GO        ?= go
CACHE     := $(CURDIR)/.cache
GOFLAGS_T ?= -race -count=1

export GOTOOLCHAIN := local
export NODE_OPTIONS := --no-deprecation
export npm_config_update_notifier := false
export npm_config_fund := false
export npm_config_audit := false

.PHONY: all test vet fmt-check unit test-dynalite bench bench-dynalite

all: test

## test: vet, gofmt check, the race-enabled unit and scenario tests on the
## embedded backends, then the DynamoDB suites again against dynalite.
test: vet unit test-dynalite

vet: fmt-check
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files -o --exclude-standard '*.go' 2>/dev/null))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test $(GOFLAGS_T) ./...

## test-dynalite: the DynamoDB-backed suites against dynalite from npm,
## installed under .cache/ and started on a free loopback port.
DYNAMO_PKGS := ./breaker/dynamostore/... ./internal/ddbtest/...
test-dynalite:
	scripts/with-dynalite.sh $(GO) test $(GOFLAGS_T) $(DYNAMO_PKGS) ./tasks/delivery/...

## bench-dynalite: the DynamoDB store benchmarks against dynalite.
bench-dynalite:
	scripts/with-dynalite.sh $(GO) test -run '^$$' -bench . -benchmem $(DYNAMO_PKGS)

## bench: the benchmarks whose figures the README reports.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./breaker/...
