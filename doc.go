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
// requests an hour and 50 a second), is retried when a repeat is safe, and
// returns an *APIError for any non-2xx response, which matches one of the
// Err kinds with errors.Is. The API publishes almost nothing about bodies,
// so responses are decoded tolerantly and every resource keeps the JSON it
// came from in Raw. The README lists every assumption the SDK makes.
package seoapi
