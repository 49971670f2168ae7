# syntax=docker/dockerfile:1
# Static worker and publisher binaries on distroless static, as UID 65532.
# The image writes nothing outside mounted volumes (/tmp and the embedded
# store are volumes in the Helm chart), so it runs with a read-only root.
ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/ ./cmd/worker ./cmd/publisher

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/worker /out/publisher /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/worker"]
