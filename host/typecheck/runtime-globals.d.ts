// The isolate's globals where they differ from TypeScript's web-worker library. Given to every
// type-check `npm run check` makes; declarations only, describing what the runtime already does.

interface Body {
  /**
   * The body parsed as JSON, typed by the caller: `await response.json<Answer>()`, as in the
   * Workers types that GitBook's integrations are written against (without a type, `any` as before).
   */
  // biome-ignore lint/suspicious/noExplicitAny: the Workers types' default, which integrations rely on
  json<T = any>(): Promise<T>;
}
