# Familiar, the daemon, in a container. Normal build (a registry reachable):
#   docker compose up -d --build            or   docker build -t familiar .
# Offline (no registry), with base images made from Node's own binaries by scripts/build-node-base-image.sh:
#   docker build --build-arg BUILD_IMAGE=familiar-node-build:24 --build-arg NODE_IMAGE=familiar-node-base:24 -t familiar .
# scripts/verify-docker-image.sh does that, then runs `familiar doctor` and waits for the healthcheck.
#
# The Node major version is this one argument (the official images are node:<major>-bookworm and -slim); the
# offline base-image script reads its default from here too. Supported: 20, 22 and 24 (the current LTS, the default).
ARG NODE_MAJOR=24
# Empty = the official images for NODE_MAJOR. On Node 22 and 24 nothing is compiled (better-sqlite3 13 ships its
# binaries); Node 20 builds better-sqlite3 12 from source, which needs the C++ toolchain and Python that
# node:<major>-bookworm has; the slim run image needs neither.
ARG BUILD_IMAGE=
ARG NODE_IMAGE=

FROM ${BUILD_IMAGE:-node:${NODE_MAJOR}-bookworm} AS build
WORKDIR /build
# Dependencies first, in their own layer: a source change does not reinstall them.
COPY package.json package-lock.json ./
COPY patches ./patches
# --ignore-scripts: the root `prepare` script (tsc) cannot run before the sources are here, and no other
# dependency's install script is wanted; on Node 20 better-sqlite3 12's native build is run explicitly just after
# (src/db/sqlite.ts picks the release by Node-API version, as the check below does), and the patches in patches/
# (cron-parser's DST and day-field rules) are applied as `postinstall` would.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npx patch-package \
 && if [ "$(node -p process.versions.napi)" -lt 10 ]; then npm rebuild better-sqlite3-node20; fi \
 && node -e "const name = +process.versions.napi >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20'; new (require(name))(':memory:').prepare('select 1').get()"
COPY . .
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && mkdir -p memory skills

FROM ${NODE_IMAGE:-node:${NODE_MAJOR}-bookworm-slim}
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
# The data folder: the person's alone (a bind mount replaces it); uid 1000's, mode 0700, when it is a fresh volume.
RUN mkdir -p data && chown 1000:1000 data && chmod 0700 data
# Uid 1000: the official node images' `node` user (scripts/build-node-base-image.sh makes the same).
USER 1000:1000
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "dist/main.js", "status", "--ready"]
ENTRYPOINT ["node", "dist/main.js"]
CMD ["start"]
