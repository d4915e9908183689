#!/usr/bin/env bash
# Installs the local speech engines the voice tests run for real (see test/helpers/audio.ts): ffmpeg (decoding and
# OGG/Opus, MP3 encoding), espeak-ng (speech to feed in, and a text-to-speech engine) and pocketsphinx with its US
# English model (an offline recogniser as the speech-to-text command). Starts no service.
# Idempotent: when everything is already installed it returns at once.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

packages=(ffmpeg espeak-ng pocketsphinx pocketsphinx-en-us)

missing_packages "${packages[@]}"
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
apt_install setup-voice "${missing[@]}"
