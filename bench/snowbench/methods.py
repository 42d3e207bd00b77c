"""The ways of making keys that the sections compare, the helper objects
they need, and the queries more than one section runs."""

EPOCH_MS = 1735689600000          # 2025-01-01 00:00:00 UTC, the default epoch
SEQ_PER_MS = 4096                 # 12 sequence bits
NODE_ID = 1

# name -> (SQL expression, column type for a keyed table, description)
METHODS = {
    "const": ("1::bigint", "bigint",
              "a constant: the cost of the query loop itself"),
    "clock_timestamp": ("clock_timestamp()", "timestamptz",
                        "one volatile call and one clock read: the cheapest generator"),
    "nextval": ("nextval('bench_seq')", "bigint",
                "native sequence, CACHE 1 (what bigserial uses): the reference"),
    "nextval_cache100": ("nextval('bench_seq_cache100')", "bigint",
                         "native sequence, CACHE 100"),
    "uuid_v4": ("gen_random_uuid()", "uuid", "random UUID, built in"),
    "uuid_v7_sql": ("bench_uuid_v7()", "uuid",
                    "UUIDv7 in one SQL function (inlined), see README"),
    "instagram_plpgsql": ("bench_instagram_id()", "bigint",
                          "Instagram-style ID in PL/pgSQL, see README"),
    "snowflake_bigint": ("snowflake_nextval()::bigint", "bigint",
                         "this extension, result cast to bigint"),
    "snowflake": ("snowflake_nextval()", "snowflake", "this extension"),
}
METHOD_ORDER = list(METHODS)

# Helper objects every section may use.  Written for this harness.
SETUP_SQL = r"""
CREATE EXTENSION snowflake;
CREATE SEQUENCE bench_seq CACHE 1;
CREATE SEQUENCE bench_seq_cache100 CACHE 100;
CREATE SEQUENCE bench_insta_seq CACHE 1;

-- UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then the 10 last bytes
-- of a random (version 4) UUID whose version nibble is turned from 0100
-- into 0111 by setting its two low bits; the variant bits (10) of the
-- random UUID stay as they are.  A single SELECT, so the planner inlines
-- it into the calling query.
CREATE FUNCTION bench_uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $fn$
  SELECT encode(
           substring(int8send(floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) FROM 3)
           || set_bit(set_bit(substring(uuid_send(gen_random_uuid()) FROM 7), 4, 1), 5, 1),
           'hex')::uuid
$fn$;

-- Instagram-style ID: milliseconds since a custom epoch (2025-01-01 UTC)
-- in the top 41 bits, a 13-bit shard ID, and the low 10 bits of a
-- sequence, i.e. ms << 23 | shard << 10 | nextval % 1024.
CREATE FUNCTION bench_instagram_id(shard integer DEFAULT 1) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  custom_epoch_ms CONSTANT bigint := 1735689600000;
  now_ms bigint;
  seq_low bigint;
BEGIN
  seq_low := nextval('bench_insta_seq') % 1024;
  now_ms := floor(date_part('epoch', clock_timestamp()) * 1000)::bigint;
  RETURN ((now_ms - custom_epoch_ms) << 23) | (shard::bigint << 10) | seq_low;
END
$fn$;
"""

# Checks that the hand-written generators of SETUP_SQL produce what they
# claim, on 1,000 values each: (query returning true, error otherwise)
HELPER_CHECKS = [
    (r"""
      SELECT bool_and(substr(u::text, 15, 1) = '7'
                 AND substr(u::text, 20, 1) IN ('8', '9', 'a', 'b')
                 AND abs(('x' || substr(replace(u::text, '-', ''), 1, 12))::bit(48)::bigint
                         - floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) < 5000)
        FROM (SELECT bench_uuid_v7() u FROM generate_series(1, 1000)) s""",
     "bench_uuid_v7() does not produce UUIDv7 values"),
    (r"""
      SELECT bool_and(abs((id >> 23) + %d
                      - floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) < 5000
                  AND (id >> 10) & 8191 = 1)
        FROM (SELECT bench_instagram_id() id FROM generate_series(1, 1000)) s""" % EPOCH_MS,
     "bench_instagram_id() does not decode as expected"),
]


# Decoding all three fields of an ID in SQL, for the default layout
SQL_TS = "to_timestamp(((id::bigint >> 22) + %d)::float8 / 1000)" % EPOCH_MS
SQL_NODE = "((id::bigint >> 12) & 1023)::integer"
SQL_SEQ = "(id::bigint & 4095)::integer"


def decode_queries(table):
    """(name, description, query) of the decoding variants over a table of
    IDs; each reads every field of every ID and aggregates it."""
    return [
        ("sql", "SQL arithmetic (to_timestamp, shifts, masks)",
         "SELECT max(%s), sum(%s), sum(%s) FROM %s" % (SQL_TS, SQL_NODE, SQL_SEQ, table)),
        ("c_fields", "`(snowflake_decode(id)).ts`, `.node_id`, `.seq`",
         "SELECT max((snowflake_decode(id)).ts), sum((snowflake_decode(id)).node_id), "
         "sum((snowflake_decode(id)).seq) FROM %s" % table),
        ("c_from", "`snowflake_decode(id)` in FROM (LATERAL)",
         "SELECT max(d.ts), sum(d.node_id), sum(d.seq) FROM %s i, snowflake_decode(i.id) d"
         % table),
        ("c_record", "`snowflake_decode(id)` once per row as a record",
         "SELECT max((d).ts), sum((d).node_id), sum((d).seq) "
         "FROM (SELECT snowflake_decode(id) d FROM %s OFFSET 0) s" % table),
        ("c_scalar", "`snowflake_timestamp`, `snowflake_node_id`, `snowflake_seq`",
         "SELECT max(snowflake_timestamp(id)), sum(snowflake_node_id(id)), "
         "sum(snowflake_seq(id)) FROM %s" % table),
        ("scan", "scan and aggregate only, no decoding (floor)",
         "SELECT max(id::bigint), sum(0), sum(0) FROM %s" % table),
    ]


def bulk_query(expr, n):
    return "SELECT count(x) FROM (SELECT %s x FROM generate_series(1, %d)) s" % (expr, n)
