#!/usr/bin/env bash
# Installs the mail server binaries the test suite runs privately (see test/helpers/mail-server.ts):
# Dovecot (IMAP + LMTP + auth), Postfix (SMTP) and openssl. Starts no system service.
# Idempotent: when everything is already installed it returns at once.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

packages=(dovecot-imapd dovecot-lmtpd postfix openssl)

missing_packages "${packages[@]}"
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

no_service_starts

echo 'postfix postfix/main_mailer_type select No configuration' | $SUDO debconf-set-selections
echo 'postfix postfix/mailname string localhost' | $SUDO debconf-set-selections

apt_install setup-mail "${missing[@]}"
