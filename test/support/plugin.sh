#!/usr/bin/env bash
# `npm run test:plugin`: the Go plugin backend's tests (pkg/), over the SDK's real gRPC harness
# against a running Upness service. The module download and the first build (minutes on a cold
# machine: the plugin SDK and Arrow) happen first, each with a progress line, outside any test
# timeout; both are cached by Go (GOMODCACHE, GOCACHE). -count=1: the tests start the Node
# service, whose changes Go's test cache cannot see.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"
export GOTOOLCHAIN=local
start=$SECONDS
echo "test:plugin: downloading the Go modules (cached in $(go env GOMODCACHE)) ..." >&2
go mod download
echo "test:plugin: building the plugin backend and its tests (minutes on a cold machine) ..." >&2
go build ./... && go vet ./pkg/...
echo "test:plugin: ready in $((SECONDS - start)) s; running the tests" >&2
go test -count=1 ./pkg/...
