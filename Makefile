# Conventional entry points; each is a plain go command you can run yourself.
GO ?= go
FUZZTIME ?= 30s

.PHONY: build test bench lint fuzz ci run

build:
	$(GO) build ./...

test:
	$(GO) test ./...

# Benchmarks print ns/op and allocs/op; BENCHMARKS.md records the figures
# and the commands that produced them.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

# Runs each fuzz target for FUZZTIME (go test runs only the seed corpus).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

run:
	$(GO) run ./cmd/coordsim run

ci:
	bash .ci/run
