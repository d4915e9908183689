#!/usr/bin/env bash
# Installs what the command-line tests run for real: zsh and fish (the completion scripts are loaded and run by each
# shell; bash is always there) and systemd's systemd-analyze (`familiar service install`'s unit is checked with
# `systemd-analyze verify`). Starts no service. Idempotent: when everything is installed it returns at once.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

declare -A binaries=([zsh]=/usr/bin/zsh [fish]=/usr/bin/fish [systemd]=/usr/bin/systemd-analyze)

missing=()
for pkg in "${!binaries[@]}"; do
  if [ ! -x "${binaries[$pkg]}" ]; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

no_service_starts
apt_install setup-cli-tools "${missing[@]}"
