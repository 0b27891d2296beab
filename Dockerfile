# Crownkeeper in one container: one uvicorn process, SQLite on the /data volume (or, with
# DATABASE_URL pointing at PostgreSQL, WORKERS processes: see compose.postgres.yaml).
#
#   docker build -t crownkeeper .
#   docker run -d -p 8000:8000 -v crownkeeper-data:/data crownkeeper
#
# Behind a reverse proxy, set FORWARDED_ALLOW_IPS to the proxy's address as the container
# sees it (often the Docker network's gateway, such as 172.17.0.1), or "*" if nothing but the
# proxy can reach the port. It is left at the app's default (127.0.0.1) on purpose: inside a
# container that trusts no one, so forged X-Forwarded-* headers are ignored until you say so.
# Set ROOT_PATH (such as /crownkeeper) when the proxy serves the app under a sub-path.

# The build stage makes wheels: Crownkeeper's own (templates, static files and migrations
# inside it as package data, the static files' Brotli and gzip copies written by
# backend/precompress.py, the build backend) and one of every dependency at the version constraints.txt pins
# (`make lock`), with PostgreSQL's driver (the postgres extra), so the same image serves
# DATABASE_URL=postgresql+psycopg://... too.
FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml constraints.txt README.md LICENSE ./
COPY backend/ backend/
COPY app/ app/
COPY templates/ templates/
COPY static/ static/
COPY migrations/ migrations/
RUN pip wheel --no-cache-dir --wheel-dir /wheels -c constraints.txt '.[postgres]'

# The image installs those wheels and nothing else: no source tree, no download, no build
# tools. (The bind mount needs BuildKit, Docker's builder since 23.0.) tests/serving/test_container.py
# runs both stages' commands, into a fresh virtualenv.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN groupadd --system --gid 10001 crownkeeper \
    && useradd --system --uid 10001 --gid crownkeeper --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin crownkeeper

WORKDIR /app

RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels 'crownkeeper[postgres]'

ENV DATABASE_URL=sqlite:////data/crownkeeper.db \
    BACKUP_DIR=/data/backups \
    HOST=0.0.0.0 \
    PORT=8000

RUN mkdir -p /data && chown crownkeeper:crownkeeper /data
VOLUME /data

USER crownkeeper
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import urllib.request,os; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\",\"8000\")}/healthz', timeout=3)"]

CMD ["crownkeeper", "serve"]
