# Sourced by the setup-*.sh scripts: which Debian packages are missing, and installing them quietly without starting
# the services their maintainer scripts would start. Needs root or sudo without a password.

# Empty as root, else sudo.
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi

# missing_packages PKG...: sets the array `missing` to the packages that are not installed.
missing_packages() {
  missing=()
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -qx installed; then
      missing+=("$pkg")
    fi
  done
}

# no_service_starts: until this shell exits, a policy-rc.d keeps maintainer scripts from starting services (one that
# was already there is left alone).
no_service_starts() {
  if [ -e /usr/sbin/policy-rc.d ]; then return 0; fi
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
}

# apt_install NAME PKG...: installs the packages (no recommends), saying so on stderr as NAME.
apt_install() {
  local name=$1
  shift
  echo "$name: installing $*" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
  echo "$name: done" >&2
}
