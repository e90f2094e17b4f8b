# Conventional entry points; each is a plain go command you can run yourself.
GO ?= go
FUZZTIME ?= 30s

.PHONY: build test bench lint fuzz ci run broker-oracle broker-diff

build:
	$(GO) build ./...

test:
	$(GO) test ./...

# Benchmarks print ns/op and allocs/op; BENCHMARKS.md records the figures
# and the commands that produced them.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# Runs every fuzz target for FUZZTIME, each even when another fails, and
# reports them all (go test alone runs only the seed corpora). Go minimises a
# new interesting input for up to 60 s by default, which starves short runs;
# FUZZMINIMIZETIME bounds it. A failing input lands in the package's
# testdata/fuzz directory: commit it once fixed, it is a regression seed.
FUZZMINIMIZETIME ?= 5s
# FUZZFLAGS passes more go test flags, e.g. -parallel=1 on a shared machine.
FUZZFLAGS ?=
fuzz:
	@failed=""; \
	for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) \
				-fuzzminimizetime $(FUZZMINIMIZETIME) $(FUZZFLAGS) $$pkg || failed="$$failed $$pkg.$$target"; \
		done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz targets that failed:$$failed"; exit 1; fi; \
	echo "every fuzz target passed"

run:
	$(GO) run ./cmd/coordsim run

# The real-broker oracle (docs/fidelity.md): Maven resolves Kafka's broker
# (kafka_2.13 and its runtime dependencies) into a classpath file, which
# oracle/brokerdiff's test and wire's benchmarks find; without it they skip.
broker-oracle:
	mvn -q -f oracle/broker/pom.xml dependency:build-classpath

# Starts a single-node Kafka broker and diffs coordsim's wire answers
# against it, printing a table of cases and verdicts; fails when it cannot run.
broker-diff: broker-oracle
	COORDSIM_KAFKA_REQUIRED=1 $(GO) test -count=1 -run TestBrokerDiff -v ./oracle/brokerdiff/

ci:
	bash .ci/run
