# Build stage: all dependencies, compile to dist/, then drop the development dependencies.
# Node 22 LTS, pinned to a release; bump it deliberately (CI runs the suite on Node 22).
FROM node:22.23.5-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install script is needed (native parts such as SWC's come as prebuilt packages), and the
# npm of this image would run them all, allowScripts or not.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime stage: node, the production dependencies and the compiled server.
FROM node:22.23.5-bookworm-slim
# MALLOC_ARENA_MAX: two malloc arenas instead of glibc's eight per core, which V8's and libuv's
# threads each leave partly filled: the server's RSS idle after a restart 196-198 MB against
# 202-209 MB on Node 22. The thresholds: fixed at 128 KiB, where glibc raises them as large
# blocks are freed and keeps more free memory (3 to 4 MB less idle; docs/operations.md).
# npm run start:prod sets the same (scripts/start.mjs).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=18080 \
    DATA_DIR=/data \
    LOG_FORMAT=json \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# OCR of scans and pictures among uploaded files (FILES_OCR=auto): English and Simplified Chinese,
# and poppler to render scanned PDFs for it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-chi-sim poppler-utils \
    && rm -rf /var/lib/apt/lists/*
# package.json is read at start-up for the server's version.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 18080
# Readiness, database included, on whatever PORT the container is given.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# config.yaml and config.{ENV}.yaml, when mounted into /app, are read beneath the environment.
# As `npm run start:prod` starts it: small young-generation semi-spaces, and a heap limit below
# 1 GiB so that V8 collects the old generation at twice its live size rather than four times,
# keep the server's RSS under load ~100 MB lower; two V8 helper threads; and the bytecode of a
# function left unused since the last full collection dropped (start-up code, mostly), ~7 MB
# (docs/operations.md).
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=1000", "--v8-pool-size=2", "--bytecode-old-age=1", "dist/apps/server/src/main.js"]
