package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go/internal/fakeapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTourAgainstTheFake(t *testing.T) {
	t.Setenv("SEOAPI_BASE_URL", "")
	t.Setenv("SEOAPI_API_KEY", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out, false))
	for i := 1; i <= 12; i++ {
		assert.Contains(t, out.String(), fmt.Sprintf("\n%2d. ", i))
	}
	assert.Contains(t, out.String(), "[REDACTED]")
	assert.NotContains(t, out.String(), "sk_")
	assert.Contains(t, out.String(), "All twelve endpoints called.")
}

func TestOnlyOneVariableSetIsAnError(t *testing.T) {
	t.Setenv("SEOAPI_BASE_URL", "https://api.example.com")
	t.Setenv("SEOAPI_API_KEY", "")
	err := run(context.Background(), &bytes.Buffer{}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SEOAPI_API_KEY")
}

func TestReadOnlyRunAgainstAConfiguredAPI(t *testing.T) {
	fake := fakeapi.New()
	key, ws := fake.IssueKey(fakeapi.PlanEnterprise)
	baseURL, stop, err := fake.ListenLoopback()
	require.NoError(t, err)
	defer stop()
	t.Setenv("SEOAPI_BASE_URL", baseURL)
	t.Setenv("SEOAPI_API_KEY", key)

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, false))
	assert.Contains(t, out.String(), "Workspace "+ws)
	require.NotEmpty(t, fake.Requests())
	for _, r := range fake.Requests() {
		assert.Equal(t, "GET", r.Method, "read-only: %s %s", r.Method, r.Path)
	}
}
