// Package plugin is the thin backend of the Upness data source: it forwards Grafana's
// queries, health checks and resource calls to the Upness service, adding the secret
// token. Everything that computes lives in the service.
package plugin

import (
	"context"
	"fmt"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/backend/instancemgmt"
)

// The handlers Grafana calls; checked at compile time.
var (
	_ backend.QueryDataHandler      = (*Datasource)(nil)
	_ backend.CheckHealthHandler    = (*Datasource)(nil)
	_ backend.CallResourceHandler   = (*Datasource)(nil)
	_ instancemgmt.InstanceDisposer = (*Datasource)(nil)
)

// Datasource is one configured Upness data source.
type Datasource struct {
	service *service
}

// NewDatasource creates a data source instance from its settings. The SDK calls it
// again, and disposes of the old instance, whenever the settings change.
func NewDatasource(ctx context.Context, s backend.DataSourceInstanceSettings) (instancemgmt.Instance, error) {
	settings, err := LoadSettings(s)
	if err != nil {
		return nil, err
	}
	svc, err := newService(ctx, s, settings)
	if err != nil {
		return nil, fmt.Errorf("cannot create the HTTP client for the Upness service: %w", err)
	}
	return &Datasource{service: svc}, nil
}

// Dispose releases the instance's idle connections when its settings have changed.
func (d *Datasource) Dispose() {
	d.service.client.CloseIdleConnections()
}
