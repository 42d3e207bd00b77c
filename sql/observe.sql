--
-- snowflake_observe() and snowflake_observe_trigger() on bad input and
-- misuse: clean errors.  The trigger reads the key as an ID only when it is
-- bigint or the extension's own snowflake type (or a domain over either):
-- a type of another schema that is merely named snowflake is refused.
--

-- no ID; IDs far below this server's; an ID of this server's, which
-- moves the generator past the rest of its millisecond (true)
SELECT snowflake_observe(-1);
SELECT snowflake_observe(NULL::bigint);
SELECT snowflake_observe(0), snowflake_observe(0::snowflake);
SELECT snowflake_observe(snowflake_nextval());

-- the trigger function is no function to call
SELECT snowflake_observe_trigger();

CREATE TABLE observed (id bigint PRIMARY KEY, note text);
CREATE TRIGGER observe BEFORE INSERT OR UPDATE ON observed
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger();
-- NULLs never reach a primary key; zero and negative keys are no concern
INSERT INTO observed VALUES (0, 'zero'), (-5, 'negative'), (snowflake_nextval(), 'mine');
UPDATE observed SET note = note || '!';
SELECT count(*) FROM observed;

-- fired for a statement, or by DELETE
CREATE TRIGGER observe_statement AFTER INSERT ON observed
  FOR EACH STATEMENT EXECUTE FUNCTION snowflake_observe_trigger();
INSERT INTO observed VALUES (1, 'statement');
DROP TRIGGER observe_statement ON observed;
CREATE TRIGGER observe_delete BEFORE DELETE ON observed
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger();
DELETE FROM observed;
DROP TRIGGER observe_delete ON observed;

-- arguments: too many, a second one that is not "strict", a column that
-- is not an ID, a column that does not exist
DROP TRIGGER observe ON observed;
CREATE TRIGGER observe BEFORE INSERT ON observed
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('id', 'strict', 'more');
INSERT INTO observed VALUES (2, 'three arguments');
DROP TRIGGER observe ON observed;
CREATE TRIGGER observe BEFORE INSERT ON observed
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('id', 'lenient');
INSERT INTO observed VALUES (3, 'not strict');
DROP TRIGGER observe ON observed;
CREATE TRIGGER observe BEFORE INSERT ON observed
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('note');
INSERT INTO observed VALUES (4, 'text');
DROP TRIGGER observe ON observed;
CREATE TRIGGER observe BEFORE INSERT ON observed
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('missing');
INSERT INTO observed VALUES (5, 'missing');
DROP TRIGGER observe ON observed;
SELECT count(*) FROM observed;

-- the extension's type, and domains over bigint and over it, are IDs
CREATE DOMAIN positive_id AS bigint CHECK (VALUE > 0);
CREATE DOMAIN snowflake_id AS snowflake;
CREATE TABLE observed_types (id snowflake, d positive_id, s snowflake_id);
CREATE TRIGGER by_type AFTER INSERT ON observed_types
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('id');
CREATE TRIGGER by_bigint_domain AFTER INSERT ON observed_types
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('d');
CREATE TRIGGER by_snowflake_domain AFTER INSERT ON observed_types
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('s');
INSERT INTO observed_types VALUES (1, 1, 1);
SELECT count(*) FROM observed_types;

-- a type named snowflake in another schema is not the extension's
CREATE SCHEMA impostor;
CREATE DOMAIN impostor.snowflake AS float8;
CREATE TABLE observed_impostor (id impostor.snowflake);
CREATE TRIGGER observe AFTER INSERT ON observed_impostor
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger();
INSERT INTO observed_impostor VALUES (1e300);
SELECT count(*) FROM observed_impostor;
-- nor is a base type of that name, 8 bytes by value, that holds a float8
CREATE SCHEMA lookalike;
CREATE TYPE lookalike.snowflake;
-- the shell-type NOTICE carries a caret position on 18 and later only
SET client_min_messages = warning;
CREATE FUNCTION lookalike.snowflake_in(cstring) RETURNS lookalike.snowflake
  AS 'float8in' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION lookalike.snowflake_out(lookalike.snowflake) RETURNS cstring
  AS 'float8out' LANGUAGE internal IMMUTABLE STRICT;
CREATE TYPE lookalike.snowflake (INPUT = lookalike.snowflake_in,
  OUTPUT = lookalike.snowflake_out, LIKE = pg_catalog.float8);
RESET client_min_messages;
CREATE TABLE observed_lookalike (id lookalike.snowflake);
CREATE TRIGGER observe AFTER INSERT ON observed_lookalike
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger();
INSERT INTO observed_lookalike VALUES ('1e300');
SELECT count(*) FROM observed_lookalike;

DROP TABLE observed, observed_types, observed_impostor, observed_lookalike;
DROP DOMAIN positive_id, snowflake_id;
SET client_min_messages = warning;
DROP SCHEMA impostor, lookalike CASCADE;
RESET client_min_messages;

-- neither is granted to PUBLIC: one call moves the generator for everyone
CREATE ROLE regress_observer;
CREATE TABLE observers_table (id bigint);
ALTER TABLE observers_table OWNER TO regress_observer;
SET ROLE regress_observer;
SELECT snowflake_observe(0);
CREATE TRIGGER observe AFTER INSERT ON observers_table
  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger();
RESET ROLE;
GRANT EXECUTE ON FUNCTION snowflake_observe(bigint) TO regress_observer;
SET ROLE regress_observer;
SELECT snowflake_observe(0);
RESET ROLE;
DROP TABLE observers_table;
REVOKE EXECUTE ON FUNCTION snowflake_observe(bigint) FROM regress_observer;
DROP ROLE regress_observer;
