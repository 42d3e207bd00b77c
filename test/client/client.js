// client.js: a JavaScript application (node-postgres) inserts and reads
// snowflake IDs as text, as JSON and as bigint, and loses no digit.
// Run by test/t/013_node_client.pl:  node client.js <host> <port> <database>
// Prints one "ok N - ..." or "not ok N - ..." line per check (TAP) and
// exits non-zero if any check failed.
'use strict';

const { Client, types } = require('pg');

let checks = 0;
let failures = 0;

function check(ok, description) {
  checks += 1;
  if (!ok) failures += 1;
  console.log(`${ok ? 'ok' : 'not ok'} ${checks} - ${description}`);
}

async function main() {
  const [host, port, database] = process.argv.slice(2);
  const client = new Client({ host, port: Number(port), database, user: process.env.USER || 'postgres' });
  await client.connect();

  await client.query(`CREATE TABLE js_events (
      id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
      ref bigint DEFAULT snowflake_nextval(),
      payload text)`);

  // Insert; read the IDs back.  node-postgres gives bigint and unknown types
  // (like snowflake) as strings by default: exact.
  const inserted = await client.query(
    `INSERT INTO js_events (payload) VALUES ('a'), ('b'), ('c')
     RETURNING id, ref, id::text AS id_text`);
  const row = inserted.rows[0];
  check(typeof row.id === 'string' && /^\d+$/.test(row.id),
    'a snowflake column arrives as a decimal string');
  check(row.id === row.id_text, 'equal to its text form');
  check(typeof row.ref === 'string' && /^\d+$/.test(row.ref),
    'a bigint column arrives as a string too (node-postgres default)');
  check(BigInt(row.id) > 2n ** 53n,
    'IDs are beyond 2^53, where JavaScript numbers stop being exact');
  // (an ID whose low bits are all zero, as with sequence 0 on some nodes,
  // can survive the conversion; sequence 1 on node 7 cannot: use a fixed one)
  const vector = await client.query(
    `SELECT snowflake_from_parts('2026-06-15 12:00:00+00', 7, 1) AS id`);
  check(String(Number(vector.rows[0].id)) !== vector.rows[0].id,
    'so converting one to a Number would change it (why strings are used)');

  // JSON built in the database: to_json, row_to_json, json_agg give strings
  const json = await client.query(
    `SELECT to_json(id) AS single,
            (SELECT row_to_json(e) FROM js_events e WHERE e.id = t.id) AS row,
            (SELECT json_agg(id ORDER BY id) FROM js_events) AS list,
            id::text AS id_text
       FROM js_events t ORDER BY id LIMIT 1`);
  const j = json.rows[0];
  check(j.single === j.id_text, 'to_json(id) parses to the exact string');
  check(typeof j.row.id === 'string' && j.row.id === j.id_text,
    'row_to_json() gives the ID as a string');
  check(Array.isArray(j.list) && j.list.every((v) => typeof v === 'string') && j.list[0] === j.id_text,
    'json_agg() gives strings');
  // a fixed ID with its low bits set (see above): some IDs would survive
  const numeric = await client.query(
    `SELECT to_json(v) AS as_number, v::text AS exact
       FROM (SELECT snowflake_from_parts('2026-06-15 12:00:00+00', 7, 1)::bigint AS v) s`);
  check(typeof numeric.rows[0].as_number === 'number' && String(numeric.rows[0].as_number) !== numeric.rows[0].exact,
    'a bigint column in JSON is a number and loses digits: cast it to snowflake or text');
  const fixed = await client.query(`SELECT to_json(ref::snowflake) AS as_string, ref::text AS exact FROM js_events LIMIT 1`);
  check(fixed.rows[0].as_string === fixed.rows[0].exact, 'ref::snowflake in JSON is exact');

  // IDs as BigInt: a type parser for bigint (OID 20) and for snowflake
  const oid = (await client.query(`SELECT 'snowflake'::regtype::oid AS oid`)).rows[0].oid;
  types.setTypeParser(20, (v) => BigInt(v));
  types.setTypeParser(Number(oid), (v) => BigInt(v));
  const asBig = await client.query(`SELECT id, ref, id::text AS id_text FROM js_events ORDER BY id`);
  check(asBig.rows.every((r) => typeof r.id === 'bigint' && typeof r.ref === 'bigint'),
    'with type parsers, snowflake and bigint arrive as BigInt');
  check(asBig.rows.every((r) => r.id.toString() === r.id_text), 'exactly');
  check(asBig.rows.every((r, i) => i === 0 || r.id > asBig.rows[i - 1].id),
    'and BigInt comparison keeps their order');

  // Parameters: a BigInt or a string goes back in exactly
  const first = asBig.rows[0];
  const byBigInt = await client.query('SELECT payload FROM js_events WHERE id = $1', [first.id]);
  check(byBigInt.rows.length === 1, 'a BigInt parameter finds the row');
  const byString = await client.query('SELECT payload FROM js_events WHERE id = $1::snowflake', [first.id_text]);
  check(byString.rows.length === 1, 'so does a string parameter');
  const decoded = await client.query(
    'SELECT node_id, ts FROM snowflake_decode($1::snowflake)', [first.id.toString()]);
  check(decoded.rows[0].node_id === 7 && decoded.rows[0].ts instanceof Date,
    'snowflake_decode() gives the node and a Date');

  await client.query('DROP TABLE js_events');
  await client.end();
  console.log(`1..${checks}`);
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((err) => {
  console.log(`not ok - ${err.message}`);
  process.exit(1);
});
