#!/usr/bin/env bash
# Installs the Debian packages the deployment tests (and bench http/soak/store) run for real:
# prometheus (with promtool), haproxy, wrk, chromium with chromium-driver (the page at / is tested
# in a real headless browser), and libleveldb1d (Google's LevelDB 1.23, which bench store calls
# with Core's Bloom filter policy). Does nothing for a tool already on the PATH, so a
# second run costs nothing. Without apt-get or root it says what is missing and exits 0: the tests
# that need a missing tool then skip with that reason (and fail under CI=true).
#
#   deploy/install-tools.sh            install what is missing
#   deploy/install-tools.sh --check    only report (exit 1 if something is missing)
set -uo pipefail

# tool on the PATH -> Debian package that ships it
declare -A PACKAGE=([prometheus]=prometheus [promtool]=prometheus [haproxy]=haproxy [wrk]=wrk
                    [chromium]=chromium [chromedriver]=chromium-driver)

missing_packages() {
  local tool pkgs=()
  for tool in prometheus promtool haproxy wrk chromium chromedriver; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
      pkgs+=("${PACKAGE[$tool]}")
    fi
  done
  if ! ls /usr/lib/*-linux-gnu/libleveldb.so.1d >/dev/null 2>&1; then
    pkgs+=(libleveldb1d)
  fi
  printf '%s\n' "${pkgs[@]}" | sort -u | grep -v '^$' || true
}

mapfile -t wanted < <(missing_packages)
if [ "${#wanted[@]}" -eq 0 ]; then
  echo "deploy/install-tools.sh: prometheus, promtool, haproxy, wrk, chromium, chromedriver and libleveldb1d are installed"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "deploy/install-tools.sh: missing Debian packages: ${wanted[*]}"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deploy/install-tools.sh: no apt-get; install ${wanted[*]} by hand: tests that need them skip (fail under CI=true)"
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    echo "deploy/install-tools.sh: not root; run 'apt-get install ${wanted[*]}' as root: tests that need them skip (fail under CI=true)"
    exit 0
  fi
fi
echo "deploy/install-tools.sh: installing ${wanted[*]} (apt-get)"
# The tests start their own prometheus and haproxy on 127.0.0.1 with their own configuration;
# the packages' system services are not used by them. Chromium runs headless with a fresh profile.
export DEBIAN_FRONTEND=noninteractive
if "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${wanted[@]}" >/tmp/bbf-install-tools.log 2>&1 \
  || { "${SUDO[@]}" apt-get update -q >>/tmp/bbf-install-tools.log 2>&1 \
       && "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${wanted[@]}" >>/tmp/bbf-install-tools.log 2>&1; }; then
  echo "deploy/install-tools.sh: installed ${wanted[*]}"
else
  echo "deploy/install-tools.sh: apt-get install ${wanted[*]} failed (log: /tmp/bbf-install-tools.log): tests that need them skip (fail under CI=true)"
fi
exit 0
