// Command gpx_upness is the backend of the Upness Grafana data source. It forwards
// queries to the Upness service and hands its data frames back to Grafana.
package main

import (
	"os"

	"github.com/grafana/grafana-plugin-sdk-go/backend/datasource"
	"github.com/grafana/grafana-plugin-sdk-go/backend/log"

	"github.com/upness/upness-jobset-datasource/pkg/plugin"
)

func main() {
	// Manage serves the plugin over gRPC until Grafana stops it, with one
	// Datasource instance per configured data source (recreated when its settings change).
	if err := datasource.Manage("upness-jobset-datasource", plugin.NewDatasource, datasource.ManageOpts{}); err != nil {
		log.DefaultLogger.Error(err.Error())
		os.Exit(1)
	}
}
