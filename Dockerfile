# Familiar, the daemon, in a container. Normal build (a registry reachable):
#   docker compose up -d --build            or   docker build -t familiar .
# Offline (no registry), with base images made from this machine's Node by scripts/build-node-base-image.sh:
#   docker build --build-arg BUILD_IMAGE=familiar-node-build:20 --build-arg NODE_IMAGE=familiar-node-base:20 -t familiar .
# scripts/verify-docker-image.sh does that, then runs `familiar doctor` and waits for the healthcheck.
#
# The build stage needs a C++ toolchain and Python for better-sqlite3 when no prebuilt binary can be
# downloaded; node:20-bookworm has them, the slim run image does not need them.
ARG BUILD_IMAGE=node:20-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /build
# Dependencies first, in their own layer: a source change does not reinstall them.
COPY package.json package-lock.json ./
COPY patches ./patches
# --ignore-scripts: the root `prepare` script (tsc) cannot run before the sources are here, and no other
# dependency's install script is wanted; better-sqlite3's native build is run explicitly just after, and the
# patches in patches/ (cron-parser's DST and day-field rules) are applied as `postinstall` would.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npx patch-package \
 && npm rebuild better-sqlite3 \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
COPY . .
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && mkdir -p memory skills

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    FAMILIAR_CONFIG=/app/config.yaml \
    # The example config reads this into http.listen: the healthcheck's endpoint, inside the container only.
    FAMILIAR_HTTP_LISTEN=127.0.0.1:8484
WORKDIR /app
# Code and dependencies belong to root and are read-only for the daemon's user.
COPY --from=build /build/package.json /build/config.example.yaml ./
COPY --from=build /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
# The starter memory and bundled skills: read-only seeds, copied into data/ on first use (data/memory, data/skills).
COPY --from=build /build/memory ./memory
COPY --from=build /build/skills ./skills
# The web console's style sheet, script and icon (served as written, no build step).
COPY --from=build /build/assets ./assets
# The data folder: the person's (a bind mount replaces it); writable by uid 1000 when it is a fresh volume.
RUN mkdir -p data && chown 1000:1000 data
# Uid 1000: the official node images' `node` user (scripts/build-node-base-image.sh makes the same).
USER 1000:1000
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "dist/main.js", "status", "--ready"]
ENTRYPOINT ["node", "dist/main.js"]
CMD ["start"]
