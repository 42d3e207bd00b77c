# Fuzzing the SQL surface: the type's input function, the casts, and every
# decoding and constructing function, fed random and edge values (min/max
# bigint, 0, negatives, huge text, white space, signs, NULL, infinities,
# odd intervals and ranges).  Every call either returns or raises an ERROR
# with a proper SQLSTATE (never XX000, "internal error"), and the server
# never crashes.  The inputs come from a seeded generator, so a failure
# reproduces.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $calls = $ENV{SNOWFLAKE_FUZZ_CALLS} // 20000;

my $node = snowflake_node('fuzz', conf => "snowflake.node_id = 9\nrestart_after_crash = off\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# random values of each argument type, edges weighted in
$node->safe_psql('postgres', q{
CREATE FUNCTION fuzz_text() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	parts text[] := ARRAY['0', '1', '42', '-', '+', ' ', E'\t', E'\n', '9223372036854775807',
		'9223372036854775808', '-9223372036854775808', '99999999999999999999999', '0x1f',
		'1e5', '1.5', '', 'abc', '٣', '0b101', '1_000', 'NaN', 'Infinity', '00000000000000000000001'];
	s text := '';
BEGIN
	IF random() < 0.02 THEN
		RETURN repeat('7', 100000);		-- huge text
	END IF;
	FOR i IN 1 .. 1 + floor(random() * 4)::int LOOP
		s := s || parts[1 + floor(random() * array_length(parts, 1))::int];
	END LOOP;
	RETURN s;
END $$;
CREATE FUNCTION fuzz_int8() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	edges bigint[] := ARRAY[0, 1, -1, 9223372036854775807, -9223372036854775808,
		4194303, 4194304, 4611686018427387904, 9223372036850581504, 250000000000000000];
BEGIN
	IF random() < 0.5 THEN
		RETURN edges[1 + floor(random() * array_length(edges, 1))::int];
	END IF;
	RETURN (random() * 18446744073709551615 - 9223372036854775808)::numeric::bigint;
EXCEPTION WHEN numeric_value_out_of_range THEN
	RETURN 9223372036854775807;
END $$;
CREATE FUNCTION fuzz_int4() RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
	RETURN (ARRAY[0, 1, -1, 1023, 1024, 4095, 4096, 2147483647, -2147483648,
		floor(random() * 5000)::int])[1 + floor(random() * 10)::int];
END $$;
CREATE FUNCTION fuzz_ts() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN
	RETURN (ARRAY['-infinity', 'infinity', '2025-01-01 00:00:00+00', '2024-12-31 23:59:59.999999+00',
		'2094-09-07 15:47:35.551+00', '2094-09-07 15:47:35.552+00', '4713-01-01 00:00:00+00 BC',
		'294276-12-31 23:59:59+00', '1970-01-01+00',
		(timestamptz '2025-01-01+00' + random() * interval '80 years')::text
		]::timestamptz[])[1 + floor(random() * 10)::int];
END $$;
CREATE FUNCTION fuzz_interval() RETURNS interval LANGUAGE plpgsql AS $$
BEGIN
	RETURN (ARRAY['1 ms', '0', '-1 day', '1 month', '0.5 ms', '10 ms', '178000000 years',
		'1 day 00:00:00.001', '-178000000 years', '00:00:00.000001']::interval[])[1 + floor(random() * 10)::int];
END $$;
CREATE TABLE fuzz_errors (state text, fn text, n int);
CREATE FUNCTION fuzz(calls int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	calls_sql text[] := ARRAY[
		'SELECT $1::snowflake', 'SELECT snowflake($2)', 'SELECT snowflake($4)',
		'SELECT * FROM snowflake_decode($2)', 'SELECT snowflake_timestamp($2)',
		'SELECT snowflake_node_id($2)', 'SELECT snowflake_seq($2)',
		'SELECT snowflake_from_timestamp($3)', 'SELECT snowflake_from_parts($3, $4, $5)',
		'SELECT snowflake_last_id_before($3)', 'SELECT snowflake_last_id_at($3)',
		'SELECT snowflake_last_id_in(tstzrange($3, $3 + $6))',
		'SELECT $2::snowflake >= $3', 'SELECT $2::snowflake <@ tstzrange($3, NULL)',
		'SELECT snowflake_id_span($6)', 'SELECT * FROM snowflake_decode($2, $1)',
		'SELECT * FROM snowflake_decode($2, ''discord'')', 'SELECT * FROM snowflake_decode($2, ''sonyflake'')',
		'SELECT * FROM snowflake_decode($2, $3, $4, $5, $6, $4 > 0)',
		'SELECT snowflake_to_uuid($2)', 'SELECT snowflake_from_uuid(md5($1)::uuid)',
		'SELECT snowflake_from_uuid(snowflake_to_uuid($2))',
		'SELECT snowflake_send($2::snowflake)', 'SELECT $1::snowflake::timestamptz'];
	k int;
	st text;
BEGIN
	PERFORM setseed(0.42);
	FOR i IN 1 .. calls LOOP
		k := 1 + floor(random() * array_length(calls_sql, 1))::int;
		BEGIN
			EXECUTE calls_sql[k] USING
				CASE WHEN random() < 0.05 THEN NULL ELSE fuzz_text() END,
				CASE WHEN random() < 0.05 THEN NULL ELSE fuzz_int8() END,
				fuzz_ts(), fuzz_int4(), fuzz_int4(), fuzz_interval();
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE;
			UPDATE fuzz_errors SET n = n + 1 WHERE state = st AND fn = calls_sql[k];
			IF NOT FOUND THEN
				INSERT INTO fuzz_errors VALUES (st, calls_sql[k], 1);
			END IF;
		END;
	END LOOP;
END $$;
});

$node->safe_psql('postgres', "SELECT fuzz($calls)", timeout => 600);
pass("$calls random calls returned");
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is alive');
ok(!$node->log_contains('terminated by signal|server process .* was terminated'),
	'no backend crashed');

my $summary = $node->safe_psql('postgres',
	q{SELECT state || ' ' || sum(n) FROM fuzz_errors GROUP BY state ORDER BY 1});
note("errors by SQLSTATE:\n$summary");
is($node->safe_psql('postgres',
		q{SELECT coalesce(string_agg(DISTINCT fn, '; '), '') FROM fuzz_errors WHERE state LIKE 'XX%'}),
	'', 'no internal errors (XX000): every error has a proper SQLSTATE');
is($node->safe_psql('postgres',
		q{SELECT coalesce(string_agg(DISTINCT state || ' in ' || fn, '; '), '') FROM fuzz_errors
		   WHERE state NOT LIKE '22%'}),
	'', 'every error is a data exception (SQLSTATE class 22): bad input, out of range, invalid parameter');

$node->stop;
done_testing();
