# evalcal: the README's two commands are `make demo` and `make test`.
GO      ?= go
BIN     := bin/evalcal
# go's ./... leaves out testdata: the data generators there (gensaved,
# geninspect, ...) are listed by hand so that their tests run too.
PKGS    := ./... $(patsubst %/,./%,$(sort $(dir $(wildcard testdata/gen*/main.go))))

.PHONY: all build test test-short vet fmt-check demo bench bench-python bench-run bench-scale bench-import fuzz clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/evalcal

# test: formatting, vet, then every test with the race detector.
test: fmt-check vet
	$(GO) test -race -count=1 $(PKGS)

test-short:
	$(GO) test -short -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# demo: calibrate the builtin inspector's light depth against its deep depth
# on the bundled corpus and print where the report is.
demo: build
	@mkdir -p out
	./$(BIN) run --seed 1 --cache out/cache -o out/demo-report.yaml testdata/runs
	@echo "report: $(CURDIR)/out/demo-report.yaml"

# bench: every benchmark 6 times (benchstat needs 6 for an interval), summarised by benchstat (installed into
# bin/ from the module proxy when missing). BENCH narrows the set, BENCHPKGS the packages (e.g.
# BENCHPKGS='./forecast ./statistician' BENCH='Score|SkillInterval|Sort|Ideal' for the score paths).
BENCH ?= .
BENCHPKGS ?= $(PKGS)
BENCHSTAT := bin/benchstat
$(BENCHSTAT):
	GOBIN=$(CURDIR)/bin $(GO) install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

bench: $(BENCHSTAT)
	@mkdir -p out
	$(GO) test -short -run '^$$' -bench '$(BENCH)' -benchmem -count 6 $(BENCHPKGS) | tee out/bench.txt
	$(BENCHSTAT) out/bench.txt

# bench-python: evalcal score against the Python reference (numpy +
# scikit-learn + statsmodels, Debian's python3) on 1M forecasts of each value
# distribution (2 decimals, 4 decimals, float64), medians of 3 runs, then
# evalcal alone on 5M; prints the ratio table (about 6-10 minutes).
bench-python:
	sh testdata/bench/score/run.sh

# bench-run: evalcal run on the bundled corpus copied to 20,000 runs, first
# run and fully cached rerun in every format: wall, CPU, peak RSS, ratio
# (about 4 minutes).
bench-run:
	sh testdata/bench/run/run.sh

# bench-scale: evalcal run on saved inspections of 10k, 30k and 100k runs
# (wall, CPU, peak RSS, CPU growth exponent, report and runs file sizes),
# then 64 shards of 10k runs and their merge against the unsharded run
# (about 5 minutes; SIZES, SHARDS and SHARD_RUNS override, see
# testdata/bench/scale/run.sh; README's table is SHARD_RUNS=100000).
bench-scale:
	SHARDS=$${SHARDS:-64} sh testdata/bench/scale/run.sh

# bench-import: evalcal run on an inspect_ai .json log and a promptfoo
# JSON Lines file of 10k and 100k samples, two scorers or assertions each
# (wall, CPU, peak RSS, CPU growth exponent; about a minute; SIZES and
# FORMATS override, see testdata/bench/scale/importers.sh).
bench-import:
	sh testdata/bench/scale/importers.sh

# fuzz: a short campaign on every parser's fuzz target.
FUZZTIME ?= 60s
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin out

# demo-llm: calibrate an LLM judge against another with no network and no
# key: the bundled judge server (cmd/judgeserver) plays an OpenAI-compatible
# provider on 127.0.0.1; judge-mini (lenient) is the light side, judge-large
# (strict) the deep side. A few 429s (Retry-After 1s) show the retries. The
# server's port changes each time, so the cache is off.
.PHONY: demo-llm
JUDGESERVER := bin/judgeserver
demo-llm: build
	$(GO) build -o $(JUDGESERVER) ./cmd/judgeserver
	@mkdir -p out
	@rm -f out/judgeserver.url out/demo-llm.yaml; \
	./$(JUDGESERVER) --addr 127.0.0.1:0 --latency 20ms --fault 429=0.03 > out/judgeserver.url & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null' EXIT INT TERM; \
	for i in $$(seq 100); do [ -s out/judgeserver.url ] && break; sleep 0.1; done; \
	url=$$(head -n 1 out/judgeserver.url); \
	if [ -z "$$url" ]; then echo "demo-llm: the judge server did not start" >&2; exit 1; fi; \
	echo "judge server: $$url"; \
	OPENAI_BASE_URL=$$url OPENAI_API_KEY=demo-key-not-secret \
	  ./$(BIN) run --light openai:judge-mini --deep openai:judge-large --seed 1 --no-cache \
	    --price judge-mini=0.15/0.6 --price judge-large=2.5/10/0.25 \
	  -o out/demo-llm.yaml testdata/runs; \
	status=$$?; \
	if [ -f out/demo-llm.yaml ]; then echo "report: $(CURDIR)/out/demo-llm.yaml"; fi; \
	exit $$status

# demo-rank: which light judge to use? Ranks judge-mini, the builtin
# inspector and a panel of both plus judge-large (light depth) against
# judge-large at deep depth, through the bundled judge server (no network,
# no key); README "Choosing a judge" walks through the answer.
.PHONY: demo-rank
demo-rank: build
	$(GO) build -o $(JUDGESERVER) ./cmd/judgeserver
	@mkdir -p out
	@rm -f out/judgeserver-rank.url out/demo-rank.md out/demo-rank.html; \
	./$(JUDGESERVER) --addr 127.0.0.1:0 > out/judgeserver-rank.url & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null' EXIT INT TERM; \
	for i in $$(seq 100); do [ -s out/judgeserver-rank.url ] && break; sleep 0.1; done; \
	url=$$(head -n 1 out/judgeserver-rank.url); \
	if [ -z "$$url" ]; then echo "demo-rank: the judge server did not start" >&2; exit 1; fi; \
	OPENAI_BASE_URL=$$url OPENAI_API_KEY=demo-key-not-secret \
	  ./$(BIN) rank --deep openai:judge-large --light mini=openai:judge-mini --light builtin=builtin \
	    --light 'jury=panel:openai:judge-mini,builtin,openai:judge-large' --seed 1 --no-cache --quiet \
	    --price judge-mini=0.15/0.6 --price judge-large=2.5/10/0.25 \
	  -o out/demo-rank.html testdata/runs && \
	OPENAI_BASE_URL=$$url OPENAI_API_KEY=demo-key-not-secret \
	  ./$(BIN) rank --deep openai:judge-large --light mini=openai:judge-mini --light builtin=builtin \
	    --light 'jury=panel:openai:judge-mini,builtin,openai:judge-large' --seed 1 --no-cache --quiet \
	    --price judge-mini=0.15/0.6 --price judge-large=2.5/10/0.25 \
	  -o out/demo-rank.md testdata/runs; \
	status=$$?; \
	if [ -f out/demo-rank.md ]; then echo "ranking: $(CURDIR)/out/demo-rank.md and .html"; fi; \
	exit $$status
