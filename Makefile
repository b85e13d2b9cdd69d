# CONTRACT.md: make run, make test, make bench work from a fresh clone.
SHELL := /bin/bash

# libuv's thread pool runs every chdb statement (N-API async work) and the ingest log's
# writes and fdatasyncs. Its default 4 threads were all taken at times by two inserts, the
# rollup fold and a log sync, and a read then queued behind a 100 ms insert for a thread;
# the size is read once, before any module code runs, so it is set for the process here
# (run, test and bench alike). A value in the environment wins.
export UV_THREADPOOL_SIZE ?= 16
NODE_MODULES_STAMP := node_modules/.install-stamp

.PHONY: run test bench install build typecheck scaleout-up scaleout-down

install: $(NODE_MODULES_STAMP)

$(NODE_MODULES_STAMP): package.json package-lock.json
	node engine/install/lockfile-platforms.mjs
	npm ci --no-audit --no-fund
	@touch $(NODE_MODULES_STAMP)

# The compiled JavaScript in dist/ (engine/install/build-dist.mjs), rebuilt when a source, a
# folder (a file added, renamed or removed) or the build's settings changed since the last
# build. Importing the server took 1.6 s through tsx and 1.0 s compiled (docs/architecture.md,
# "What the start spends its time on"); tests and `npm run serve` keep running the sources.
BUILD_STAMP := dist/.build-stamp
BUILD_INPUTS := $(shell find api engine workers schemas -name testing -prune -o \( -type d -o -name '*.ts' ! -name '*.test.ts' -o -name '*.sql' -o -name '*.json' \) -print) \
	$(shell find console -name '*.test.ts' -prune -o -type f -print) \
	tsconfig.json tsconfig.build.json engine/install/build-dist.mjs

# Builds are taken one at a time (flock): tests that start the compiled service call
# `make build` side by side, and on a fresh clone each found dist/ stale and emptied it while
# another wrote it. Under the lock the second finds the first's stamp and does nothing.
build: $(NODE_MODULES_STAMP)
	@flock node_modules/.build-lock $(MAKE) --no-print-directory --silent $(BUILD_STAMP)

$(BUILD_STAMP): $(NODE_MODULES_STAMP) $(BUILD_INPUTS)
	node engine/install/build-dist.mjs dist
	@touch $(BUILD_STAMP)

# exec: node itself replaces the shell, so SIGINT/SIGTERM reach the server.
run: install build
	exec node dist/api/main.js

typecheck: install
	npx tsc --noEmit -p .

test: install
	@# The librdkafka mock broker for the Kafka-path tests (installs librdkafka-dev if missing; DESIGN.md).
	-bash engine/testing/kafka-mock-build.sh >/dev/null
	@# Debian's PostgreSQL for the scale-out deployment's test (installed if missing, no cluster of its own).
	-bash engine/testing/postgresql-install.sh >/dev/null
	@# The web console's files, served under /console/ by the service the tests start.
	node console/build.mjs
	@# Debian's Chromium for the console's browser test (installed if missing; DESIGN.md).
	-bash engine/testing/chromium-install.sh >/dev/null
	bash engine/testing/run-tests.sh

bench: install
	npx tsx bench/run.ts

# The scale-out shape on this machine (docs/deploy.md, "On one machine without Docker"): the Kafka
# mock broker, Debian's PostgreSQL (installed if missing), the ClickHouse HTTP fixture over chdb,
# two ROLE=api instances and one ROLE=ingester, left running in the background. State, logs
# and data in data/scaleout; scaleout-down stops each recorded process by its pid.
scaleout-up: install
	node --import tsx engine/testing/scaleout-cli.ts up

scaleout-down:
	node --import tsx engine/testing/scaleout-cli.ts down
