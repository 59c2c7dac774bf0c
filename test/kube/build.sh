#!/usr/bin/env bash
# Build kube-apiserver and etcd from the versions pinned in kube-apiserver/go.mod and etcd/go.mod,
# into a cache outside the repository so every clone (and CI run) on the machine shares them:
#
#   ~/.cache/upness/kube-<k8s version>-etcd-<etcd version>/{kube-apiserver,etcd}
#
# Prints progress on stderr and the directory on stdout. When both binaries are already there it
# does nothing else (no Go invocation at all), so it is cheap to call before every test run.
# Override the cache root with UPNESS_CACHE_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# The pins live in the wrapper go.mod files (see pin.sh); read them without running Go.
pinned() { awk -v m="$1" '$1 == "require" { $1 = ""; $0 = $0 } $1 == m && $2 ~ /^v/ { print $2; exit }' "$2"; }
k8s=$(pinned k8s.io/kubernetes "$here/kube-apiserver/go.mod")
etcd=$(pinned go.etcd.io/etcd/server/v3 "$here/etcd/go.mod")
[ -n "$k8s" ] && [ -n "$etcd" ] || { echo "build.sh: cannot read pinned versions from go.mod" >&2; exit 1; }

out="${UPNESS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/upness}/kube-$k8s-etcd-$etcd"
have() { [ -x "$out/kube-apiserver" ] && [ -x "$out/etcd" ]; }
if have; then echo "$out"; exit 0; fi

command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "build.sh: Go not found (expected on PATH or in /usr/local/go/bin)" >&2; exit 1; }

mkdir -p "$out"
# Parallel test workers may all call this on a cold machine: let one build, the others wait.
exec 9>"$out/.lock"
flock 9
if have; then echo "$out"; exit 0; fi

# GOTOOLCHAIN=local: never try to download another Go toolchain. -mod=readonly: the go.sum files
# are the pins; a mismatch should fail rather than silently resolve something else.
# -trimpath and -s -w drop paths and symbol/DWARF tables (roughly a third of the size).
export GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false -trimpath"
# Upstream's release scripts stamp the version into the binary; without it /version says
# v0.0.0-master. Do the same so clients (and the report) see the real version.
k8s_minor=${k8s#v1.}; k8s_minor=${k8s_minor%%.*}
kv=k8s.io/component-base/version
k8s_ldflags="-X $kv.gitVersion=$k8s -X $kv.gitMajor=1 -X $kv.gitMinor=$k8s_minor -X $kv.gitTreeState=clean"
start=$SECONDS
for name in etcd kube-apiserver; do
  if [ $name = etcd ]; then version=$etcd ldflags=; else version=$k8s ldflags=$k8s_ldflags; fi
  echo "build.sh: downloading modules for $name $version ..." >&2
  (cd "$here/$name" && go mod download)
  echo "build.sh: compiling $name $version (takes minutes on a cold machine) ..." >&2
  t=$SECONDS
  # Build to a temporary name and rename, so an interrupted build never looks finished.
  (cd "$here/$name" && go build -ldflags="-s -w $ldflags" -o "$out/$name.tmp" .)
  mv -f "$out/$name.tmp" "$out/$name"
  echo "build.sh: $name done in $((SECONDS - t))s ($(du -h "$out/$name" | cut -f1))" >&2
done
echo "build.sh: built in $((SECONDS - start))s" >&2
echo "$out"
