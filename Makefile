# Makefile for the snowflake extension (PGXS)

EXTENSION   = snowflake snowflake_registry
EXTVERSION  = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(srcdir)/snowflake.control)
MODULE_big  = snowflake
OBJS        = src/snowflake.o src/shmem.o src/guc.o src/layout.o \
              src/admission.o src/clock.o src/identity.o src/state_file.o src/wal.o \
              src/generator.o src/redo.o src/bgworker.o \
              src/clock_watcher.o src/peer_list.o src/peer_client.o \
              src/peer_checker.o src/citus_node.o src/registry.o \
              src/node_worker.o \
              src/node_info.o src/observe.o src/status.o src/records.o src/type_io.o \
              src/operators.o src/time_ops.o src/planner_support.o \
              src/decode.o src/foreign_layouts.o src/uuid.o
# The current version's install script is built from extension/snowflake.sql,
# its one source; older versions install through snowflake--1.0.sql and the
# update scripts.
DATA        = $(srcdir)/extension/snowflake--1.0.sql \
              $(srcdir)/extension/snowflake_registry--1.0.sql \
              $(wildcard $(srcdir)/extension/snowflake--*--*.sql)
DATA_built  = snowflake--$(EXTVERSION).sql
PGFILEDESC  = "snowflake - time-ordered 64-bit identifiers"
PG_CPPFLAGS = -I$(srcdir)/src -I$(libpq_srcdir) -DSNOWFLAKE_VERSION=\"$(EXTVERSION)\"
SHLIB_LINK_INTERNAL = $(libpq)

# pg_regress and the isolation tester start their own server with the
# library preloaded (test/snowflake.conf), so "make installcheck" never
# touches a running server.  Run it as an unprivileged user after
# "make install"; test/run.sh does all of that.
REGRESS        = extension type_io operators generate functions guc status \
                 time_queries rewrites partitioning layouts bulk uuid security \
                 adopt observe registry
REGRESS_OPTS   = --temp-instance=./tmp_check_regress \
                 --temp-config=$(srcdir)/test/snowflake.conf
ISOLATION      = generate_interleaved rollback_not_reused
ISOLATION_OPTS = --inputdir=$(srcdir)/test/isolation \
                 --temp-instance=./tmp_check_iso \
                 --temp-config=$(srcdir)/test/isolation/snowflake.conf
TAP_TESTS      = 1
PROVE_TESTS    = test/t/*.pl
EXTRA_CLEAN    = tmp_check_regress tmp_check_iso output_iso

# Tests that need an optional extension run only where it is installed for
# the PostgreSQL under test; "make print-skipped-regress" names the others
# with the reason, and test/run.sh counts them as skipped.
PG_CONFIG ?= pg_config
PG_SHAREDIR := $(shell $(PG_CONFIG) --sharedir)
ifneq ($(wildcard $(PG_SHAREDIR)/extension/pg_partman.control),)
REGRESS        += partman
else
REGRESS_SKIPPED += partman
skip_reason_partman = pg_partman is not installed for this PostgreSQL
endif

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

snowflake--$(EXTVERSION).sql: $(srcdir)/extension/snowflake.sql
	cp $< $@

# "make dist": the PGXN release archive, snowflake-X.Y.0.zip, of what is
# committed (git archive; .gitattributes leaves out CI files).  META.json
# must name the version the control file installs.
DISTVERSION = $(shell sed -n 's/^   "version": "\(.*\)",$$/\1/p' $(srcdir)/META.json)
PREVVERSION = $(shell ls $(srcdir)/extension | sed -n 's/^snowflake--\(.*\)--$(EXTVERSION)\.sql$$/\1/p')

.PHONY: dist
dist:
	@test "$(DISTVERSION)" = "$(EXTVERSION).0" || \
		{ echo "META.json has version $(DISTVERSION), snowflake.control $(EXTVERSION)" >&2; exit 1; }
	@test -f $(srcdir)/extension/snowflake--$(PREVVERSION)--$(EXTVERSION).sql || \
		{ echo "no update script to $(EXTVERSION)" >&2; exit 1; }
	git archive --format=zip --prefix=$(EXTENSION)-$(DISTVERSION)/ \
		-o $(EXTENSION)-$(DISTVERSION).zip HEAD
	@echo "$(EXTENSION)-$(DISTVERSION).zip"

.PHONY: print-skipped-regress
print-skipped-regress:
	@$(foreach t,$(REGRESS_SKIPPED),echo '$(t): $(skip_reason_$(t))';) true

# "make check-structure": the call graph between the C files, from nm of
# the objects; fails if the files call each other in a cycle, or against
# the layers mapped in src/snowflake.h.
.PHONY: check-structure
check-structure: $(OBJS)
	$(PERL) $(srcdir)/test/check-structure.pl --map $(srcdir)/src/snowflake.h $(OBJS)
