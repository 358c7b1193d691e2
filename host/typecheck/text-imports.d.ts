// Types of the imports the host's bundler loads as text (manifest/containment.ts): `*.raw.js` and
// `*.raw.css` files are strings, never run. Given to every type-check `npm run check` makes;
// other files imported `with { type: 'text' }` need a declaration of the author's (`*.d.ts`).
declare module '*.raw.js' {
  const text: string;
  export default text;
}

declare module '*.raw.css' {
  const text: string;
  export default text;
}
