/*-------------------------------------------------------------------------
 *
 * peer_list.c
 *	  The syntax of snowflake.peers, in one place: the setting's check hook
 *	  (guc.c) parses a value here once, hands the result to the assign hook
 *	  as the setting's "extra", and the peer checker (peer_checker.c) reads
 *	  what the assign hook installed.  Nothing here connects anywhere or
 *	  touches shared memory.
 *
 * The value is a GUC list, like search_path: entries separated by commas,
 * each in double quotes when it holds a comma or white space (a double
 * quote inside written twice).  Each entry is a libpq connection string or
 * URI; or "citus:" followed by one, which stands for every active primary
 * of that server's Citus cluster; or "registry:" followed by one, which
 * stands for every server holding a lease in the registry that
 * snowflake.node_registry names, reached at the address it advertises
 * there with the rest of that connection string.  A value in the unquoted form of version
 * 1.4, entries with spaces and no quotes, is still read, split at every
 * comma, and marked, so that the checker can say it is deprecated.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peer_list.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq-fe.h"
#include "nodes/pg_list.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "peer_list.h"

/* Set by the assign hook of snowflake.peers (guc.c). */
const SnowflakePeerList *snowflake_peer_list = NULL;

/*
 * The kind of an entry, by its prefix; *conninfo is set to what follows
 * the prefix.
 */
static SnowflakePeerKind
entry_kind(const char *entry, const char **conninfo)
{
	if (strncmp(entry, SNOWFLAKE_CITUS_PREFIX, strlen(SNOWFLAKE_CITUS_PREFIX)) == 0)
	{
		*conninfo = entry + strlen(SNOWFLAKE_CITUS_PREFIX);
		return SNOWFLAKE_PEER_CITUS;
	}
	if (strncmp(entry, SNOWFLAKE_REGISTRY_PREFIX, strlen(SNOWFLAKE_REGISTRY_PREFIX)) == 0)
	{
		*conninfo = entry + strlen(SNOWFLAKE_REGISTRY_PREFIX);
		return SNOWFLAKE_PEER_REGISTRY;
	}
	*conninfo = entry;
	return SNOWFLAKE_PEER_SERVER;
}

/*
 * Splits value into its entries (pointers into a copy of it), the GUC list
 * way or, failing that, the version 1.4 way (*legacy set).  Returns false
 * with *error set when neither applies.
 */
static bool
split_entries(const char *value, List **entries, bool *legacy, char **error)
{
	char	   *copy = pstrdup(value);
	char	   *saveptr = NULL;

	*legacy = false;
	*entries = NIL;
	if (SplitGUCList(copy, ',', entries))
		return true;

	if (strchr(value, '"') != NULL)
	{
		*error = pstrdup(_("A list entry in double quotes is not closed, or is not followed by a comma."));
		return false;
	}

	/* version 1.4 syntax; one entry without a comma is unambiguous */
	*legacy = strchr(value, ',') != NULL;
	*entries = NIL;
	copy = pstrdup(value);
	for (char *entry = strtok_r(copy, ",", &saveptr); entry != NULL;
		 entry = strtok_r(NULL, ",", &saveptr))
	{
		while (*entry == ' ' || *entry == '\t')
			entry++;
		if (*entry != '\0')
			*entries = lappend(*entries, entry);
	}
	return true;
}

/*
 * Parses a value of snowflake.peers.  Returns the list as one flat block
 * allocated in the current memory context, or NULL with *error set (a
 * sentence for GUC_check_errdetail).  Every entry must be a valid
 * connection string or URI, after an optional "citus:" or "registry:";
 * entries are named
 * by their position, not quoted, since a connection string may hold a
 * password.  Raises no error but out of memory, so that a check hook can
 * use it.
 */
SnowflakePeerList *
snowflake_peer_list_parse(const char *value, char **error)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	List	   *entries;
	bool		legacy;
	ListCell   *lc;
	int			n;
	Size		size;
	Size		offset;
	SnowflakePeerList *list = NULL;
	char	   *problem = NULL;

	/* the splitting and libpq's checks leave garbage; drop it at once */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "snowflake peer list parsing",
								ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);

	if (!split_entries(value ? value : "", &entries, &legacy, &problem))
		goto done;

	n = 0;
	size = offsetof(SnowflakePeerList, entries) +
		sizeof(SnowflakePeerEntry) * list_length(entries);
	foreach(lc, entries)
	{
		const char *conninfo;
		SnowflakePeerKind kind;
		char	   *libpq_error = NULL;
		PQconninfoOption *opts;

		n++;
		kind = entry_kind((const char *) lfirst(lc), &conninfo);
		if (conninfo[0] == '\0')
		{
			/* an empty connection string means the local default server */
			problem = psprintf(_("Entry %d of the list is empty."), n);
			goto done;
		}
		opts = PQconninfoParse(conninfo, &libpq_error);
		if (opts == NULL)
		{
			if (libpq_error)
			{
				/* libpq's message ends with a newline */
				libpq_error[strcspn(libpq_error, "\n")] = '\0';
				problem = psprintf(_("Entry %d of the list is not a valid connection string: %s"),
								   n, libpq_error);
				PQfreemem(libpq_error);
			}
			else
				problem = psprintf(_("Entry %d of the list is not a valid connection string: %s"),
								   n, _("out of memory"));
			goto done;
		}
		if (kind == SNOWFLAKE_PEER_REGISTRY)
		{
			/* each holder's address takes their place: say so, not ignore */
			for (PQconninfoOption *o = opts; o->keyword; o++)
			{
				if (o->val != NULL && o->val[0] != '\0' &&
					(strcmp(o->keyword, "host") == 0 ||
					 strcmp(o->keyword, "hostaddr") == 0 ||
					 strcmp(o->keyword, "port") == 0))
				{
					problem = psprintf(_("Entry %d of the list sets \"%s\", which the address of each lease holder replaces."),
									   n, o->keyword);
					break;
				}
			}
			if (problem != NULL)
			{
				PQconninfoFree(opts);
				goto done;
			}
		}
		PQconninfoFree(opts);
		size += strlen(conninfo) + 1;
	}

	if (size > PG_UINT32_MAX)
	{
		problem = pstrdup(_("The list is too long."));
		goto done;
	}

	/* the result outlives the parsing context */
	list = MemoryContextAllocZero(oldcxt, size);
	list->size = size;
	list->legacy = legacy;
	list->nentries = list_length(entries);
	offset = offsetof(SnowflakePeerList, entries) +
		sizeof(SnowflakePeerEntry) * list->nentries;
	n = 0;
	foreach(lc, entries)
	{
		const char *entry;
		SnowflakePeerEntry *e = &list->entries[n++];
		size_t		len;

		e->kind = entry_kind((const char *) lfirst(lc), &entry);
		len = strlen(entry) + 1;
		e->conninfo = (uint32) offset;
		memcpy((char *) list + offset, entry, len);
		offset += len;
	}
	Assert(offset == size);

done:
	MemoryContextSwitchTo(oldcxt);
	if (list == NULL)
		*error = pstrdup(problem ? problem : _("out of memory"));
	MemoryContextDelete(cxt);
	return list;
}

/*
 * True when conninfo is one valid libpq connection string or URI (what
 * snowflake.node_registry holds); else sets *error to a palloc'd sentence.
 */
bool
snowflake_conninfo_valid(const char *conninfo, char **error)
{
	PQconninfoOption *opts;
	char	   *libpq_error = NULL;

	opts = PQconninfoParse(conninfo, &libpq_error);
	if (opts != NULL)
	{
		PQconninfoFree(opts);
		return true;
	}
	if (libpq_error)
	{
		/* libpq's message ends with a newline */
		libpq_error[strcspn(libpq_error, "\n")] = '\0';
		*error = psprintf(_("It is not a valid connection string: %s"), libpq_error);
		PQfreemem(libpq_error);
	}
	else
		*error = psprintf(_("It is not a valid connection string: %s"), _("out of memory"));
	return false;
}

/*
 * True when address is how peers may reach one server over the network:
 * a connection string or URI, at most SNOWFLAKE_MAX_ADDRESS_LEN bytes,
 * that sets one host name or one host address, and perhaps a port, and
 * nothing else (what snowflake.advertise_address holds, and what a lease
 * holder's row in the registry says).  Sets *parts, if not NULL, to the
 * server it names (empty values count as not set); else sets *reason to a
 * palloc'd phrase that says why, for a message of the caller's.
 *
 * Why so narrow: the database, the user and every other option are the
 * checking server's, from its "registry:" entry; an address that set them
 * would choose them for it.  Not both host and hostaddr: libpq would look
 * up the password in ~/.pgpass by the name and send it to the address, so
 * that a forged address could collect the password of a real name.  Not a
 * list of hosts, and not a socket directory, which names a server local to
 * whoever connects.
 */
bool
snowflake_address_parse(const char *address, SnowflakeAddress *parts,
						char **reason)
{
	PQconninfoOption *opts;
	char	   *libpq_error = NULL;
	const char *host = NULL;
	const char *hostaddr = NULL;
	const char *port = NULL;
	const char *other = NULL;

	if (strlen(address) > SNOWFLAKE_MAX_ADDRESS_LEN)
	{
		*reason = psprintf(_("it is longer than %d bytes"), SNOWFLAKE_MAX_ADDRESS_LEN);
		return false;
	}
	opts = PQconninfoParse(address, &libpq_error);
	if (opts == NULL)
	{
		if (libpq_error)
		{
			/* libpq's message ends with a newline */
			libpq_error[strcspn(libpq_error, "\n")] = '\0';
			*reason = psprintf(_("it is not a valid connection string: %s"), libpq_error);
			PQfreemem(libpq_error);
		}
		else
			*reason = psprintf(_("it is not a valid connection string: %s"), _("out of memory"));
		return false;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "host") == 0)
			host = o->val;
		else if (strcmp(o->keyword, "hostaddr") == 0)
			hostaddr = o->val;
		else if (strcmp(o->keyword, "port") == 0)
			port = o->val;
		else if (other == NULL)
			other = o->keyword;
	}

	*reason = NULL;
	if (other != NULL)
		*reason = psprintf(_("it sets \"%s\"; an address sets only \"%s\" or \"%s\", and \"%s\""),
						   other, "host", "hostaddr", "port");
	else if (host != NULL && hostaddr != NULL)
		*reason = psprintf(_("it sets both \"%s\" and \"%s\""), "host", "hostaddr");
	else if (host == NULL && hostaddr == NULL)
		*reason = psprintf(_("it sets neither \"%s\" nor \"%s\""), "host", "hostaddr");
	else if (strchr(host ? host : hostaddr, ',') != NULL)
		*reason = pstrdup(_("it names a list of servers"));
	else if (host != NULL && (host[0] == '/' || host[0] == '@'))
		*reason = pstrdup(_("it names a Unix-domain socket"));
	else if (port != NULL &&
			 (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
			  atoi(port) < 1 || atoi(port) > 65535))
		*reason = psprintf(_("its port is not a number from %d to %d"), 1, 65535);
	if (*reason == NULL && parts != NULL)
	{
		parts->by_number = hostaddr != NULL;
		parts->host = pstrdup(host ? host : hostaddr);
		parts->port = port ? pstrdup(port) : NULL;
	}
	PQconninfoFree(opts);
	return *reason == NULL;
}

/* snowflake_address_parse() without the parts */
bool
snowflake_address_valid(const char *address, char **reason)
{
	return snowflake_address_parse(address, NULL, reason);
}
