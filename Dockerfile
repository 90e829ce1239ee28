# Build stage: module download cached in its own layer, static binary. The
# version comes from the source (internal/version/version.go).
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/rubricgate ./cmd/rubricgate

# Final stage: distroless static (CA certificates, no shell). No USER line:
# a CI job running the image writes its mounted checkout, owned by the
# runner's user. (The GitHub action is the composite action in action.yml;
# the release publishes release.Dockerfile's image of the release binaries.)
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/rubricgate /rubricgate
ENTRYPOINT ["/rubricgate"]
