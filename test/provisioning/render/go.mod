module upness.test/provisioning/render

go 1.22
