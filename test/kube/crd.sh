#!/usr/bin/env bash
# Print the path of the JobSet CRD manifest from the pinned sigs.k8s.io/jobset release, fetched
# (and checksum-verified against sum.golang.org) through the Go module cache.
#
#   JOBSET_VERSION=v0.11.1 test/kube/crd.sh    # try another release
#
# The Go proxy this project uses does not list every tag; v0.12.0 is the newest one it serves.
set -euo pipefail
version=${JOBSET_VERSION:-v0.12.0}
command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"

# Run outside any module so the repository's go.mod files play no part.
cd /
dir=$(GOTOOLCHAIN=local GOFLAGS= go mod download -json "sigs.k8s.io/jobset@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
crd="$dir/config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"
[ -f "$crd" ] || { echo "crd.sh: no JobSet CRD at $crd" >&2; exit 1; }
echo "$crd"
