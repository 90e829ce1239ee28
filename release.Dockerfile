# The release image (GoReleaser dockers_v2, .goreleaser.yaml): the release
# binary for each platform, not a build. The Dockerfile beside it builds a
# like image from source. :debug adds a busybox shell at /busybox/sh (GitLab
# runs a job's script with it); rubricgate is on PATH.
FROM gcr.io/distroless/static-debian12:debug
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/rubricgate /usr/local/bin/rubricgate
ENTRYPOINT ["/usr/local/bin/rubricgate"]
