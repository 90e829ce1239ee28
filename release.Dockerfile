# The release image: the release binary for each platform, not a build. The
# release workflow (.github/workflows/release.yml) extracts linux/amd64 and
# linux/arm64 from the release archives after checking them and the binaries
# against action/checksums.txt, into <platform>/rubricgate of the build
# context. The Dockerfile beside it builds a like image from source.
# :debug adds a busybox shell at /busybox/sh (GitLab runs a job's script
# with it); rubricgate is on PATH.
FROM gcr.io/distroless/static-debian12:debug
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/rubricgate /usr/local/bin/rubricgate
ENTRYPOINT ["/usr/local/bin/rubricgate"]
