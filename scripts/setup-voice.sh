#!/usr/bin/env bash
# Installs the local speech engines the voice tests run for real (see test/helpers/audio.ts): ffmpeg (decoding and
# OGG/Opus, MP3 encoding), espeak-ng (speech to feed in, and a text-to-speech engine) and pocketsphinx with its US
# English model (an offline recogniser as the speech-to-text command). Starts no service.
# Idempotent: when everything is already installed it returns at once.
set -euo pipefail

packages=(ffmpeg espeak-ng pocketsphinx pocketsphinx-en-us)

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

echo "setup-voice: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup-voice: done" >&2
