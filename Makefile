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

.PHONY: all test vet fmt-check unit test-dynalite test-fauxqs bench bench-dynalite build

all: test

## test: vet, gofmt check, the race-enabled unit and scenario tests on the
## embedded backends, then the DynamoDB suites again against dynalite and
## the SQS suites against fauxqs.
test: vet unit test-dynalite test-fauxqs test-infra

vet: fmt-check
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files -o --exclude-standard '*.go' 2>/dev/null))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test $(GOFLAGS_T) ./...

## test-dynalite: the DynamoDB-backed suites against dynalite from npm,
## installed under .cache/ and started on a free loopback port. The
## end-to-end scenarios (./test) take about 40-50 s of it with -race.
DYNAMO_PKGS := ./breaker/dynamostore/... ./internal/ddbtest/... ./tasks/attempt/... ./tasks/admin/...
test-dynalite:
	scripts/with-dynalite.sh $(GO) test $(GOFLAGS_T) $(DYNAMO_PKGS) ./tasks/delivery/... ./internal/localrun/... ./test

## test-fauxqs: the SQS-backed suites against fauxqs (with a pinned Node 22)
## from npm, installed under .cache/ and started on a free loopback port.
test-fauxqs:
	scripts/with-fauxqs.sh $(GO) test $(GOFLAGS_T) ./internal/sqslocal/...

## bench-dynalite: the DynamoDB store benchmarks against dynalite.
bench-dynalite:
	scripts/with-dynalite.sh $(GO) test -run '^$$' -bench . -benchmem $(DYNAMO_PKGS)

## bench: the benchmarks whose figures the README reports.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./breaker/... ./internal/sim/...

## build: one Lambda bootstrap per main under tasks/cmd (provided.al2023,
## arm64), as build/<name>/bootstrap.
build:
	@set -e; for dir in tasks/cmd/*/; do \
		name=$$(basename "$$dir"); \
		echo "build/$$name/bootstrap"; \
		GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath \
			-ldflags='-s -w' -o "build/$$name/bootstrap" "./tasks/cmd/$$name"; \
	done

## CDK app (infra/, its own module). The CLI and Node 22 are installed,
## pinned, under .cache/cdk; the app and its tests run on that Node.
## synth: offline, the template under infra/cdk.out/. deploy, diff: need AWS
## credentials and a bootstrapped account (see infra/README.md).
CDK_VERSION := 2.1148.1
CDK_PREFIX  := $(CACHE)/cdk
CDK_STAMP   := $(CDK_PREFIX)/.installed-aws-cdk-$(CDK_VERSION)-node22
CDK_ENV     := PATH="$(CDK_PREFIX)/node_modules/.bin:$$PATH" CDK_DISABLE_CLI_TELEMETRY=1
CDK         := $(CDK_ENV) cdk --no-notices

.PHONY: synth deploy diff test-infra

$(CDK_STAMP):
	mkdir -p $(CDK_PREFIX)
	npm install --prefix $(CDK_PREFIX) --save-exact --loglevel=error aws-cdk@$(CDK_VERSION) node@22
	touch $@

synth: build $(CDK_STAMP)
	cd infra && AWS_EC2_METADATA_DISABLED=true $(CDK) synth --quiet

deploy: build $(CDK_STAMP)
	cd infra && $(CDK) deploy

diff: build $(CDK_STAMP)
	cd infra && $(CDK) diff

## test-infra: vet and test the CDK module (synthesizes the stack with
## placeholder bootstraps; no -race: the jsii runtime's shutdown races).
test-infra: $(CDK_STAMP)
	cd infra && $(CDK_ENV) $(GO) vet ./... && $(CDK_ENV) $(GO) test -count=1 ./...

## Step Functions Local and `redrive local` (cmd/redrive/README.md).
## test-sfn-local: the scenario suite (test/sfnlocal) on Step Functions Local
## at SFN_LOCAL_ENDPOINT, with deploy/sfn-local/sfn-local.env's settings and
## the Lambda server on LAMBDA_SERVER_ADDR (default 0.0.0.0:9001, reachable
## from the container); without SFN_LOCAL_ENDPOINT every test says why it
## skips. test-sfn-selftest: the same suite on the project's executor in
## RealTime mode; part of `make test` (about 10 s). local: `redrive local`
## on the default loopback ports until Ctrl-C (LOCAL_FLAGS adds flags).
SFN_LOCAL_ENV := deploy/sfn-local/sfn-local.env

.PHONY: test-sfn-local test-sfn-selftest local

test: test-sfn-selftest

test-sfn-local:
	set -a && . ./$(SFN_LOCAL_ENV) && set +a && \
	LAMBDA_SERVER_ADDR=$${LAMBDA_SERVER_ADDR:-0.0.0.0:9001} $(GO) test $(GOFLAGS_T) -v ./test/sfnlocal/...

test-sfn-selftest:
	SFN_LOCAL_SELFTEST=1 WAIT_TIME_SCALE=0.1 $(GO) test $(GOFLAGS_T) ./test/sfnlocal/...

local:
	$(GO) run ./cmd/redrive local $(LOCAL_FLAGS)

## run: `redrive run` on the default scenario: Redrive, a naive backoff and
## a bulk move on the same simulated outage, a table, and an HTML report
## under .cache/ (RUN_FLAGS adds flags, e.g. RUN_FLAGS='-scenario
## scenarios/per-tenant.yaml'). bench also plays BENCH_SCENARIOS and prints
## their tables. browser: Debian's chromium, for the report's headless
## browser test; `make unit` installs it when /usr/bin/chromium is absent.
CHROMIUM        := /usr/bin/chromium
BENCH_SCENARIOS := scenarios/default.yaml scenarios/large.yaml
REDRIVE_BIN     := $(CACHE)/bin/redrive

.PHONY: run bench-scenarios browser

run:
	$(GO) run ./cmd/redrive run $(RUN_FLAGS)

bench: bench-scenarios

bench-scenarios:
	$(GO) build -o $(REDRIVE_BIN) ./cmd/redrive
	@set -e; for s in $(BENCH_SCENARIOS); do \
		echo "== redrive run -scenario $$s"; \
		$(REDRIVE_BIN) run -scenario $$s -report $(CACHE)/report-$$(basename $$s .yaml).html; \
		echo; \
	done

unit: browser

browser:
	@[ -x $(CHROMIUM) ] || { \
		echo "installing Debian's chromium for the report test"; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y chromium; \
	}
