// {{title}}: answers its public endpoint. `npm run dev` reloads this file on every save, and
// `npm run check` type-checks it against sandbox-api (docs/authoring.md).
import { createIntegration, ExposableError } from 'sandbox-api';

export function greeting(name: string): string {
  return `Hello, ${name}!`;
}

export default createIntegration({
  async fetch(request, context) {
    if (request.method === 'GET') {
      const name = new URL(request.url).searchParams.get('name') ?? 'world';
      console.log(`greeting ${name} for installation ${context.environment.installation?.id}`);
      return Response.json({ message: greeting(name) });
    }
    if (request.method === 'POST') {
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        // An ExposableError's message and status reach the caller; any other error is a 500.
        throw new ExposableError('send a JSON body', 400);
      }
      return Response.json({ received: body });
    }
    return new Response('Method not allowed', { status: 405 });
  },
});
