#!/usr/bin/env bash
# Installs the CalDAV servers and the independent client and recurrence oracle the calendar tests use
# (test/helpers/caldav-server.ts): Debian's radicale and xandikos, python3-caldav (a second client), python3-dateutil
# and python3-icalendar (occurrences computed without ical.js). Starts nothing: the tests start private servers on
# loopback. Idempotent: when everything is already installed it returns at once.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

packages=(radicale xandikos python3-caldav python3-dateutil python3-icalendar)

missing_packages "${packages[@]}"
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
no_service_starts
apt_install setup-caldav "${missing[@]}"
