//go:build race

package seoapi_test

// raceEnabled reports a build with the race detector.
const raceEnabled = true
