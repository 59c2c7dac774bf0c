#!/usr/bin/env bash
# `npm run test:plugin`: the Go plugin backend's tests (pkg/), over the SDK's real gRPC harness
# against a running Upness service. The module download and the first build (minutes on a cold
# machine: the plugin SDK and Arrow) happen first, each with a progress line, outside any test
# timeout; both are cached by Go (GOMODCACHE, GOCACHE). -count=1: the tests start the Node
# service, whose changes Go's test cache cannot see.
#
# The packages are compiled with exactly the settings of `npm run build:backend` (Magefile.go:
# the SDK's linux/amd64 build, CGO_ENABLED=0, -tags arrow_json_stdlib, -trimpath), so in
# `npm test` each package is compiled once: the build's compile steps are Go build-cache hits.
# `--prepare` stops after the download and the build (the test runner starts it at once, in the
# background: test/support/run-tests.ts).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOOS=linux GOARCH=amd64
export GOFLAGS="${GOFLAGS:-} -trimpath"
tags=arrow_json_stdlib
start=$SECONDS
echo "test:plugin: downloading the Go modules (cached in $(go env GOMODCACHE)) ..." >&2
go mod download
echo "test:plugin: building the plugin backend and its tests (minutes on a cold machine) ..." >&2
go build -tags "$tags" ./...
[ "${1:-}" = --prepare ] && { echo "test:plugin: built in $((SECONDS - start)) s" >&2; exit 0; }
go vet -tags "$tags" ./pkg/...
echo "test:plugin: ready in $((SECONDS - start)) s; running the tests" >&2
go test -tags "$tags" -count=1 ./pkg/...
