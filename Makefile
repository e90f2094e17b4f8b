# Conventional entry points; each is a plain go command you can run yourself.
GO ?= go
FUZZTIME ?= 30s

.PHONY: build test bench bench-compare bench-md lint fuzz mutation ci run broker-oracle broker-diff

build:
	$(GO) build ./...

test:
	$(GO) test ./...

# Benchmarks, in the format benchstat reads, to BENCHOUT (and the terminal):
# COUNT runs of the benchmarks matching BENCH in PKGS, after a "commit:" line
# naming the tree, so files from several commits compare with
# `benchstat -col commit`; BENCHTIME is go test's -benchtime. For example:
#   make bench BENCH=BenchmarkSimulation PKGS=./sim BENCHOUT=sim.txt
BENCH ?= .
PKGS ?= ./...
COUNT ?= 6
BENCHOUT ?= bench.txt
BENCHTIME ?=
bench:
	{ echo "commit: $$(git rev-parse --short HEAD)$$(git diff --quiet HEAD || echo -dirty)"; \
		$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) $(if $(BENCHTIME),-benchtime $(BENCHTIME)) $(PKGS); } > $(BENCHOUT); \
		status=$$?; cat $(BENCHOUT); exit $$status

# Before and after a change from one run: builds PKGS' test binaries at BASE
# (a temporary git worktree) and in this tree, then runs them in COUNT
# rounds, both sides once per round, so both see the same machine load.
# PKGS names packages one by one here (./sim ./coordinator). Then
#   benchstat -col commit $(BENCHOUT)
# compares them, and bench-md puts them in BENCHMARKS.md.
# HEAD=REV compares two revisions instead of BASE and this tree.
BASE ?= main
HEAD ?=
bench-compare:
	$(GO) run ./internal/benchtab/cmd/benchtab compare -base $(BASE) $(if $(HEAD),-head $(HEAD)) -bench '$(BENCH)' \
		-count $(COUNT) $(if $(BENCHTIME),-benchtime $(BENCHTIME)) -o $(BENCHOUT) $(PKGS)

# Rewrites BENCHMARKS.md's generated tables (<!-- benchtab file=... -->
# regions) from the results files they name, under bench/.
bench-md:
	$(GO) run ./internal/benchtab/cmd/benchtab update BENCHMARKS.md

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

# Automatic mutation testing (docs/mutants.md, "Automatic mutation score"):
# gremlins mutates each package of MUTATION_PKGS in turn (one directory each,
# not ./... patterns) and runs that package's own unit tests against every
# covered mutant, writing one JSON report per package to
# MUTATION_OUT/<package>.json. Slow (a test run per mutant) and so not in CI.
# Gremlins times a mutant out at its timeout coefficient times the coverage
# run's duration, so GOFLAGS gets -count=1: a cached coverage run takes
# milliseconds and every mutant would then time out.
GREMLINS ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATION_PKGS ?= offsets share groupconfig kerr txn
MUTATION_OUT ?= /tmp/coordsim-mutation
MUTATION_WORKERS ?= 2
MUTATION_TIMEOUT_COEFFICIENT ?= 5
mutation:
	@mkdir -p $(MUTATION_OUT); failed=""; \
	for pkg in $(MUTATION_PKGS); do \
		echo "== $$pkg -> $(MUTATION_OUT)/$$pkg.json"; \
		GOFLAGS="$$($(GO) env GOFLAGS) -count=1" $(GO) run $(GREMLINS) unleash \
			--workers $(MUTATION_WORKERS) --timeout-coefficient $(MUTATION_TIMEOUT_COEFFICIENT) \
			--output $(MUTATION_OUT)/$$pkg.json ./$$pkg || failed="$$failed $$pkg"; \
	done; \
	if [ -n "$$failed" ]; then echo "gremlins failed on:$$failed"; exit 1; fi

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
