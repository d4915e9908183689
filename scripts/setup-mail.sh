#!/usr/bin/env bash
# Installs the mail server binaries the test suite runs privately (see test/helpers/mail-server.ts):
# Dovecot (IMAP + LMTP + auth), Postfix (SMTP) and openssl. Starts no system service.
# Idempotent: when everything is already installed it returns at once.
set -euo pipefail

packages=(dovecot-imapd dovecot-lmtpd postfix openssl)

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

echo "setup-mail: installing ${missing[*]}" >&2

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

echo 'postfix postfix/main_mailer_type select No configuration' | $SUDO debconf-set-selections
echo 'postfix postfix/mailname string localhost' | $SUDO debconf-set-selections

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

echo "setup-mail: done" >&2
