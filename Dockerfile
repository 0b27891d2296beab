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
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN groupadd --system --gid 10001 crownkeeper \
    && useradd --system --uid 10001 --gid crownkeeper --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin crownkeeper

WORKDIR /app

COPY pyproject.toml constraints.txt README.md alembic.ini ./
COPY app/ app/
COPY templates/ templates/
COPY static/ static/
COPY migrations/ migrations/

# Installs the dependencies (and a copy of the package), with PostgreSQL's driver (the
# postgres extra), so the same image serves DATABASE_URL=postgresql+psycopg://... too.
# `python -m app` below runs from WORKDIR, so /app/app is imported first and finds
# templates/, static/ and migrations/ here. constraints.txt pins every version (`make lock`),
# so a rebuild installs what CI tested. tests/test_container.py runs this same command in a
# fresh virtualenv.
RUN pip install --no-cache-dir -c constraints.txt '.[postgres]'

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

CMD ["python", "-m", "app"]
