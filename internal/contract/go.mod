module github.com/seoapi/seoapi-go/internal/contract

go 1.25.0

replace github.com/seoapi/seoapi-go => ../../

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/seoapi/seoapi-go v0.0.0-00010101000000-000000000000
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/text v0.14.0 // indirect
)
