#!/usr/bin/env bash
# Vendor htmx 4 (core + license) into static/vendor/. Live updates are read by static/app.js,
# not by htmx's SSE extension (docs/BENCHMARKS.md, issue 30).
# Rerunnable: fetches the pinned package with `npm pack` and overwrites the files.
# Usage: scripts/vendor-htmx.sh   (called by `make vendor`)
set -euo pipefail

HTMX_VERSION="${HTMX_VERSION:-4.0.1}"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
DEST="${REPO_ROOT}/static/vendor"

command -v npm >/dev/null 2>&1 || { echo "error: npm is required" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "${TMP}"' EXIT

echo "Fetching htmx.org@${HTMX_VERSION} ..."
(cd "${TMP}" && npm pack --silent "htmx.org@${HTMX_VERSION}" >/dev/null)
TARBALL="${TMP}/htmx.org-${HTMX_VERSION}.tgz"
[[ -f "${TARBALL}" ]] || { echo "error: ${TARBALL} not produced by npm pack" >&2; exit 1; }
tar -xzf "${TARBALL}" -C "${TMP}"
PKG="${TMP}/package"

# Sanity check: the tarball really is the version we asked for.
PKG_VERSION="$(node -p 'require(process.argv[1]).version' "${PKG}/package.json" 2>/dev/null \
  || sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "${PKG}/package.json" | head -n1)"
if [[ "${PKG_VERSION}" != "${HTMX_VERSION}" ]]; then
  echo "error: expected version ${HTMX_VERSION}, package says ${PKG_VERSION}" >&2
  exit 1
fi

# Pick the minified file if present, else the plain one.
pick() {
  local base="$1"
  if [[ -f "${base}.min.js" ]]; then echo "${base}.min.js"
  elif [[ -f "${base}.js" ]]; then echo "${base}.js"
  else echo "error: neither ${base}.min.js nor ${base}.js in package" >&2; return 1
  fi
}
CORE_SRC="$(pick "${PKG}/dist/htmx")"
LICENSE_SRC="${PKG}/LICENSE"
[[ -f "${LICENSE_SRC}" ]] || { echo "error: LICENSE missing from package" >&2; exit 1; }

mkdir -p "${DEST}"
install -m 0644 "${CORE_SRC}"    "${DEST}/htmx-${HTMX_VERSION}.min.js"
install -m 0644 "${LICENSE_SRC}" "${DEST}/htmx-LICENSE"

echo "Vendored htmx ${HTMX_VERSION} into ${DEST}:"
for f in "htmx-${HTMX_VERSION}.min.js" "htmx-LICENSE"; do
  printf '  %-28s %7s bytes\n' "${f}" "$(wc -c < "${DEST}/${f}" | tr -d ' ')"
done
