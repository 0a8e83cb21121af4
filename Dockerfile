# syntax=docker/dockerfile:1
# Gatehouse production image: Node.js 24 LTS, multi-stage, runs as the unprivileged "node" user.
# On start it applies the migrations, seeds what is missing (idempotent), then serves on $PORT (3000).
# Build: docker build -t gatehouse .     Run with PostgreSQL: docker compose up (see docker-compose.yml).

ARG NODE_IMAGE=node:24-bookworm-slim

# 1. All dependencies (the build needs the dev tools: Vite, React Router's compiler).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# 2. The production build (build/server and fingerprinted build/client assets).
FROM deps AS build
WORKDIR /app
COPY . .
ENV NODE_ENV=production
RUN npx react-router build

# 3. Production dependencies only (tsx is one: it runs the migrate-and-seed script at start-up).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 4. The runtime image. PAYMENT_GATEWAY is not set here on purpose: production refuses to start until
#    it is chosen (none, or test for a demonstration; docs/decisions/200), e.g. docker run -e PAYMENT_GATEWAY=none.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    PGLITE_DIR=/app/data/pglite
COPY --from=prod-deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/build ./build
# What the start-up script needs: the migrations, the seed and the TypeScript it imports.
COPY --chown=node:node package.json tsconfig.json server.js ./
COPY --chown=node:node server/admission.js ./server/
COPY --chown=node:node drizzle ./drizzle
COPY --chown=node:node scripts ./scripts
COPY --chown=node:node seeds ./seeds
COPY --chown=node:node app ./app
# PGlite's data directory when DATABASE_URL is not set (mount a volume here to keep it).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Migrate, seed what is missing, then hand PID 1 to the server so it gets SIGTERM.
CMD ["sh", "-c", "./node_modules/.bin/tsx scripts/db-setup.ts && exec node server.js"]
