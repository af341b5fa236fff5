// Package seoapi is a typed client for the Workspace Automation REST API of
// an SEO workflow platform: workspaces, their projects, content plans,
// members and API keys, and the competitors of a project.
//
// Create a Client with NewClient or NewClientFromEnv and call the method of
// the service for the resource:
//
//	client, err := seoapi.NewClientFromEnv()
//	if err != nil {
//		log.Fatal(err)
//	}
//	for ws, err := range client.Workspaces.All(ctx, nil) {
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(ws.ID, ws.Name)
//	}
//
// Every call waits for the client-side rate limiter (the published 10 000
// requests an hour and 50 a second, as strict rolling windows), is retried
// when a repeat is safe, and fails with an *APIError that matches exactly
// one of the Err kinds with errors.Is (or the context's own error); a
// write that may have taken effect also matches ErrOutcomeUnknown and is
// never repeated. The API publishes almost nothing about bodies, so
// responses are decoded tolerantly and every resource keeps the JSON it
// came from in Raw. The README lists every assumption the SDK makes.
//
// Beside this package: seoapitest is the fake API to test code that uses
// the SDK against; redislimit shares one budget across a fleet of
// processes through Redis; otelseoapi turns the events an Observer is told
// (WithObserver) into OpenTelemetry spans and metrics. Only programs that
// import them compile their dependencies.
package seoapi
