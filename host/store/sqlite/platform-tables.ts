// The SQL tables of the platform data (docs/platform-api.md): organizations, members, spaces with pages,
// sites with views, feedback, OpenAPI spec and adaptive claims, plus the records integrations
// write (git syncs, conversations). DDL only; idempotent, so it runs at every startup.

export const PLATFORM_TABLES = `
  CREATE TABLE IF NOT EXISTS organizations (id TEXT PRIMARY KEY, subdomain TEXT NOT NULL UNIQUE, title TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS members (
    organization TEXT NOT NULL REFERENCES organizations (id), id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (organization, id)
  );
  CREATE TABLE IF NOT EXISTS spaces (
    id TEXT PRIMARY KEY, organization TEXT NOT NULL REFERENCES organizations (id), title TEXT NOT NULL,
    visibility TEXT NOT NULL, description TEXT NOT NULL, metadata TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS pages (
    space TEXT NOT NULL REFERENCES spaces (id), id TEXT NOT NULL, title TEXT NOT NULL, markdown TEXT NOT NULL,
    revision INTEGER NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (space, id)
  );
  CREATE TABLE IF NOT EXISTS sites (id TEXT PRIMARY KEY, organization TEXT NOT NULL REFERENCES organizations (id), title TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS site_spaces (
    site TEXT NOT NULL REFERENCES sites (id), space TEXT NOT NULL REFERENCES spaces (id), position INTEGER NOT NULL,
    PRIMARY KEY (site, space)
  );
  CREATE TABLE IF NOT EXISTS site_views (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, site TEXT NOT NULL REFERENCES sites (id),
    space TEXT, page TEXT, url TEXT NOT NULL, visitor_id TEXT NOT NULL, viewed_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS site_views_by_site ON site_views (site, seq);
  CREATE TABLE IF NOT EXISTS page_feedback (
    id TEXT PRIMARY KEY, site TEXT NOT NULL REFERENCES sites (id), space TEXT NOT NULL, page TEXT NOT NULL,
    rating TEXT NOT NULL, comment TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS openapi_specs (
    site TEXT PRIMARY KEY REFERENCES sites (id), spec TEXT NOT NULL, format TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS adaptive_claims (site TEXT PRIMARY KEY REFERENCES sites (id), claims TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS git_syncs (
    id TEXT PRIMARY KEY, space TEXT NOT NULL REFERENCES spaces (id), installation_id TEXT NOT NULL,
    status TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY, organization TEXT NOT NULL, installation_id TEXT NOT NULL, space TEXT, site TEXT,
    messages TEXT NOT NULL, created_at TEXT NOT NULL
  );
`;
