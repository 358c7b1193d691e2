// Where the authoring commands look by default: `npm run new` writes integrations into this
// folder, `npm run dev` and `npm run check` read it when no folder is given. Names only.

export const DEFAULT_INTEGRATIONS_DIR = 'integrations';
