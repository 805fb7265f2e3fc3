# dreamstream: both workers (`dreamstream worker streams|consumers`), the operator CLI, the HTTP
# API and the MCP server in one image. No JVM: Kafka and Qdrant are external.
#
#   docker build -t dreamstream:0.1.0 .                                     # from a registry
#   podman build --isolation=chroot --build-arg BASE=localhost/debian:bookworm-min -t dreamstream:0.1.0 .
#
# Behind a TLS-inspecting proxy, hand pip the proxy's CA bundle as a build secret (it stays out of
# the image): `--secret id=pip-ca,src=/etc/ssl/certs/ca-certificates.crt`.
#
# BASE may be python:3.11-slim (or any newer slim Python) or a plain Debian bookworm root file
# system: when the base has no python3, Debian's python3.11 is installed from apt.
# Runs as uid/gid 10001 with a read-only root file system: everything it writes goes to
# /var/lib/dreamstream (HOME and DREAMSTREAM_HOME; mount a volume there) and /tmp.
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
# hadolint ignore=DL3008
RUN set -eu; \
    if ! command -v python3 >/dev/null; then \
        apt-get update; \
        apt-get install -y --no-install-recommends python3 python3-venv ca-certificates; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    python3 -m venv /opt/dreamstream
ENV PATH=/opt/dreamstream/bin:$PATH \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# Dependencies first, from pyproject.toml alone (as wheels from PyPI; no compiler in the image),
# so a source change does not reinstall them; then the project itself from this context.
COPY pyproject.toml README.md ./
RUN --mount=type=secret,id=pip-ca \
    if [ -s /run/secrets/pip-ca ]; then export PIP_CERT=/run/secrets/pip-ca; fi \
    && mkdir schemas plumbing streams consumers dreaming language dreamstream \
    && pip install . \
    && pip uninstall -y dreamstream
COPY schemas ./schemas
COPY plumbing ./plumbing
COPY streams ./streams
COPY consumers ./consumers
COPY dreaming ./dreaming
COPY language ./language
COPY dreamstream ./dreamstream
RUN --mount=type=secret,id=pip-ca \
    if [ -s /run/secrets/pip-ca ]; then export PIP_CERT=/run/secrets/pip-ca; fi \
    && pip install --no-deps . \
    && python -m compileall -q /opt/dreamstream

FROM ${BASE}
# hadolint ignore=DL3008
RUN set -eu; \
    if ! command -v python3 >/dev/null; then \
        apt-get update; \
        apt-get install -y --no-install-recommends python3 ca-certificates; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    groupadd --gid 10001 dreamstream; \
    useradd --uid 10001 --gid 10001 --home-dir /var/lib/dreamstream --no-create-home \
        --shell /usr/sbin/nologin dreamstream; \
    install -d -o 10001 -g 10001 -m 0750 /var/lib/dreamstream
COPY --from=build /opt/dreamstream /opt/dreamstream
ENV PATH=/opt/dreamstream/bin:$PATH \
    HOME=/var/lib/dreamstream \
    DREAMSTREAM_HOME=/var/lib/dreamstream \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True
# Faust keeps its data directory under the working directory: the writable home.
WORKDIR /var/lib/dreamstream
VOLUME ["/var/lib/dreamstream"]
USER 10001:10001
# The metrics/probe port (DREAMSTREAM_METRICS_PORT) and the consolidation worker's API (DREAMSTREAM_API_PORT).
EXPOSE 9100 8080
ENTRYPOINT ["dreamstream"]
CMD ["worker", "consumers"]
