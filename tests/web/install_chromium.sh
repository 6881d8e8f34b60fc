#!/usr/bin/env bash
# Installs Debian's chromium (and a font with the card suits) for the browser tests, when it is
# missing (with its recommended packages, as the tests were run with). Playwright drives this
# browser: it never downloads one of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing: run 'apt-get install -y chromium fonts-dejavu-core' as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq chromium fonts-dejavu-core \
  >/dev/null
/usr/bin/chromium --version
