#!/bin/bash
# test/install-deps.sh: install, with apt-get, the Debian 12 packages that
# snowflake needs, if any is missing.  Must run as root when something is
# missing.  Debian's defaults are left as they are: installing postgresql-15
# creates Debian's cluster 15/main, as it does for everyone, and the
# README's configuration steps use it; the demo and the tests start servers
# of their own and leave it alone.
#
#   test/install-deps.sh demo    building and trying it: a compiler and PostgreSQL 15
#   test/install-deps.sh test    also everything the test suites use
set -euo pipefail

profile=${1:-test}

# what "make" and "make install" need, and a server to run
PACKAGES=(
	build-essential            # gcc, make
	postgresql-15              # the server
	postgresql-server-dev-15   # PGXS, pg_regress, isolation tester, TAP modules
)
if [ "$profile" = test ]; then
	PACKAGES+=(
		libipc-run-perl            # PostgreSQL::Test::Cluster
		faketime                   # shifting a running server's clock (TAP)
		postgresql-15-partman      # the pg_partman test (pg_regress)
		postgresql-15-pglogical    # multi-master replication (TAP)
		sqlsmith                   # fuzzing (TAP)
		gdb                        # stopping a backend inside a critical section (TAP)
		spin                       # the model checker of the protocol (model/)
		libcurl4 liblz4-1 libzstd1 # Citus's runtime libraries (TAP, with ../shared/citus)
		python3-sqlalchemy python3-alembic python3-django python3-psycopg2
		                           # the ORM migration test (TAP)
	)
	# Node.js and npm for the client test, unless some installation is present
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		PACKAGES+=(nodejs npm)
	fi
elif [ "$profile" != demo ]; then
	echo "usage: $0 demo|test" >&2
	exit 2
fi

# Citus, test equipment only: from ../shared/citus when it is there (built
# for Debian's PostgreSQL 15), with its runtime libraries
citus_tarball=
if [ "$profile" = test ]; then
	citus_tarball=$(ls "$(dirname "$0")"/../../shared/citus/citus-*-pg15-*.tar.xz 2>/dev/null | head -1 || true)
fi

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
install_citus() {
	[ -n "$citus_tarball" ] || return 0
	[ -f /usr/share/postgresql/15/extension/citus.control ] && return 0
	[ "$(id -u)" = 0 ] || { echo "Citus is not installed; run as root to install it" >&2; return 1; }
	echo "installing Citus from $citus_tarball"
	tar -xJf "$citus_tarball" -C /
}

# Earlier versions of this script kept Debian from creating its main
# cluster, with a file that outlived them; it goes, so that a PostgreSQL
# version installed from now on gets its cluster "main" again.
old_conf=/etc/postgresql-common/createcluster.d/snowflake-no-main-cluster.conf
if [ -e "$old_conf" ] && [ "$(id -u)" = 0 ]; then
	rm -f "$old_conf"
	echo "removed $old_conf, left by an earlier version of this script: Debian creates a cluster \"main\" again for each PostgreSQL version installed"
fi

if [ ${#missing[@]} -eq 0 ]; then
	install_citus
	exit
fi

if [ "$(id -u)" != 0 ]; then
	echo "missing packages: ${missing[*]}; run as root to install them" >&2
	exit 1
fi

echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# recommended packages are not needed by anything here, and are many
apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confold \
	"${missing[@]}" >/dev/null
echo "installed: ${missing[*]}"
install_citus
