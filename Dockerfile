# One image for the three apps (seat-api is the default command; the expiry consumer and the waitlist app
# run the same image with `node dist/apps/expiry-consumer/src/main.js` and
# `node dist/apps/waitlist/src/main.js`). Multi-stage: the build stage has the dev tools, the
# runtime stage only production dependencies and the compiled JavaScript, and runs as a non-root user.
# Node 24, the version of .nvmrc and engines in package.json.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
RUN npm run build

FROM node:24-bookworm-slim AS runtime
# NODE_OPTIONS: V8's young generation at 64 MB semi-spaces for every app (why: scripts/start.sh)
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=64 \
    HOST=0.0.0.0 \
    LOG_FORMAT=json
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000 3001 3002
# Liveness only (no dependency): readiness (/health) is for the load balancer, not for restarting.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/seat-api/src/main.js"]
