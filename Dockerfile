# lp serve in a container: the single executable (`npm run build:exe`, Node inside) on Debian slim, run as the
# unprivileged `node` user, with its data in the /data volume. docs/single-executable.md says how to run it.

# Build: the executable from this repository. `npm ci --ignore-scripts` is enough, as the executable holds no
# native addon to compile; build:exe fetches Node 26 (the first Node line whose single executables take an ES
# module main) from the npm registry, and builds the dashboard's UI itself.
FROM node:24.22.3-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm run build:exe \
 && cp "build/lp-linux-$(node -p process.arch)" /lp

# Run: the executable alone. Liberation fonts draw the text of the pages' Open Graph PNGs, as on a Debian
# machine with Chromium (lp asks for Liberation Sans when a theme names a generic family).
FROM node:24.22.3-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-liberation \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data \
 && chown node:node /data
COPY --from=build /lp /usr/local/bin/lp
USER node
WORKDIR /home/node
VOLUME /data
EXPOSE 4010
# No curl in the image: lp itself asks /healthz (exit 0 on 200, 1 otherwise).
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 CMD ["lp", "api", "GET", "/healthz"]
# The admin API stays on, guarded by the key lp generates (printed in the log, kept in /data/credentials.json)
# or by LP_ADMIN_KEY (32 characters or more, as on any non-loopback bind); append --no-admin to turn it off.
# lp handles SIGTERM and SIGINT itself as PID 1 (a clean stop, exit 0) and starts no child processes.
ENTRYPOINT ["lp", "serve", "--host", "0.0.0.0", "--data-dir", "/data"]
