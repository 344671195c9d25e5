#!/usr/bin/env bash
# scripts/fuzz refuses a malformed setting or an unknown harness with exit 2 and a message
# naming the value, before it installs or builds anything (so this runs in a second or two).
# Usage: bad_settings.sh <path to scripts/fuzz>
set -uo pipefail
fuzz="$1"
failures=0

# expect_refusal <value the message must name> <command...>
expect_refusal() {
  local named="$1"
  shift
  local output status
  output="$(timeout 30 "$@" 2>&1 >/dev/null)"
  status=$?
  if [ "$status" -ne 2 ] || [[ "$output" != *"'${named}'"* ]]; then
    echo "FAIL: '$*' gave exit ${status} and: ${output}" >&2
    failures=$((failures + 1))
  fi
}

expect_refusal abc env LEASEHOLD_FUZZ_SEED=abc bash "$fuzz"
expect_refusal 0 env LEASEHOLD_FUZZ_SEED=0 bash "$fuzz"
expect_refusal 1e4 env LEASEHOLD_FUZZ_RUNS=1e4 bash "$fuzz"
expect_refusal -5 env LEASEHOLD_FUZZ_RUNS=-5 bash "$fuzz"
expect_refusal 0 env LEASEHOLD_FUZZ_SECONDS=0 bash "$fuzz"
expect_refusal "20 s" env "LEASEHOLD_FUZZ_SECONDS=20 s" bash "$fuzz"
expect_refusal bogus bash "$fuzz" free_list bogus

if [ "$failures" -ne 0 ]; then
  echo "${failures} refusal(s) missing" >&2
  exit 1
fi
echo "scripts/fuzz refused every bad setting with exit 2"
