// GET ?space=<id> answers `{ revision }`: the space's current revision as the platform API reports
// it (`GET /v1/spaces/:space`), which is what the platform names in a space_content_updated event.
import { createIntegration, type ApiSpace } from 'sandbox-api';

export default createIntegration({
  async fetch(request, context) {
    const space = new URL(request.url).searchParams.get('space');
    if (space === null) return Response.json({ error: 'give ?space=<id>' }, { status: 400 });
    const found = (await context.api.spaces.get(space)) as ApiSpace & { revision?: unknown };
    return Response.json({ revision: found.revision ?? null });
  },
});
