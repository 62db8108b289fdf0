# Formgate's container image: `docker build -t formgate .` (docs/operations.md, "Installing as a container").
# Built and run unchanged by test/container/run.sh (from .ci/run).

# The build stage: every dependency, the bundle in dist/, then the dev dependencies pruned away.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# NOTE: --ignore-scripts because `prepare` builds from src/, which is copied only below (so this
# layer stays cached while only sources change); better-sqlite3 ships prebuilt, esbuild needs no script.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# esbuild is a dependency for `npm ci --omit=dev` installs, whose `prepare` builds dist/; the
# image's dist/ is built already and never loads it, so its 11 MB binary stays out of the runtime.
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
    && rm -rf node_modules/esbuild node_modules/@esbuild node_modules/.bin/esbuild

# The runtime stage: Node, the production dependencies and dist/; no compiler, no sources.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    FORMGATE_HOST=0.0.0.0 \
    FORMGATE_DATA_DIR=/data \
    FORMGATE_DATABASE_URL=sqlite:/data/formgate.db
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The data folder (and files/ in it, where uploads go) belongs to the image's unprivileged `node`
# user (uid 1000), and a new named volume takes that owner from here (the PostgreSQL compose shape
# mounts one shared volume at /data/files); a bind-mounted folder must be given to uid 1000 by hand.
RUN mkdir -p /data/files && chown -R node:node /data && chmod 0700 /data /data/files
VOLUME /data
USER node
EXPOSE 8080 8081
# NOTE: slim has no curl; Node's own fetch asks the dashboard port. 200 (ok or degraded) is healthy.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.FORMGATE_PORT||8080}/healthz`).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# NOTE: node itself is PID 1 (exec form, no shell), so SIGTERM reaches the server, which serves 3 s
# more with /healthz at 503 (FORMGATE_DRAIN_WINDOW), drains and exits within 9 s, inside the 10 s
# `docker stop` gives; it starts no child process to reap.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "dist/main.js", "serve"]
