module github.com/seoapi/seoapi-go/redislimit

go 1.26.0

replace github.com/seoapi/seoapi-go => ../

require (
	github.com/redis/go-redis/v9 v9.23.0
	github.com/seoapi/seoapi-go v0.0.0-00010101000000-000000000000
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
