package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

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
