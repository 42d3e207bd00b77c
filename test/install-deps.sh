#!/bin/bash
# test/install-deps.sh: install, with apt-get, the Debian 12 packages that
# building and testing snowflake need, if any is missing.  Must run as root
# when something is missing.  Debian's own "main" cluster is not created:
# every test starts servers of its own.
set -euo pipefail

PACKAGES=(
	build-essential            # gcc, make
	postgresql-15              # the server the tests run
	postgresql-server-dev-15   # PGXS, pg_regress, isolation tester, TAP modules
	libipc-run-perl            # PostgreSQL::Test::Cluster
	faketime                   # shifting a running server's clock (TAP)
	postgresql-15-partman      # the pg_partman recipe (pg_regress)
	postgresql-15-pglogical    # multi-master replication (TAP)
	sqlsmith                   # fuzzing (TAP)
)

missing=()
# Node.js and npm for the client test, unless some installation is present
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	PACKAGES+=(nodejs npm)
fi
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "missing packages: ${missing[*]}; run as root to install them" >&2
	exit 1
fi

echo "installing: ${missing[*]}"
# no cluster at install time; tests make their own
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
	mkdir -p /etc/postgresql-common
	echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null
echo "installed: ${missing[*]}"
