# CONTRACT.md: make run, make test, make bench work from a fresh clone.
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.install-stamp

.PHONY: run test bench install typecheck

install: $(NODE_MODULES_STAMP)

$(NODE_MODULES_STAMP): package.json package-lock.json
	node engine/install/lockfile-platforms.mjs
	npm ci --no-audit --no-fund
	@touch $(NODE_MODULES_STAMP)

# node runs our code directly (tsx as a loader), so SIGINT/SIGTERM reach the server itself.
run: install
	exec node --import tsx api/main.ts

typecheck: install
	npx tsc --noEmit -p .

test: install
	@# The librdkafka mock broker for the Kafka-path tests (installs librdkafka-dev if missing; DESIGN.md).
	-bash engine/testing/kafka-mock-build.sh >/dev/null
	bash engine/testing/run-tests.sh

bench: install
	npx tsx bench/run.ts
