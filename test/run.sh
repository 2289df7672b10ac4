#!/bin/sh
# `npm test`: the lint and type check run beside the test files, not before them. The test files
# keep both cores busy only part of the time (their twins wait on I/O and job polls), and the
# type check is one single-threaded process: side by side, the whole takes less time than one
# after the other. Fails if either fails; the tests' own exit status wins when both fail.
npm run -s check &
check=$!
npx vitest run "$@"
tests=$?
wait "$check"
checked=$?
if [ "$tests" -ne 0 ]; then exit "$tests"; fi
exit "$checked"
