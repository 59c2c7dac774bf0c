#!/usr/bin/env bash
# Builds the plugin backend, gpx_upness, for Grafana's Linux servers into dist/:
#   dist/gpx_upness_linux_amd64, dist/gpx_upness_linux_arm64, dist/go_plugin_build_manifest
# The same flags as the SDK's mage build (build.BuildAll) without needing mage: static
# (CGO off), stripped, the SDK's arrow_json_stdlib tag, and the build info (plugin id,
# version from package.json, build time) that Grafana shows.
# Usage: bash scripts/build-backend.sh [GOOS/GOARCH ...]   (default: linux/amd64 linux/arm64)
set -euo pipefail

cd "$(dirname "$0")/.."
command -v go >/dev/null || PATH="$PATH:/usr/local/go/bin"

plugin_id=upness-jobset-datasource
executable=gpx_upness
# "version": "0.1.0" from package.json, without needing node.
version=$(sed -n 's/^  "version": *"\([^"]*\)".*/\1/p' package.json | head -n 1)
build_ms=$(( $(date +%s) * 1000 ))
build_info="{\"time\":${build_ms},\"pluginID\":\"${plugin_id}\",\"version\":\"${version}\"}"
ldflags="-s -w -X 'main.pluginID=${plugin_id}' -X 'main.version=${version}'"
ldflags+=" -X 'github.com/grafana/grafana-plugin-sdk-go/build/buildinfo.buildInfoJSON=${build_info}'"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux/amd64 linux/arm64)

mkdir -p dist
for target in "${targets[@]}"; do
  os=${target%/*} arch=${target#*/}
  out="dist/${executable}_${os}_${arch}"
  [ "$os" = windows ] && out+=.exe
  echo "building ${out}"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch \
    go build -trimpath -tags arrow_json_stdlib -ldflags "$ldflags" -o "$out" ./pkg
done

# The manifest Grafana's plugin signing and validator read: the sha256 of every Go source
# file, as the SDK's build writes it.
find . \( -name node_modules -o -name .git \) -prune -o -type f -name '*.go' -print | sed 's|^\./||' | LC_ALL=C sort |
  while read -r file; do
    echo "$(sha256sum "$file" | cut -d' ' -f1):${file}"
  done >dist/go_plugin_build_manifest
