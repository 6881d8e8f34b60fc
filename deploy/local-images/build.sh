#!/usr/bin/env bash
# Local stand-ins for the public images deploy/ names, for a machine that can reach Debian's
# mirror but no container registry (the container tests in tests/deploy/ use them):
#
#   localhost/allfours-standin/bookworm:minbase   debootstrap --variant=minbase bookworm, imported
#   localhost/allfours-standin/python:3.11-slim   for python:3.11-slim-bookworm (Dockerfile)
#   localhost/allfours-standin/redis:7            for redis:7.4-alpine (compose.yaml)
#   localhost/allfours-standin/nginx:1.22         for nginx:1.28-alpine (compose.yaml)
#
# Cached: every image carries the hash of this recipe (this script and the Containerfiles
# beside it) as a label, and nothing is rebuilt while they all carry the current one; the
# bootstrapped root filesystem is kept as a tarball under $STANDIN_IMAGE_CACHE (default
# /var/tmp/allfours-images), keyed by that hash too. Needs root, podman, runc and debootstrap.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix=localhost/allfours-standin
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cache="${STANDIN_IMAGE_CACHE:-/var/tmp/allfours-images}"
recipe="$(cat "$here/build.sh" "$here"/*.Containerfile | sha256sum | cut -c1-16)"
label=org.allfours.recipe
# crun fails on this kind of machine's cgroups, and the sandbox cannot raise ulimits.
run_flags=(--runtime runc --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)

current() {
    [ "$(podman image inspect --format "{{index .Labels \"$label\"}}" "$1" 2>/dev/null)" = "$recipe" ]
}

if current "$prefix/bookworm:minbase" && current "$prefix/python:3.11-slim" \
    && current "$prefix/redis:7" && current "$prefix/nginx:1.22"; then
    echo "stand-in images up to date (recipe $recipe)"
    exit 0
fi

mkdir -p "$cache"
tarball="$cache/bookworm-minbase-$recipe.tar"
if [ ! -s "$tarball" ]; then
    root="$(mktemp -d "$cache/rootfs.XXXXXX")"
    trap 'rm -rf "$root"' EXIT
    echo "bootstrapping Debian bookworm (minbase) from $mirror"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 \
        || { tail -20 "$root.log"; exit 1; }
    rm -f "$root.log"
    # As Debian's official container images: updates and security, no services started by
    # package scripts, no documentation or translations installed, no package caches.
    cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
SOURCES
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
SLIM
    cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CLEAN'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CLEAN
    find "$root/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
    rm -rf "$root"/usr/share/{man,info,locale}/* "$root"/var/cache/apt/archives/*.deb \
        "$root"/var/lib/apt/lists/* "$root"/var/log/*.log
    tar -C "$root" --numeric-owner -cf "$tarball.part" .
    mv "$tarball.part" "$tarball"
    find "$cache" -maxdepth 1 -name 'bookworm-minbase-*.tar' ! -name "${tarball##*/}" -delete
fi

# The previous recipe's images go: only the current ones are kept.
for image in bookworm:minbase python:3.11-slim redis:7 nginx:1.22; do
    podman rmi --force "$prefix/$image" >/dev/null 2>&1 || true
done
podman import --quiet --change "LABEL $label=$recipe" --change 'CMD ["bash"]' \
    "$tarball" "$prefix/bookworm:minbase" >/dev/null
for image in python:3.11-slim redis:7 nginx:1.22; do
    echo "building $prefix/$image"
    podman build "${run_flags[@]}" --format docker --label "$label=$recipe" \
        --build-arg "BASE=$prefix/bookworm:minbase" -t "$prefix/$image" \
        -f "$here/${image%%:*}.Containerfile" "$here" >"$cache/build.log" 2>&1 \
        || { tail -30 "$cache/build.log"; exit 1; }
done
echo "stand-in images built (recipe $recipe)"
