#!/usr/bin/env bash
# make test: every tap test file against the real stores, then one closing line of our own
# (`N passed, N failed[, N skipped]`, see tap-summary.mjs).
set -uo pipefail
cd "$(dirname "$0")/../.."
files=$(git ls-files --cached --others --exclude-standard -- '*.test.ts' | sort)
if [ -z "$files" ]; then echo "no test files"; echo "0 passed, 0 failed"; exit 1; fi
# --jobs 2: the machine has two cores; each file starts its own embedded stores.
npx tap --reporter=tap --jobs="${TEST_JOBS:-2}" $files 2>&1 | node engine/testing/tap-summary.mjs
