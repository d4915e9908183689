#!/usr/bin/env bash
# Installs the browser the console's end-to-end tests drive (test/console/browser.test.ts, through playwright-core):
# Debian's chromium, with a font for text and one for emoji (the screenshots in docs/console/ show both).
# Starts nothing. Idempotent: when everything is already installed it returns at once.
set -euo pipefail

packages=(chromium fonts-dejavu-core fonts-noto-color-emoji)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -qx installed; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

echo "setup-browser: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup-browser: done" >&2
