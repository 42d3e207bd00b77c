/*-------------------------------------------------------------------------
 *
 * peer_list.h
 *	  The value of snowflake.peers, parsed (peer_list.c): the setting's
 *	  check hook parses it once, and the peer checker reads the result.
 *
 * Copyright (c) 2026, snowflake developers
 *
 * IDENTIFICATION
 *	  src/peer_list.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SNOWFLAKE_PEER_LIST_H
#define SNOWFLAKE_PEER_LIST_H

/* an entry "citus:<conninfo>" stands for every node of that cluster */
#define SNOWFLAKE_CITUS_PREFIX		"citus:"
/* an entry "registry:<conninfo>" stands for every holder of a lease in the
 * registry snowflake.node_registry names */
#define SNOWFLAKE_REGISTRY_PREFIX	"registry:"

/* the longest address (snowflake.advertise_address, a lease's address) */
#define SNOWFLAKE_MAX_ADDRESS_LEN	1024

typedef enum SnowflakePeerKind
{
	SNOWFLAKE_PEER_SERVER,		/* one server */
	SNOWFLAKE_PEER_CITUS,		/* "citus:<conninfo>" */
	SNOWFLAKE_PEER_REGISTRY		/* "registry:<conninfo>" */
} SnowflakePeerKind;

typedef struct SnowflakePeerEntry
{
	SnowflakePeerKind kind;
	uint32		conninfo;		/* offset of its connection string (without
								 * the prefix) from the start of the list */
} SnowflakePeerEntry;

/*
 * One flat block, so that it can live in malloc'd memory as the setting's
 * "extra", be copied with memcpy and freed with free(): the entries, then
 * their NUL-terminated connection strings.
 */
typedef struct SnowflakePeerList
{
	Size		size;			/* of the whole block */
	bool		legacy;			/* in the unquoted form of version 1.4 */
	int			nentries;
	SnowflakePeerEntry entries[FLEXIBLE_ARRAY_MEMBER];
} SnowflakePeerList;

/* The connection string of entry i. */
static inline const char *
snowflake_peer_conninfo(const SnowflakePeerList *list, int i)
{
	return (const char *) list + list->entries[i].conninfo;
}

extern SnowflakePeerList *snowflake_peer_list_parse(const char *value,
													char **error);
extern bool snowflake_conninfo_valid(const char *conninfo, char **error);
/* The server an address names (snowflake_address_parse()) */
typedef struct SnowflakeAddress
{
	char	   *host;			/* a host name, or a number if by_number */
	bool		by_number;		/* given as hostaddr */
	char	   *port;			/* NULL: the default port */
} SnowflakeAddress;

extern bool snowflake_address_parse(const char *address,
									SnowflakeAddress *parts, char **reason);
extern bool snowflake_address_valid(const char *address, char **reason);

/*
 * The list in force: set by the assign hook of snowflake.peers (guc.c),
 * valid until the next configuration reload; copy what must outlive it.
 */
extern const SnowflakePeerList *snowflake_peer_list;

#endif							/* SNOWFLAKE_PEER_LIST_H */
