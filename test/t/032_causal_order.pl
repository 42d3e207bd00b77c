# Causal order across servers: an ID made after seeing another is larger.
#
# Three servers whose clocks differ (libfaketime: -0.5 s, 0, +0.5 s) are
# chained by logical replication: each publishes a table of its own, and
# the next one subscribes to it (A -> B -> C -> A).  A chain of causal hops
# writes a row on one server, waits on the next until the row has arrived
# there, then writes that server's row, and so on.  With the observation
# trigger on the subscribed tables (ENABLE ALWAYS), every ID is larger than
# the one of the hop before it; without it, the hop from the server 0.5 s
# ahead to the one 0.5 s behind gives smaller IDs.
#
# Then: an observed ID far ahead (a source clock an hour ahead) is not
# followed, and says so; observing is durable across a crash; and two
# servers listing each other as peers, with no replication at all, do not
# order each other's IDs: the peer checker never moves a generator to a
# peer's last ID (1.6 did, within a round), so a peer an hour ahead leaves
# this server's IDs at its own clock, below the peer's, until this server
# observes one of them explicitly.  With the checker following peers'
# last_id as 1.6 did, checks 12 and 13 fail (Q's next ID is above P's,
# an hour ahead of Q's clock), and so do 10 and 14 (P, following Q in
# turn, reports another last_id, and Q is above P's ID before it
# observes it).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

skip_all_without_faketime();

my $hops = 1000;
my $plain_hops = 150;

my @names = qw(a b c);
my %offset = (a => '-0.5', b => '+0', c => '+0.5');
my %node;
my $i = 0;
for my $n (@names)
{
	$i++;
	$node{$n} = snowflake_node("causal_$n", conf => qq{
snowflake.node_id = $i
wal_level = logical
max_replication_slots = 4
max_wal_senders = 4
});
	start_with_faketime($node{$n}, $offset{$n});
	$node{$n}->safe_psql('postgres', q{
		CREATE EXTENSION snowflake;
		CREATE TABLE chain_a (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), hop int, run text);
		CREATE TABLE chain_b (LIKE chain_a INCLUDING ALL);
		CREATE TABLE chain_c (LIKE chain_a INCLUDING ALL);
		-- waits (bounded) until hop k - 1 of the run is in prev, then
		-- writes hop k into own and returns its ID
		CREATE FUNCTION hop_step(k int, r text, prev regclass, own regclass) RETURNS bigint
		LANGUAGE plpgsql AS $$
		DECLARE
			found boolean;
			result bigint;
		BEGIN
			FOR attempt IN 1 .. 60000 LOOP
				EXECUTE format('SELECT EXISTS (SELECT FROM %s WHERE hop = $1 AND run = $2)', prev)
				   INTO found USING k - 1, r;
				EXIT WHEN found;
				PERFORM pg_sleep(0.001);
			END LOOP;
			IF NOT found THEN
				RAISE EXCEPTION 'hop % of run % did not arrive', k - 1, r;
			END IF;
			EXECUTE format('INSERT INTO %s (hop, run) VALUES ($1, $2) RETURNING id', own)
			   INTO result USING k, r;
			RETURN result;
		END $$;
	});
	$node{$n}->safe_psql('postgres', "CREATE PUBLICATION pub_$n FOR TABLE chain_$n");
}

# A -> B -> C -> A, each subscriber's copy of the table with the trigger
my %next = (a => 'b', b => 'c', c => 'a');
for my $n (@names)
{
	my $sub = $node{ $next{$n} };
	my $conn = $node{$n}->connstr . ' dbname=postgres';
	$sub->safe_psql('postgres', qq{
		CREATE SUBSCRIPTION sub_$n CONNECTION '$conn' PUBLICATION pub_$n;
		CREATE TRIGGER observe BEFORE INSERT OR UPDATE ON chain_$n
		  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('id');
		ALTER TABLE chain_$n ENABLE ALWAYS TRIGGER observe;
	});
}
$node{ $next{$_} }->wait_for_subscription_sync($node{$_}, "sub_$_") for @names;

my %session = map { $_ => $node{$_}->background_psql('postgres') } @names;

# runs a chain; returns the number of hops whose ID is not larger than the
# hop before
sub run_chain
{
	my ($run, $count) = @_;
	my $inversions = 0;
	my $prev_id = $session{a}->query_safe(
		"INSERT INTO chain_a (hop, run) VALUES (0, '$run') RETURNING id");
	my $at = 'a';
	for my $k (1 .. $count)
	{
		my $to = $next{$at};
		my $id = $session{$to}->query_safe(
			"SELECT hop_step($k, '$run', 'chain_$at', 'chain_$to')");
		$inversions++ unless $id > $prev_id;
		($prev_id, $at) = ($id, $to);
	}
	return $inversions;
}

is(run_chain('observed', $hops), 0,
	"$hops causal hops over three servers 0.5 s apart, with the observation trigger: no inversion");
my $moved = $node{a}->safe_psql('postgres',
	'SELECT observations > 0 AND observations_moved > 0 AND max_observed_move_ms > 0 FROM snowflake_status()');
is($moved, 't', 'the server behind observed IDs ahead of its clock and moved, as snowflake_status() counts');

# the same chain without observation
for my $n (@names)
{
	$node{ $next{$n} }->safe_psql('postgres', "ALTER TABLE chain_$n DISABLE TRIGGER observe");
}
my $inversions = run_chain('plain', $plain_hops);
cmp_ok($inversions, '>', 0,
	"without it, $plain_hops hops give inversions: the mechanism matters");
$session{$_}->quit for @names;

# --- an observed ID far ahead: not followed, counted, never a silent jump -------
my $far = $node{b};
my $far_id = $far->safe_psql('postgres',
	q{SELECT snowflake_from_parts(clock_timestamp() + interval '1 hour', 3, 0)});
my ($ret, $out, $err) = $far->psql('postgres', "SELECT snowflake_observe(${far_id}::bigint)");
like($err, qr/ERROR:  snowflake ID $far_id is 3[56]\d{5} ms ahead of this server's clock/,
	'snowflake_observe() of an ID an hour ahead is an error');
my $refused_before = $far->safe_psql('postgres', 'SELECT observations_refused FROM snowflake_status()');
$far->safe_psql('postgres', qq{
	CREATE TABLE incoming (id bigint PRIMARY KEY);
	CREATE TRIGGER observe BEFORE INSERT ON incoming
	  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger();
	INSERT INTO incoming VALUES ($far_id);
});
is($far->safe_psql('postgres', 'SELECT observations_refused FROM snowflake_status()'),
	$refused_before + 1, 'the trigger lets the row in and counts the refusal');
is($far->safe_psql('postgres', q{
	SELECT snowflake_timestamp(snowflake_nextval()) < clock_timestamp() + interval '1 minute'}),
	't', 'and the next ID is not dragged an hour ahead');
($ret, $out, $err) = $far->psql('postgres', qq{
	CREATE TRIGGER observe_strict BEFORE INSERT ON incoming
	  FOR EACH ROW EXECUTE FUNCTION snowflake_observe_trigger('id', 'strict');
	INSERT INTO incoming VALUES ($far_id + 1)});
like($err, qr/ERROR:  snowflake ID \d+ is 3[56]\d{5} ms ahead of this server's clock/,
	'with "strict" the trigger refuses the row');

# --- observing is durable: a crash between observing and issuing ------------------
my $ahead = $far->safe_psql('postgres',
	q{SELECT snowflake_from_parts(clock_timestamp() + interval '5 s', 3, 4000)});
is($far->safe_psql('postgres', "SELECT snowflake_observe(${ahead}::bigint)"), 't',
	'an ID 5 s ahead is observed');
$far->stop('immediate');
start_with_faketime($far, $offset{b});
is($far->safe_psql('postgres', "SELECT snowflake_nextval() > $ahead"), 't',
	'after a crash right after observing, the next ID is still above it');

$node{$_}->stop for @names;


my $p = snowflake_node('peer_p', conf => "snowflake.node_id = 11\nsnowflake.peer_check_interval = '200ms'\n");
my $q = snowflake_node('peer_q', conf => "snowflake.node_id = 12\nsnowflake.peer_check_interval = '200ms'\n"
	  . "snowflake.max_borrow = '2h'\n");
$p->append_conf('postgresql.conf', qq{snowflake.peers = '"} . $q->connstr . qq{ dbname=postgres"'\n});
$q->append_conf('postgresql.conf', qq{snowflake.peers = '"} . $p->connstr . qq{ dbname=postgres"'\n});
start_with_faketime($p, '+1h');
start_with_faketime($q, '+0');
$_->safe_psql('postgres', 'CREATE EXTENSION snowflake') for ($p, $q);
for my $node ($p, $q)
{
	$node->poll_query_until('postgres', 'SELECT problem IS NULL FROM snowflake_status()')
	  or die $node->name . ' does not generate';
}

my $x = $p->safe_psql('postgres', 'SELECT snowflake_nextval()');
is($p->safe_psql('postgres', "SELECT last_id = $x FROM snowflake_node_info()"), 't',
	'P reports the ID it made, an hour ahead of Q\'s clock, as its last_id');
# two rounds of Q that end after x was made, the second begun after it
wait_for_peer_rounds($q, 2);
is($q->safe_psql('postgres', "SELECT status FROM snowflake_peers()"), 'ok: node 11',
	'Q\'s rounds read P, with no conflict');
my $y = $q->safe_psql('postgres', 'SELECT snowflake_nextval()');
is($y < $x ? 'below' : 'not below', 'below',
	'Q\'s next ID, a round later, is not pushed above P\'s ID: the peer checker does not follow');
is($q->safe_psql('postgres', q{
		SELECT format('observations %s, moved %s, IDs ahead of the clock %s',
		              observations, observations_moved, max_clock_lead_ms > 0)
		  FROM snowflake_status()}),
	'observations 0, moved 0, IDs ahead of the clock f',
	'nothing moved Q\'s generator: its IDs follow its own clock');

# explicit observation orders them
is($q->safe_psql('postgres', "SELECT snowflake_observe(${x}::bigint)"), 't',
	'Q observes P\'s ID explicitly');
is($q->safe_psql('postgres', "SELECT snowflake_nextval() > $x"), 't',
	'and then Q\'s next ID is above it');

$_->stop for ($p, $q);
done_testing();
