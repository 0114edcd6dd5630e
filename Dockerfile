# pipeline-service image.
#
#   docker build -t pipeline-service .
#   docker volume create pipeline-data
#   docker run --rm -v pipeline-data:/var/lib/pipeline-service pipeline-service node dist/cli/main.js migrate
#   docker run -d -p 8081:8081 -v pipeline-data:/var/lib/pipeline-service \
#     -v "$PWD/config/service.yml:/app/config/service.yml:ro" pipeline-service
#
# The server never migrates on startup: run `node dist/cli/main.js migrate` (as above) after each
# upgrade. With DATABASE_URL unset the embedded database lives under SERVICE_DATA_DIR, so mount a
# volume there; only one process may use it at a time (stop the server before migrating it).
# Every other variable of docs/configuration.md (DATABASE_URL, KVSTORE_URL, SERVICE_AUTH_*, webhook
# secrets, LOG_LEVEL, ...) is passed with `-e`. The bootstrap file is /app/config/service.yml
# (SERVICE_CONFIG); config/service.example.yml beside it documents every key.

# ---- build: all dependencies, TypeScript → dist/ ---------------------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so editing sources does not re-install them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle-server.mjs scripts/package-of.mjs ./scripts/
COPY web ./web
RUN npm run build

# ---- runtime: production dependencies and the compiled server ---------------------------------
FROM node:24-bookworm-slim AS runtime

# redis-server is the embedded store (KVSTORE_URL=embedded, the image's default): a child of the
# server on a unix socket under SERVICE_DATA_DIR. Pass KVSTORE_URL=redis://… to use your own.
# tini as PID 1 reaps the orphaned grandchildren that pipeline commands (run by /bin/sh in the
# in-process sandbox) can leave behind, and forwards SIGTERM to node, which shuts down
# gracefully (the embedded database child stops with it).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini redis-server \
  && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    PORT=8081 \
    SERVICE_DATA_DIR=/var/lib/pipeline-service \
    KVSTORE_URL=embedded

WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. The `node` package among them installs its own Node 24 binary
# under node_modules/node: it is harmless here (it only serves machines whose node is older
# than 22.12; this image's node is 24, and CMD runs that one).
RUN npm ci --omit=dev --no-audit --no-fund \
  && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
# The agent's system prompts, read at run time from the package root (src/agent/prompt/system-prompts.ts).
COPY prompts ./prompts
# The built-in skills (docs/skills.md), read at run time from the package root (src/catalog/installation-skills.ts).
COPY skills ./skills
COPY bin ./bin
COPY config/service.example.yml config/service.schema.json ./config/

# The code stays root-owned and read-only to the service; only its data directory is its own.
# The numeric id of the image's unprivileged `node` user lets orchestrators verify runAsNonRoot.
RUN mkdir -p "$SERVICE_DATA_DIR" \
  && chown -R 1000:1000 "$SERVICE_DATA_DIR" \
  && chmod 0750 "$SERVICE_DATA_DIR"
USER 1000:1000

EXPOSE 8081

# /health answers 200 while the listener is alive (a degraded subsystem is in the body, not the
# status code). Slim images have no curl: node's own fetch does the probe.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8081) + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--"]
# A 4 MB young generation keeps idle memory near 135 MB (as `npm start`).
CMD ["node", "--max-semi-space-size=4", "dist/main.js"]
