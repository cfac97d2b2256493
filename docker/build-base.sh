#!/usr/bin/env bash
# Builds the local base image of the FlexLog image without pulling anything from a registry of
# images: a Debian minbase root file system made by debootstrap from the machine's own Debian
# package source (a Java 17 runtime, libpmemobj1 and libpmempool1 for the llpl engine), turned
# into an image with `docker import`. The image is kept by Docker: a later run finds it and does
# nothing (FLEXLOG_BASE_REBUILD=1 builds it again). See docs/operations.md#docker.
#
#   docker/build-base.sh [TAG]          # default tag: flexlog-base:local
#
# Needs root (debootstrap), debootstrap and a running Docker daemon. The package source is the
# first `deb` source of the suite in /etc/apt (FLEXLOG_DEBIAN_MIRROR overrides it).
set -euo pipefail

tag="${1:-flexlog-base:local}"
suite="${FLEXLOG_DEBIAN_SUITE:-bookworm}"
packages="openjdk-17-jre-headless,libpmemobj1,libpmempool1,ca-certificates"

if [[ -z "${FLEXLOG_BASE_REBUILD:-}" ]] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "build-base: $tag is present (cached; FLEXLOG_BASE_REBUILD=1 rebuilds it)"
  exit 0
fi

# The URI of the first deb source for the suite, in deb822 (*.sources) or one-line (*.list) form.
debian_mirror() {
  if [[ -n "${FLEXLOG_DEBIAN_MIRROR:-}" ]]; then
    echo "$FLEXLOG_DEBIAN_MIRROR"
    return
  fi
  local f uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    uri=$(awk -v suite="$suite" '
      function flush() {
        if (!found && types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "") {
          split(uris, u, " "); print u[1]; found = 1
        }
        types = ""; suites = ""; uris = ""
      }
      /^[[:space:]]*$/ { flush(); next }
      /^Types:/  { sub(/^Types:[[:space:]]*/, "");  types = $0 }
      /^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
      /^URIs:/   { sub(/^URIs:[[:space:]]*/, "");   uris = $0 }
      END { flush() }' "$f")
    if [[ -n "$uri" ]]; then echo "$uri"; return; fi
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    uri=$(awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }' "$f")
    if [[ -n "$uri" ]]; then echo "$uri"; return; fi
  done
  return 1
}

command -v debootstrap >/dev/null || { echo "build-base: debootstrap is not installed" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "build-base: debootstrap needs root" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "build-base: the Docker daemon is not reachable" >&2; exit 1; }
mirror=$(debian_mirror) || {
  echo "build-base: no deb source for '$suite' in /etc/apt; set FLEXLOG_DEBIAN_MIRROR" >&2
  exit 1
}

rootfs=$(mktemp -d /tmp/flexlog-base-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
start=$SECONDS
echo "build-base: debootstrap $suite minbase + $packages"
debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" \
  >"$rootfs.log" 2>&1 || { tail -n 30 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
# What a runtime image does not need: package caches and lists, documentation, manuals, locales.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old
tar -C "$rootfs" -c . | docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]' \
  - "$tag" >/dev/null
echo "build-base: $tag built in $((SECONDS - start)) s ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}'))"
