# seekclaw in a container, for fleets on a job runner (deploy/k8s/: a
# Kubernetes Indexed Job; walkthrough in deploy/README.md).
#
#   docker build -t seekclaw:dev .
#
# Not built in CI: the CI machine has no container engine. CI checks this
# file's shape offline (crates/cli/tests/e2e/cli/deploy.rs) and validates the
# manifests against the Kubernetes schemas.

# --- build: the release binary, with the toolchain the repo is tested on ---
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
# The cache mounts keep the registry and the build between image builds.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p seekclaw \
 && install -m 0755 target/release/seekclaw /usr/local/bin/seekclaw

# --- runtime: the binary and what it runs, nothing else ---
FROM debian:bookworm-slim
# ca-certificates: the provider's HTTPS (the system roots); git: the agent's
# git commands and cloning the workspace; bash: the agent's shell tool.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git bash \
 && rm -rf /var/lib/apt/lists/*
# A fixed non-root uid, so manifests can name it (runAsUser: 10001).
RUN groupadd --gid 10001 seekclaw \
 && useradd --uid 10001 --gid 10001 --create-home --shell /bin/bash seekclaw \
 && mkdir -p /data /workspace \
 && chown seekclaw:seekclaw /data /workspace
COPY --from=build /usr/local/bin/seekclaw /usr/local/bin/seekclaw
# The home (config.json, the session store, logs) lives on the volume;
# seekclaw creates it on first use, owner-only.
ENV SEEKCLAW_HOME=/data/home
VOLUME ["/data"]
USER 10001:10001
WORKDIR /workspace
ENTRYPOINT ["seekclaw"]
CMD ["--help"]
