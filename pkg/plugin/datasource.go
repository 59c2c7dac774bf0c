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
	// misconfigured, when set, says why the settings cannot be used (service is then nil):
	// every query, resource call and health check answers with it.
	misconfigured *serviceError
}

// NewDatasource creates a data source instance from its settings. The SDK calls it
// again, and disposes of the old instance, whenever the settings change.
//
// Settings that cannot be used still make an instance, one that answers every call with
// the reason: had NewDatasource returned the error, the SDK would pass it on to Save & test
// only, and Grafana would answer panel queries and resource calls with a bare
// "500 An error occurred within the plugin".
func NewDatasource(ctx context.Context, s backend.DataSourceInstanceSettings) (instancemgmt.Instance, error) {
	settings, err := LoadSettings(s)
	if err != nil {
		return &Datasource{misconfigured: settingsError(err.Error())}, nil
	}
	svc, err := newService(ctx, s, settings)
	if err != nil {
		// Grafana's HTTP settings of the data source (TLS certificates, proxy) are wrong.
		return &Datasource{misconfigured: settingsError(fmt.Sprintf("cannot create the HTTP client for the Upness service: %v", err))}, nil
	}
	return &Datasource{service: svc}, nil
}

// settingsError is a data source setting that cannot be used: the request was bad (400),
// and it is the user's to fix (downstream), not the plugin's.
func settingsError(message string) *serviceError {
	return &serviceError{status: backend.StatusBadRequest, message: message}
}

// Dispose releases the instance's idle connections when its settings have changed.
func (d *Datasource) Dispose() {
	if d.service != nil {
		d.service.client.CloseIdleConnections()
	}
}
