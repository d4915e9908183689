#!/usr/bin/env bash
# Installs what the command-line tests run for real: zsh and fish (the completion scripts are loaded and run by each
# shell; bash is always there) and systemd's systemd-analyze (`familiar service install`'s unit is checked with
# `systemd-analyze verify`). Starts no service. Idempotent: when everything is installed it returns at once.
set -euo pipefail

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

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

echo "setup-cli-tools: installing ${missing[*]}" >&2

created_policy=0
cleanup() {
  if [ "$created_policy" -eq 1 ]; then
    $SUDO rm -f /usr/sbin/policy-rc.d
  fi
}
trap cleanup EXIT

# Keep the packages' maintainer scripts from starting system services.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
  created_policy=1
fi

$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

echo "setup-cli-tools: done" >&2
