// What platform API route handlers may use. Each capability adds its own field here; handlers
// receive this object through RouteContext.deps and never reach the store or sandbox otherwise.

export interface PlatformApiDeps {
  [capability: string]: unknown;
}
