# syntax=docker/dockerfile:1
# Roster's image: the documented production install (npm ci, npm run build, npm prune --omit=dev) in a
# build stage, then only what runs. scripts/check-production-install.sh runs this file's build-stage RUN
# lines and runtime-stage COPY --from=build lines without Docker, on every CI run: keep each RUN on one line.

FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV npm_config_update_notifier=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# V8 grows its young generation to 32 MB semi-spaces under load on a roomy machine (peak RSS ~340 MB);
# 8 MB keeps it under 250 MB at the same throughput (bench/README.md).
ENV NODE_OPTIONS=--max-semi-space-size=8
WORKDIR /app
# Root-owned and read-only to the service, which writes only to /app/data (the SQLite default).
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/schema.graphql ./
COPY --from=build /app/seeds ./seeds
RUN mkdir /app/data && chown node:node /app/data
USER node
VOLUME /app/data
EXPOSE 4000
# Slim images have no curl: Node's own fetch asks /readyz (the database answers).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# V8 lets the old generation grow to about twice what survives a full collection before collecting again
# (peak RSS ~330–370 MB on answers computed afresh); 50 % keeps it under 250 MB. A growth rate, not a cap: a
# heap whose live data grows (a larger replay cache, many streams) still grows. NODE_OPTIONS may not carry it.
CMD ["node", "--heap-growing-percent=50", "dist/server.js"]
