package plugin

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadSettings(t *testing.T) {
	good := []struct {
		name, jsonData, url string
		timeout             time.Duration
	}{
		{"plain", `{"url": "http://upness:8080"}`, "http://upness:8080", defaultTimeout},
		{"trailing slash and spaces", `{"url": " https://upness.example.com/ "}`, "https://upness.example.com", defaultTimeout},
		{"path prefix", `{"url": "http://proxy/upness/"}`, "http://proxy/upness", defaultTimeout},
		{"timeout", `{"url": "http://upness:8080", "timeoutSeconds": 90}`, "http://upness:8080", 90 * time.Second},
		{"timeout as text", `{"url": "http://upness:8080", "timeoutSeconds": "2.5"}`, "http://upness:8080", 2500 * time.Millisecond},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			s, err := LoadSettings(backend.DataSourceInstanceSettings{
				JSONData: json.RawMessage(c.jsonData), DecryptedSecureJSONData: map[string]string{"token": " tok\n"},
			})
			require.NoError(t, err)
			assert.Equal(t, Settings{URL: c.url, Timeout: c.timeout, Token: "tok"}, s)
		})
	}

	t.Run("the data source's own URL field when jsonData has none", func(t *testing.T) {
		s, err := LoadSettings(backend.DataSourceInstanceSettings{URL: "http://upness:8080", JSONData: json.RawMessage(`{}`)})
		require.NoError(t, err)
		assert.Equal(t, "http://upness:8080", s.URL)
		assert.Empty(t, s.Token)
	})

	bad := []struct{ name, jsonData, message string }{
		{"no URL", `{}`, "the Upness service URL is not set"},
		{"no scheme", `{"url": "upness:8080"}`, `the Upness service URL "upness:8080" is not valid`},
		{"other scheme", `{"url": "ftp://upness"}`, `the Upness service URL "ftp://upness" is not valid`},
		{"no host", `{"url": "http://"}`, `the Upness service URL "http://" is not valid`},
		{"query", `{"url": "http://upness:8080/?x=1"}`, "must have no query"},
		{"URL not a string", `{"url": 8080}`, "cannot read the data source's settings"},
		{"zero timeout", `{"url": "http://upness:8080", "timeoutSeconds": 0}`, "timeoutSeconds must be a positive number"},
		{"timeout not a number", `{"url": "http://upness:8080", "timeoutSeconds": "soon"}`, "timeoutSeconds must be a positive number"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSettings(backend.DataSourceInstanceSettings{JSONData: json.RawMessage(c.jsonData)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.message)
		})
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "42": "42", "999": "999", "1000": "1,000", "12345": "12,345", "1234567": "1,234,567", "-1234": "-1,234", "": "?"} {
		assert.Equal(t, want, thousands(json.Number(in)), in)
	}
}
