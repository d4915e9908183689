#!/usr/bin/env bash
# Installs the browser the console's end-to-end tests drive (test/console/browser.test.ts, through playwright-core):
# Debian's chromium, with a font for text and one for emoji (the screenshots in docs/console/ show both).
# Starts nothing. Idempotent: when everything is already installed it returns at once.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

packages=(chromium fonts-dejavu-core fonts-noto-color-emoji)

missing_packages "${packages[@]}"
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
apt_install setup-browser "${missing[@]}"
