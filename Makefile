# Redrive: circuit-breaker redrive orchestrator for SQS dead-letter queues.
# Everything a fresh machine needs beyond Go and Node/npm is installed, pinned,
# under .cache/ by these targets (and Debian's chromium for the report test).

GO        ?= go
CACHE     := $(CURDIR)/.cache
GOFLAGS_T ?= -race -count=1

export GOTOOLCHAIN := local
export NODE_OPTIONS := --no-deprecation
export npm_config_update_notifier := false
export npm_config_fund := false
export npm_config_audit := false

.PHONY: all run test vet fmt-check unit test-dynalite test-fauxqs test-infra \
	test-sfn-selftest test-sfn-local bench bench-go bench-dynalite bench-scenarios \
	build synth deploy diff local install browser figures stress

all: test

## run: `redrive run` on the default scenario: Redrive, a naive backoff and a
## bulk move on the same simulated outage, a table, and an HTML report under
## .cache/ (RUN_FLAGS adds flags, e.g. RUN_FLAGS='-scenario scenarios/per-tenant.yaml').
run:
	$(GO) run ./cmd/redrive run $(RUN_FLAGS)

## test: everything, with the race detector: vet and gofmt; every package on
## the embedded backends (minidyn, sqslocal, the local executor); the
## DynamoDB-backed suites on dynalite; the SQS-backed suites on fauxqs; the
## Step Functions Local suite on the project's executor; the CDK app.
test: vet unit test-dynalite test-fauxqs test-sfn-selftest test-infra

## vet: gofmt, go vet, staticcheck, and gocyclo (no function over 25
## outside the ASL compiler, emulate/asl); the linters are installed,
## pinned, under .cache/bin.
STATICCHECK := $(CACHE)/bin/staticcheck-v0.8.2
GOCYCLO     := $(CACHE)/bin/gocyclo-v0.6.0

vet: fmt-check $(STATICCHECK) $(GOCYCLO)
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GOCYCLO) -over 25 -ignore '^emulate/asl/' .

$(STATICCHECK):
	GOBIN=$(CACHE)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	mv $(CACHE)/bin/staticcheck $@

$(GOCYCLO):
	GOBIN=$(CACHE)/bin $(GO) install github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0
	mv $(CACHE)/bin/gocyclo $@

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files -o --exclude-standard '*.go' 2>/dev/null))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit: browser
	$(GO) test $(GOFLAGS_T) ./...

DYNAMO_PKGS := ./dynamo/... ./emulate/ddbtest/... ./delivery ./attempt ./admin/... ./lambda/wire/... \
	./park ./park/lotindex ./rules/... ./room/... ./emulate/local/... ./test
SQS_PKGS    := ./emulate/sqslocal/... ./delivery/target/... ./park ./park/lotindex ./starter

## stress: the race-enabled tests ROUNDS times (default 5), two runs at once,
## to find tests that fail on a loaded machine (not part of make test: ~5
## minutes a round on 2 cores).
stress: browser
	GO=$(GO) scripts/stress.sh $(ROUNDS)

## test-dynalite: DYNAMO_PKGS against dynalite (npm), on a free loopback port.
test-dynalite:
	scripts/with-dynalite.sh $(GO) test $(GOFLAGS_T) $(DYNAMO_PKGS)

## test-fauxqs: SQS_PKGS against fauxqs (npm, with a pinned Node 22).
test-fauxqs:
	scripts/with-fauxqs.sh $(GO) test $(GOFLAGS_T) $(SQS_PKGS)

## Step Functions Local (cmd/redrive/README.md). test-sfn-selftest: the
## suite in test/sfnlocal on the project's executor in RealTime mode, as a
## stand-in. test-sfn-local: the same suite on Step Functions Local at
## SFN_LOCAL_ENDPOINT, with deploy/sfn-local/sfn-local.env's settings and the
## Lambda server on LAMBDA_SERVER_ADDR (default 0.0.0.0:9001, reachable from
## the container); without SFN_LOCAL_ENDPOINT every test says why it skips.
SFN_LOCAL_ENV := deploy/sfn-local/sfn-local.env

test-sfn-selftest:
	SFN_LOCAL_SELFTEST=1 WAIT_TIME_SCALE=0.1 $(GO) test $(GOFLAGS_T) ./test/sfnlocal/...

test-sfn-local:
	set -a && . ./$(SFN_LOCAL_ENV) && set +a && \
	LAMBDA_SERVER_ADDR=$${LAMBDA_SERVER_ADDR:-0.0.0.0:9001} $(GO) test $(GOFLAGS_T) -v ./test/sfnlocal/...

## browser: Debian's chromium, for the HTML report's headless browser test.
CHROMIUM := /usr/bin/chromium
browser:
	@[ -x $(CHROMIUM) ] || { \
		echo "installing Debian's chromium for the report test"; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y chromium; \
	}

## bench: the Go benchmarks whose figures the README reports, then the
## default and large scenarios' tables (the large one takes minutes and
## several GB of memory).
BENCH_SCENARIOS := scenarios/default.yaml scenarios/large.yaml
REDRIVE_BIN     := $(CACHE)/bin/redrive

bench: bench-go bench-scenarios

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./breaker/... ./emulate/executor/ ./attempt/ ./test ./emulate/sim/...

## bench-dynalite: the DynamoDB store and attempt benchmarks on dynalite.
bench-dynalite:
	scripts/with-dynalite.sh $(GO) test -run '^$$' -bench . -benchmem ./dynamo/ ./attempt/

bench-scenarios:
	$(GO) build -o $(REDRIVE_BIN) ./cmd/redrive
	@set -e; for s in $(BENCH_SCENARIOS); do \
		echo "== redrive run -scenario $$s"; \
		$(REDRIVE_BIN) run -scenario $$s -report $(CACHE)/report-$$(basename $$s .yaml).html; \
		echo; \
	done

## figures: record the runs whose figures the README and
## docs/performance-history.md show (docs/figures/<scenario>.json, one
## redrive run -json each), then render them into those documents;
## `make test` fails when a document's figures are not the recorded runs'.
## FIGURES_SCENARIOS chooses the runs (large takes minutes).
FIGURES_SCENARIOS ?= default standard duplicate-starts healthy burst per-tenant flaky-degraded outage large large-payloads fifo fifo-hold

figures:
	$(GO) build -o $(REDRIVE_BIN) ./cmd/redrive
	@set -e; for s in $(FIGURES_SCENARIOS); do \
		echo "== redrive run -scenario scenarios/$$s.yaml -json docs/figures/$$s.json"; \
		$(REDRIVE_BIN) run -scenario scenarios/$$s.yaml -json docs/figures/$$s.json \
			-report $(CACHE)/report-$$s.html > /dev/null; \
	done
	$(GO) test -count=1 -run TestDocsShowTheRecordedRuns ./test -update-figures

## build: one Lambda bootstrap per main under cmd/lambda (provided.al2023,
## arm64), as build/<name>/bootstrap.
build:
	@set -e; for dir in cmd/lambda/*/; do \
		name=$$(basename "$$dir"); \
		echo "build/$$name/bootstrap"; \
		GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath \
			-ldflags='-s -w' -o "build/$$name/bootstrap" "./cmd/lambda/$$name"; \
	done

## CDK app (infra/, its own module). The CLI and Node 22 are installed,
## pinned, under .cache/cdk; the app and its tests run on that Node.
## synth: offline, the template under infra/cdk.out/. deploy, diff: need AWS
## credentials and a bootstrapped account (infra/README.md).
CDK_VERSION := 2.1148.1
CDK_PREFIX  := $(CACHE)/cdk
CDK_STAMP   := $(CDK_PREFIX)/.installed-aws-cdk-$(CDK_VERSION)-node22
CDK_ENV     := PATH="$(CDK_PREFIX)/node_modules/.bin:$$PATH" CDK_DISABLE_CLI_TELEMETRY=1
CDK         := $(CDK_ENV) cdk --no-notices

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

## test-infra: vet and test the CDK module (no -race: the jsii runtime's
## shutdown races, and the race build of the CDK bindings is slow).
test-infra: $(CDK_STAMP)
	cd infra && $(CDK_ENV) $(GO) vet ./... && $(CDK_ENV) $(GO) test -count=1 ./...

## local: `redrive local` on the default loopback ports until Ctrl-C
## (LOCAL_FLAGS adds flags, e.g. LOCAL_FLAGS='--target down:2m').
local:
	$(GO) run ./cmd/redrive local $(LOCAL_FLAGS)

## install: put redrive on your PATH, in $(go env GOPATH)/bin.
install:
	$(GO) install ./cmd/redrive
