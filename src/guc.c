/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  The snowflake.* configuration parameters.
 *
 * Settings that decide what an ID means (node ID, epoch, field widths) can
 * only be set at server start: changing them on a running server could hand
 * out IDs that collide with ones already issued.  They are PGC_POSTMASTER
 * when the library is preloaded.  A backend that loads the library on its
 * own (to use the type and the decoding functions without preloading)
 * cannot define PGC_POSTMASTER parameters, so there they are PGC_SIGHUP:
 * still read from the configuration file only, never set by a session.
 *
 * Settings that only change availability or timing (clock policy, bounds,
 * worker interval) are PGC_SIGHUP; none of them can cause a duplicate.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <limits.h>

#include "miscadmin.h"
#include "utils/datetime.h"
#include "utils/guc.h"

#include "compat.h"
#include "layout.h"
#include "peer_list.h"
#include "settings.h"

/* GUC variables */
int			snowflake_node_id = -1;
char	   *snowflake_epoch = NULL;
int			snowflake_node_bits = SNOWFLAKE_DEFAULT_NODE_BITS;
int			snowflake_sequence_bits = SNOWFLAKE_DEFAULT_SEQ_BITS;
int			snowflake_clock_policy = SNOWFLAKE_CLOCK_BORROW;
int			snowflake_max_borrow = 10000;
int			snowflake_clock_wait_timeout = 1000;
int			snowflake_reserve_ahead = 2000;
int			snowflake_clock_check_interval = 1000;
int			snowflake_clock_step_threshold = 100;
int			snowflake_max_clock_jump = 1000;
int			snowflake_clock_jump_hold = 60000;
int			snowflake_epoch_warning_days = 365;
char	   *snowflake_peers = NULL;
int			snowflake_peer_check_interval = 5000;
int			snowflake_peer_timeout = 2000;
int			snowflake_node_conflict = SNOWFLAKE_CONFLICT_REFUSE;
char	   *snowflake_node_registry = NULL;
char	   *snowflake_database = NULL;
int			snowflake_sequence_random_start = 0;
bool		snowflake_registry_fencing = false;
char	   *snowflake_advertise_address = NULL;

/* bumped whenever a setting the generator derives its bounds from changes */
uint32		snowflake_policy_version = 0;

/* Unix ms of snowflake.epoch, kept up to date by its assign hook */
static int64 epoch_ms = 0;

/* the layout settings cannot change while this server runs (preloaded) */
static bool layout_fixed = false;

static const struct config_enum_entry node_conflict_options[] = {
	{"refuse", SNOWFLAKE_CONFLICT_REFUSE, false},
	{"warn", SNOWFLAKE_CONFLICT_WARN, false},
	{NULL, 0, false}
};

static const struct config_enum_entry clock_policy_options[] = {
	{"borrow", SNOWFLAKE_CLOCK_BORROW, false},
	{"wait", SNOWFLAKE_CLOCK_WAIT, false},
	{"error", SNOWFLAKE_CLOCK_ERROR, false},
	{NULL, 0, false}
};

/*
 * The name of the clock policy in force, as snowflake.clock_policy spells it.
 */
const char *
snowflake_clock_policy_name(void)
{
	for (const struct config_enum_entry *e = clock_policy_options; e->name; e++)
	{
		if (e->val == snowflake_clock_policy)
			return e->name;
	}
	return "?";
}

/*
 * Reads exactly 'ndigits' decimal digits at *p into *value and advances *p.
 */
static bool
read_digits(const char **p, int ndigits, int *value)
{
	int			v = 0;

	for (int i = 0; i < ndigits; i++)
	{
		if (!isdigit((unsigned char) **p))
			return false;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	*value = v;
	return true;
}

/*
 * Parses an epoch written as an ISO 8601 date and time,
 *		YYYY-MM-DD[( |T)HH:MM[:SS[.fff]]][ ][Z|UTC|(+|-)HH[[:]MM]]
 * into Unix milliseconds.  Without a zone the time is UTC.  The server's
 * TimeZone and DateStyle settings play no part, so the same string means the
 * same instant on every node.  Returns false with a detail message when the
 * string is not of that form.
 */
bool
snowflake_parse_epoch(const char *str, int64 *unix_ms, const char **detail)
{
	const char *p = str;
	int			year,
				month,
				day,
				hour = 0,
				minute = 0,
				second = 0,
				msec = 0;
	int			tz_sign = 1,
				tz_hour = 0,
				tz_minute = 0;
	int64		days;

	*detail = "The epoch must be written as YYYY-MM-DD HH:MM:SS[.fff] with an optional UTC offset, for example \"2025-01-01 00:00:00+00\".";

	while (isspace((unsigned char) *p))
		p++;
	if (!read_digits(&p, 4, &year) || *p++ != '-' ||
		!read_digits(&p, 2, &month) || *p++ != '-' ||
		!read_digits(&p, 2, &day))
		return false;

	if (*p == ' ' || *p == 'T')
	{
		const char *q = p + 1;

		if (isdigit((unsigned char) *q))
		{
			p = q;
			if (!read_digits(&p, 2, &hour) || *p++ != ':' ||
				!read_digits(&p, 2, &minute))
				return false;
			if (*p == ':')
			{
				p++;
				if (!read_digits(&p, 2, &second))
					return false;
				if (*p == '.')
				{
					int			scale = 100;

					p++;
					if (!isdigit((unsigned char) *p))
						return false;
					while (isdigit((unsigned char) *p))
					{
						/* digits beyond milliseconds must be zero */
						if (scale == 0 && *p != '0')
						{
							*detail = "The epoch must be a whole number of milliseconds.";
							return false;
						}
						msec += (*p - '0') * scale;
						scale /= 10;
						p++;
					}
				}
			}
		}
	}

	while (isspace((unsigned char) *p))
		p++;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (pg_strncasecmp(p, "UTC", 3) == 0)
		p += 3;
	else if (*p == '+' || *p == '-')
	{
		tz_sign = (*p == '-') ? -1 : 1;
		p++;
		if (!read_digits(&p, 2, &tz_hour))
			return false;
		if (*p == ':')
			p++;
		if (isdigit((unsigned char) *p) && !read_digits(&p, 2, &tz_minute))
			return false;
	}
	while (isspace((unsigned char) *p))
		p++;
	if (*p != '\0')
		return false;

	if (month < 1 || month > 12 ||
		day < 1 || day > day_tab[isleap(year)][month - 1] ||
		hour > 23 || minute > 59 || second > 59 ||
		tz_hour > 15 || tz_minute > 59)
	{
		*detail = "A field of the epoch is out of range.";
		return false;
	}

	days = date2j(year, month, day) - UNIX_EPOCH_JDATE;
	*unix_ms = ((days * 24 + hour) * 60 + minute) * 60 + second;
	*unix_ms = *unix_ms * 1000 + msec;
	*unix_ms -= (int64) tz_sign * (tz_hour * 60 + tz_minute) * 60 * 1000;
	return true;
}

/*
 * Check hook for snowflake.epoch: the value must parse and must not be
 * before 1970.  An epoch in the future is accepted: the setting must not
 * depend on the clock, or a server whose clock reads before the epoch
 * could not start, nor decode.  Generation refuses such a clock itself.
 */
static bool
check_epoch(char **newval, void **extra, GucSource source)
{
	int64		ms;
	int64	   *result;
	const char *detail;

	if (*newval == NULL || !snowflake_parse_epoch(*newval, &ms, &detail))
	{
		GUC_check_errdetail("%s", detail);
		return false;
	}
	if (ms < 0)
	{
		GUC_check_errdetail("The epoch must not be earlier than 1970-01-01 00:00:00+00.");
		return false;
	}
	result = (int64 *) guc_malloc(LOG, sizeof(int64));
	if (result == NULL)
		return false;
	*result = ms;
	*extra = result;
	return true;
}

static void
assign_epoch(const char *newval, void *extra)
{
	epoch_ms = *((int64 *) extra);
	snowflake_set_layout(epoch_ms, snowflake_node_bits, snowflake_sequence_bits);
}

/*
 * Assign hook of the settings the generator derives its bounds from (clock
 * policy, borrow, wait, reservation, step threshold, random sequence
 * start): it caches them, and recomputes when this changes (generator.c,
 * "policy" and "fast plan").
 */
static void
assign_policy_setting(int newval, void *extra)
{
	snowflake_policy_version++;
}

/*
 * Check hooks for snowflake.node_bits and snowflake.sequence_bits: on a
 * running server (ALTER SYSTEM SET, a reload), a width that with the other
 * width in force leaves too few bits for the time is refused at once,
 * rather than stopping the next start.  At start the pair is checked once
 * both are set (snowflake_check_startup_settings()).
 */
static bool
check_widths(int node_bits, int seq_bits)
{
	char	   *detail;

	if (!layout_fixed || !IsUnderPostmaster || !IsNormalProcessingMode() ||
		snowflake_layout_widths_valid(node_bits, seq_bits, &detail))
		return true;
	GUC_check_errdetail("%s", detail);
	GUC_check_errhint("Change \"%s\" and \"%s\" together in postgresql.conf, then restart the server.",
					  "snowflake.node_bits", "snowflake.sequence_bits");
	return false;
}

static bool
check_node_bits(int *newval, void **extra, GucSource source)
{
	return check_widths(*newval, snowflake_sequence_bits);
}

static bool
check_sequence_bits(int *newval, void **extra, GucSource source)
{
	return check_widths(snowflake_node_bits, *newval);
}

static void
assign_node_bits(int newval, void *extra)
{
	snowflake_set_layout(epoch_ms, newval, snowflake_sequence_bits);
}

static void
assign_sequence_bits(int newval, void *extra)
{
	snowflake_set_layout(epoch_ms, snowflake_node_bits, newval);
}

/*
 * Check hook for snowflake.node_id: on a running server, whose layout
 * cannot change until a restart, a node ID the layout in force cannot hold
 * is refused at once (ALTER SYSTEM SET, a reload of the configuration
 * file), rather than stopping the next start.  At start the layout is
 * still being assigned, in the order of the configuration file, so the
 * postmaster checks the pair once all are set
 * (snowflake_check_startup_settings()).
 */
static bool
check_node_id(int *newval, void **extra, GucSource source)
{
	const SnowflakeLayout *layout = snowflake_current_layout;

	if (!layout_fixed || !IsUnderPostmaster || !IsNormalProcessingMode() ||
		layout == NULL || *newval <= layout->max_node)
		return true;
	GUC_check_errdetail("With \"%s\" = %d in force, valid node IDs are 0 to %d.",
						"snowflake.node_bits", layout->node_bits, layout->max_node);
	GUC_check_errhint("To widen the node field, set \"%s\" and \"%s\" together in postgresql.conf, then restart the server.",
					  "snowflake.node_bits", "snowflake.node_id");
	return false;
}

/*
 * Check hook for snowflake.peers: a list of connection strings, parsed
 * here once (peer_list.c); the parsed list is the setting's extra, one
 * flat malloc'd block that guc.c frees when the value is replaced.
 */
static bool
check_peers(char **newval, void **extra, GucSource source)
{
	SnowflakePeerList *list;
	char	   *error = NULL;

	list = snowflake_peer_list_parse(*newval, &error);
	if (list == NULL)
	{
		GUC_check_errdetail("%s", error);
		GUC_check_errhint("Write each connection string in double quotes, separated by commas.");
		return false;
	}
	*extra = guc_malloc(LOG, list->size);
	if (*extra == NULL)
		return false;
	memcpy(*extra, list, list->size);
	pfree(list);
	return true;
}

/*
 * Assign hook for snowflake.peers: installs the list the check hook
 * parsed, for the peer checker.
 */
static void
assign_peers(const char *newval, void *extra)
{
	snowflake_peer_list = (const SnowflakePeerList *) extra;
}

/*
 * Check hook for snowflake.node_registry: a libpq connection string or URI
 * (parsed by peer_list.c's rules for one entry), or empty.
 */
static bool
check_node_registry(char **newval, void **extra, GucSource source)
{
	char	   *error = NULL;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	if (!snowflake_conninfo_valid(*newval, &error))
	{
		GUC_check_errdetail("%s", error);
		return false;
	}
	return true;
}

/*
 * Check hook for snowflake.advertise_address: empty, or where peers reach
 * this server, host and/or hostaddr and perhaps port (peer_list.c).
 */
static bool
check_advertise_address(char **newval, void **extra, GucSource source)
{
	char	   *error = NULL;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	if (!snowflake_address_valid(*newval, &error))
	{
		GUC_check_errdetail("The address is not usable: %s.", error);
		GUC_check_errhint("Write a connection string such as \"%s\"; leave it empty to let the registry use the address it sees this server connect from.",
						  "host=db1.example.com port=5432");
		return false;
	}
	return true;
}

/* every parameter, for the start-up recheck in snowflake_define_settings() */
static const char *const all_parameters[] = {
	"snowflake.node_id", "snowflake.epoch", "snowflake.node_bits",
	"snowflake.sequence_bits", "snowflake.clock_policy",
	"snowflake.max_borrow", "snowflake.clock_wait_timeout",
	"snowflake.reserve_ahead", "snowflake.clock_check_interval",
	"snowflake.clock_step_threshold", "snowflake.max_clock_jump",
	"snowflake.clock_jump_hold", "snowflake.epoch_warning_days",
	"snowflake.peers", "snowflake.peer_check_interval",
	"snowflake.peer_timeout", "snowflake.node_conflict",
	"snowflake.node_registry", "snowflake.database",
	"snowflake.sequence_random_start", "snowflake.registry_fencing",
	"snowflake.advertise_address"
};

/*
 * Defines every parameter.  With preloading true (called from the
 * postmaster's _PG_init) the layout parameters are PGC_POSTMASTER.
 */
void
snowflake_define_settings(bool preloading)
{
	GucContext	layout_context = preloading ? PGC_POSTMASTER : PGC_SIGHUP;
	char	   *configured[lengthof(all_parameters)];

	layout_fixed = preloading;

	/*
	 * When a parameter is defined, a configured value that fails validation
	 * only draws a WARNING and the default is used instead.  At server start
	 * that would be a silently wrong layout; so remember what the
	 * configuration said (placeholders hold it until the definitions below)
	 * and apply it once more afterwards, at ERROR level.
	 */
	for (int i = 0; i < (int) lengthof(all_parameters); i++)
	{
		const char *value = preloading ?
			GetConfigOption(all_parameters[i], true, false) : NULL;

		configured[i] = value ? pstrdup(value) : NULL;
	}

	DefineCustomIntVariable("snowflake.node_id",
							"Sets the node ID embedded in every generated ID.",
							"Every server that generates IDs needs its own value; -1 means not set, and then no IDs are generated.",
							&snowflake_node_id,
							-1, -1, SNOWFLAKE_MAX_NODE_ID,
							layout_context, 0,
							check_node_id, NULL, NULL);

	DefineCustomStringVariable("snowflake.epoch",
							   "Sets the instant from which ID times are counted.",
							   "An ISO 8601 date and time; UTC unless an offset is given.",
							   &snowflake_epoch,
							   SNOWFLAKE_DEFAULT_EPOCH,
							   layout_context, 0,
							   check_epoch, assign_epoch, NULL);

	DefineCustomIntVariable("snowflake.node_bits",
							"Sets the number of bits of an ID that hold the node ID.",
							NULL,
							&snowflake_node_bits,
							SNOWFLAKE_DEFAULT_NODE_BITS, 0, SNOWFLAKE_MAX_FIELD_BITS,
							layout_context, 0,
							check_node_bits, assign_node_bits, NULL);

	DefineCustomIntVariable("snowflake.sequence_bits",
							"Sets the number of bits of an ID that hold the per-millisecond sequence.",
							NULL,
							&snowflake_sequence_bits,
							SNOWFLAKE_DEFAULT_SEQ_BITS, 1, SNOWFLAKE_MAX_FIELD_BITS,
							layout_context, 0,
							check_sequence_bits, assign_sequence_bits, NULL);

	DefineCustomEnumVariable("snowflake.clock_policy",
							 "Sets what the generator does when the system clock is behind it.",
							 "\"borrow\" runs ahead of the clock up to snowflake.max_borrow, \"wait\" waits for the clock, \"error\" fails at once.",
							 &snowflake_clock_policy,
							 SNOWFLAKE_CLOCK_BORROW,
							 clock_policy_options,
							 PGC_SIGHUP, 0,
							 NULL, assign_policy_setting, NULL);

	DefineCustomIntVariable("snowflake.max_borrow",
							"Sets how far the generator may run ahead of the system clock.",
							"Applies when snowflake.clock_policy is \"borrow\".",
							&snowflake_max_borrow,
							10000, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, assign_policy_setting, NULL);

	DefineCustomIntVariable("snowflake.clock_wait_timeout",
							"Sets how long a call waits for the system clock to catch up before it fails.",
							NULL,
							&snowflake_clock_wait_timeout,
							1000, 0, 60 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, assign_policy_setting, NULL);

	DefineCustomIntVariable("snowflake.reserve_ahead",
							"Sets how far ahead of the clock the durable high-water mark is reserved.",
							"Each reservation costs one write and fsync of a small file; a larger value means fewer of them and a larger jump of ID times after a crash (under \"wait\" and \"error\", calls wait that long for the clock after a crash).",
							&snowflake_reserve_ahead,
							2000, 10, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, assign_policy_setting, NULL);

	DefineCustomIntVariable("snowflake.clock_check_interval",
							"Sets how often the clock watcher checks the system clock.",
							"0 pauses the checks (the worker keeps running, so raising it by a reload resumes them); backends then extend the reservation themselves.",
							&snowflake_clock_check_interval,
							1000, 0, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("snowflake.clock_step_threshold",
							"Sets the smallest clock step that is logged and counted; under \"error\", the lead that fails at once.",
							NULL,
							&snowflake_clock_step_threshold,
							100, 1, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, assign_policy_setting, NULL);

	DefineCustomIntVariable("snowflake.max_clock_jump",
							"Sets how far the system clock may jump forward before IDs stop following it for a while.",
							"A larger forward jump is held back for snowflake.clock_jump_hold: IDs keep the previous time unless the clock stays ahead that long.",
							&snowflake_max_clock_jump,
							1000, 1, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("snowflake.clock_jump_hold",
							"Sets how long a forward jump of the system clock must last before IDs follow it.",
							"0 follows every jump at once.",
							&snowflake_clock_jump_hold,
							60000, 0, 24 * 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("snowflake.epoch_warning_days",
							"Sets how many days before the time bits run out a warning is logged.",
							NULL,
							&snowflake_epoch_warning_days,
							365, 0, 100000,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);

	DefineCustomStringVariable("snowflake.peers",
							   "Lists the other servers to check for node ID conflicts and clock skew.",
							   "libpq connection strings or URIs, separated by commas, each in double quotes if it holds a comma or a space; \"citus:<conninfo>\" stands for every node of that Citus cluster.",
							   &snowflake_peers,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   check_peers, assign_peers, NULL);

	DefineCustomIntVariable("snowflake.peer_check_interval",
							"Sets how often the peers are checked.",
							NULL,
							&snowflake_peer_check_interval,
							5000, 100, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("snowflake.peer_timeout",
							"Sets how long the peer checker waits for a peer's answer.",
							"A peer that does not answer in time is reported as hanging.",
							&snowflake_peer_timeout,
							2000, 10, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("snowflake.node_conflict",
							 "Sets what a server does when a peer that started earlier uses its node ID.",
							 "\"refuse\" stops generating IDs, \"warn\" only logs.",
							 &snowflake_node_conflict,
							 SNOWFLAKE_CONFLICT_REFUSE,
							 node_conflict_options,
							 PGC_SIGHUP, 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("snowflake.node_registry",
							   "Names the database that leases node IDs to servers without snowflake.node_id.",
							   "A libpq connection string or URI; used only when snowflake.node_id is not set and Citus is not preloaded.",
							   &snowflake_node_registry,
							   "",
							   layout_context, GUC_SUPERUSER_ONLY,
							   check_node_registry, NULL, NULL);

	DefineCustomStringVariable("snowflake.database",
							   "Names the database where the node-ID worker reads Citus's metadata.",
							   "Used only when snowflake.node_id is not set and Citus is preloaded.",
							   &snowflake_database,
							   "postgres",
							   layout_context, 0,
							   NULL, NULL, NULL);

	DefineCustomIntVariable("snowflake.sequence_random_start",
							"Starts the sequence of each new millisecond at a random number below this.",
							"0 starts every millisecond at 0; for designs that shard by id modulo n at low rates.",
							&snowflake_sequence_random_start,
							0, 0, 1 << 20,
							PGC_SIGHUP, 0,
							NULL, assign_policy_setting, NULL);

	DefineCustomBoolVariable("snowflake.registry_fencing",
							 "Claims node ID leases whose IDs stay within what the registry grants.",
							 "Off: a lease holder generates on its saved lease, whether the registry answers or not; on: a lease claimed now is fenced for as long as it is held: its holder issues IDs only up to a few seconds past the registry's clock, as the registry grants them every second.",
							 &snowflake_registry_fencing,
							 false,
							 layout_context, 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("snowflake.advertise_address",
							   "Sets the address at which the registry tells other servers to reach this one.",
							   "A connection string of host and/or hostaddr and port, sent to snowflake.node_registry with each report; empty: the address the registry sees this server connect from, with this server's port.",
							   &snowflake_advertise_address,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   check_advertise_address, NULL, NULL);

	MarkGUCPrefixReserved("snowflake");

	for (int i = 0; i < (int) lengthof(all_parameters); i++)
	{
		if (configured[i] != NULL)
			(void) set_config_option(all_parameters[i], configured[i],
									 PGC_POSTMASTER, PGC_S_FILE,
									 GUC_ACTION_SET, true, ERROR, false);
	}
}

/*
 * Cross-parameter checks run once in the postmaster after the parameters
 * are defined.  An ERROR here stops the server from starting, with the
 * message in the log: a server must not come up under a layout that
 * cannot represent IDs, since decoding needs it too.  A node ID the
 * layout cannot hold does not stop it: like a node ID not set, it only
 * refuses generation (identity.c), so that changing one of the two
 * settings at a time never leaves a server that cannot start.
 */
void
snowflake_check_startup_settings(void)
{
	char	   *detail;

	if (!snowflake_layout_widths_valid(snowflake_node_bits,
									   snowflake_sequence_bits, &detail))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("snowflake ID layout leaves too few bits for the time"),
				 errdetail_internal("%s", detail),
				 errhint("Lower \"%s\" or \"%s\".",
						 "snowflake.node_bits", "snowflake.sequence_bits")));

}
