#!/usr/bin/env bash
# Builds the two Go programs of the native stack into stack/bin/: the
# Collector (stack/collector, the components docker/collector.yaml uses) and
# Jaeger v2 (stack/jaeger, the module's cmd/jaeger). The versions are the ones
# in their go.mod and go.sum; Go's module and build caches make a second build
# fast. Prints how long each took.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p bin
export GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath"

build() {
  local name=$1 started=$SECONDS
  shift
  "$@"
  echo "stack/build.sh: $name built in $((SECONDS - started)) s"
}

build otelcol-nous bash -c 'cd collector && go build -o ../bin/otelcol-nous .'

# Jaeger tags each release twice: v1.N.P for the Go module, v2.(N-63).P for the
# v2 binary and its image (module v1.75.0 is Jaeger 2.12.0).
module=$(cd jaeger && go list -m -f '{{.Version}}' github.com/jaegertracing/jaeger)
IFS=. read -r _ minor patch <<<"${module#v}"
release="v2.$((minor - 63)).$patch"
build "jaeger $release (module $module)" bash -c "cd jaeger && go build -ldflags='-X github.com/jaegertracing/jaeger/internal/version.latestVersion=$release' -o ../bin/jaeger github.com/jaegertracing/jaeger/cmd/jaeger"
