//go:build mage

// The backend's build, with the targets of the plugin SDK's build package (as
// @grafana/create-plugin sets it up, and as Grafana's plugin validator looks for).
// Mage is a tool of this module (go.mod's tool directive), so nothing is installed by hand:
//
//	go tool mage -v              # Default (linux): dist/gpx_upness_linux_amd64, dist/go_plugin_build_manifest
//	go tool mage -v release      # a release: linux amd64 and arm64
//	go tool mage -v build:linux  # one of the SDK's targets (go tool mage -l lists them)
//
// npm run build:backend runs the first, npm run build:release the second (after the frontend).
// Development and `npm test` build amd64 only: arm64 is a second full compile that only a
// release ships. The SDK's build reads the executable's name
// (gpx_upness) and the plugin id from src/plugin.json and the version from package.json,
// so it needs no frontend build first; it writes the manifest of the Go sources itself.
package main

import (
	"os"
	"strings"

	"github.com/magefile/mage/mg"

	// mage:import
	build "github.com/grafana/grafana-plugin-sdk-go/build"
)

// Default is what `go tool mage` builds without a target.
var Default = Linux

// Linux builds the backend for Grafana's Linux servers on amd64 into dist/: static (no cgo),
// stripped, with the SDK's tags and build information. test/support/plugin.sh compiles with the
// same settings, so in `npm test` this build's compile steps are Go build-cache hits.
func Linux() {
	b := build.Build{}
	mg.Deps(b.Linux)
}

// Release builds what a release ships: linux amd64 and arm64.
func Release() {
	b := build.Build{}
	// One after the other: two Go builds at once only compete for the same cores.
	mg.SerialDeps(b.Linux, b.LinuxARM64)
}

func init() {
	// The SDK's flags, plus -trimpath: the executables do not carry the paths of the
	// machine that built them, and the same sources build the same executable anywhere.
	_ = build.SetBeforeBuildCallback(func(cfg build.Config) (build.Config, error) {
		flags := strings.TrimSpace(os.Getenv("GOFLAGS") + " -trimpath")
		if cfg.Env == nil {
			cfg.Env = map[string]string{}
		}
		cfg.Env["GOFLAGS"] = flags
		return cfg, nil
	})
}
