#!/usr/bin/env bash
# Print the path of a CRD manifest from its pinned Go module, fetched (and checksum-verified against
# sum.golang.org) through the Go module cache:
#
#   test/kube/crd.sh            # the JobSet CRD of sigs.k8s.io/jobset
#   test/kube/crd.sh workload   # Kueue's Workload CRD of sigs.k8s.io/kueue
#   JOBSET_VERSION=v0.11.1 test/kube/crd.sh    # try another release (KUEUE_VERSION likewise)
#
# The Go proxy this project uses does not list every tag; v0.12.0 is the newest JobSet it serves.
set -euo pipefail
case "${1:-jobset}" in
  jobset) module=sigs.k8s.io/jobset version=${JOBSET_VERSION:-v0.12.0} file=jobset.x-k8s.io_jobsets.yaml ;;
  workload) module=sigs.k8s.io/kueue version=${KUEUE_VERSION:-v0.17.0} file=kueue.x-k8s.io_workloads.yaml ;;
  *) echo "crd.sh: unknown CRD \"$1\" (jobset or workload)" >&2; exit 2 ;;
esac
command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"

# Run outside any module so the repository's go.mod files play no part.
cd /
dir=$(GOTOOLCHAIN=local GOFLAGS= go mod download -json "$module@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
crd="$dir/config/components/crd/bases/$file"
[ -f "$crd" ] || { echo "crd.sh: no CRD at $crd" >&2; exit 1; }
echo "$crd"
