#!/usr/bin/env bash
# Builds the FlexLog image from the runtime distribution that Maven built
# (flexlog-dist/target/flexlog-VERSION-bin.tar.gz; `mvn -pl flexlog-dist -am package` makes it).
#
#   docker/build-image.sh [TAG]       # default: flexlog:VERSION, also tagged flexlog:latest
#   docker/build-image.sh --for-tests TAG
#
# BASE_IMAGE picks the base; by default flexlog-base:local, built first by docker/build-base.sh
# when it is missing and this machine can build it (root, debootstrap), else the Dockerfile's
# public JRE image. Nothing is pulled when the base is local.
#
# --for-tests (the container tests' pre-integration-test step): where Docker cannot run, say so
# and exit 0, so that the tests are skipped with that reason; FLEXLOG_DOCKER_REQUIRED=true (CI)
# makes it an error instead. Only TAG is tagged.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

for_tests=""
if [[ "${1:-}" == "--for-tests" ]]; then
  for_tests=1
  shift
fi

unusable() {
  if [[ -n "$for_tests" && "${FLEXLOG_DOCKER_REQUIRED:-false}" != "true" ]]; then
    echo "build-image: $1: the container tests will be skipped" >&2
    exit 0
  fi
  echo "build-image: $1" >&2
  exit 1
}

command -v docker >/dev/null || unusable "docker is not installed"
docker info >/dev/null 2>&1 || unusable "the Docker daemon is not reachable (docker info failed)"

archive="${FLEXLOG_DIST_ARCHIVE:-}"
if [[ -z "$archive" ]]; then
  archive=$(ls "$root"/flexlog-dist/target/flexlog-*-bin.tar.gz 2>/dev/null | head -n 1 || true)
fi
archive="${archive//[[:space:]]/}"
[[ -n "$archive" && -f "$archive" ]] ||
  unusable "no runtime distribution ${archive:-under flexlog-dist/target}: run 'mvn -pl flexlog-dist -am package' first"
name="$(basename "$archive")"
version="${name#flexlog-}"
version="${version%-bin.tar.gz}"
tag="${1:-flexlog:$version}"

base="${BASE_IMAGE:-}"
if [[ -z "$base" ]]; then
  if docker image inspect flexlog-base:local >/dev/null 2>&1; then
    base=flexlog-base:local
  elif [[ $(id -u) -eq 0 ]] && command -v debootstrap >/dev/null; then
    "$here/build-base.sh" flexlog-base:local
    base=flexlog-base:local
  fi
fi

# A small build context: the Dockerfile's two inputs at the paths it names.
context=$(mktemp -d /tmp/flexlog-image-context.XXXXXX)
log=$(mktemp /tmp/flexlog-image-build.XXXXXX)
trap 'rm -rf "$context" "$log"' EXIT
mkdir -p "$context/docker" "$context/flexlog-dist/target"
cp "$here/Dockerfile" "$here/healthcheck.sh" "$context/docker/"
cp "$archive" "$context/flexlog-dist/target/flexlog-$version-bin.tar.gz"

args=(--build-arg "FLEXLOG_VERSION=$version" -f "$context/docker/Dockerfile" -t "$tag")
if [[ -n "$base" ]]; then
  args+=(--build-arg "BASE_IMAGE=$base")
fi
if [[ -z "$for_tests" && "$tag" != "flexlog:latest" ]]; then
  args+=(-t flexlog:latest)
fi
start=$SECONDS
echo "build-image: $tag from $name on ${base:-the default base of the Dockerfile}"
# The classic builder: BuildKit needs the buildx plugin, which Debian's docker.io lacks.
if ! DOCKER_BUILDKIT=0 docker build -q "${args[@]}" "$context" >"$log" 2>&1; then
  cat "$log" >&2
  echo "build-image: docker build failed" >&2
  exit 1
fi
# The FlexLog image this build replaced, now untagged (not the base, not other images).
docker image prune -f --filter dangling=true \
  --filter label=org.opencontainers.image.title=FlexLog >/dev/null
size=$(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}')
echo "build-image: $tag built in $((SECONDS - start)) s ($size)"
