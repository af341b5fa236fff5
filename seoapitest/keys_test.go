package seoapitest_test

import (
	"context"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetKeyAcceptsAnEightCharacterKey(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	srv.SetKey("k1234567")
	srv.AddWorkspace("Acme")
	c, err := seoapi.NewClient(srv.URL(), "k1234567")
	require.NoError(t, err)
	list, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, list, 1)
}
