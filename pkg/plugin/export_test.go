package plugin

// UseFrameEncoding makes the plugin ask the service for frames as "arrow" or "json" until the
// returned function restores the default (tests compare the two; no test of this package runs
// in parallel).
func UseFrameEncoding(encoding string) (restore func()) {
	before := frameEncoding
	frameEncoding = encoding
	return func() { frameEncoding = before }
}
