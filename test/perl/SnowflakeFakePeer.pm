# SnowflakeFakePeer.pm: a fake PostgreSQL server for the peer checker's
# tests.  It speaks enough of protocol version 3 over TCP on 127.0.0.1 to
# let libpq connect (SSL and GSS encryption refused, no authentication,
# a few parameter settings, a backend key, ready for query), then answers
# each simple query the checker sends with a scripted reply: a good one, or
# one of many bad ones.  Core Perl only.
#
#	my $fake = SnowflakeFakePeer->new($dir);
#	$fake->set(attack => 'node_info:copy_out');		# what the next query gets
#	$fake->set(node_id => 7, attack => '');			# a good answer, node 7
#	$fake->reset(node_id => 1, claiming => 't', admitted => 'f');
#													# claims node 1 (SQL 1.7)
#	$fake->reset(node_id => 1, columns => 10);		# node 1, SQL 1.6
#	$fake->wait_for_query('node_info');				# the checker asked, since set()
#	$fake->stop;
#
# The scenario is a file that every connection reads again at each query,
# so that a test changes what the fake says without restarting it; each
# set() bumps a generation number.  An attack "startup:<kind>" applies to
# new connections: a connection made under an older generation closes at
# its next query, so that the checker reconnects.
#
# The good answer to snowflake_node_info() is that of a primary of SQL
# version 1.7 with node ID 100, admitted to generate: %default_info, each
# column changed by the key of its name (a string as the server would
# print it; '\N' is NULL), and "columns" its number of columns: the first
# 8 are 1.5's answer, 10 are 1.6's (without claiming and admitted), more
# than 12 add columns of a later version.
#
# Attacks are "<query>:<kind>", <query> one of schema (the lookup of the
# extension's schema), node_info (snowflake_node_info()), citus (the Citus
# node list) or startup; see reply_attack() and startup_attack() for the
# kinds.
package SnowflakeFakePeer;

use strict;
use warnings FATAL => 'all';

use IO::Socket::INET;
use POSIX qw(:sys_wait_h);
use PostgreSQL::Test::Utils;
use Time::HiRes qw(usleep time);

# type OIDs
use constant { BOOLOID => 16, INT8OID => 20, INT4OID => 23, TEXTOID => 25,
	NAMEOID => 19 };

# what snowflake_node_info() answers, unless set() says otherwise
my %default_info = (
	node_id => 100,
	instance_token => 4242,
	started_at_ms => 1767225600000,    # 2026-01-01
	in_recovery => 'f',
	clock_ms => 'now',
	epoch_ms => 1735689600000,         # 2025-01-01, the default epoch
	node_bits => 10,
	sequence_bits => 12,
	generating_since_ms => '\N',       # NULL
	last_id => '\N',                   # NULL: none issued since start
	claiming => 'f',                   # SQL 1.7: not claiming its node ID,
	admitted => 't',                   # but admitted to generate with it
	columns => 12,                     # SQL 1.7; 10: 1.6, 8: 1.5
);

sub new
{
	my ($class, $dir) = @_;
	mkdir $dir;
	my $self = bless { dir => $dir, gen => 0, scenario => { %default_info, attack => '' } },
	  $class;
	$self->_write;
	unlink "$dir/queries";

	my $listener = IO::Socket::INET->new(
		LocalAddr => '127.0.0.1',
		LocalPort => 0,
		Proto => 'tcp',
		Listen => 16,
		ReuseAddr => 1) or die "fake peer: cannot listen: $!";
	$self->{port} = $listener->sockport;

	my $pid = fork();
	die "fake peer: fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		# A copy of the test process: none of its signal handlers or END
		# blocks (which stop the test's servers) may run here, whatever
		# happens.  The listener and its children form a process group,
		# stopped at once.
		$SIG{$_} = 'DEFAULT' for qw(TERM INT HUP QUIT ALRM __DIE__);
		$SIG{CHLD} = 'IGNORE';
		$SIG{PIPE} = 'IGNORE';
		setpgrp(0, 0);
		eval {
			while (1)
			{
				my $client = $listener->accept or next;
				my $child = fork();
				if (defined $child && $child == 0)
				{
					close $listener;
					eval { _serve($self, $client); };
					print STDERR "fake peer: $@" if $@;
					POSIX::_exit(0);
				}
				close $client;
			}
		};
		print STDERR "fake peer listener: $@" if $@;
		POSIX::_exit(1);
	}
	close $listener;
	$self->{pid} = $pid;
	$self->{owner} = $$;
	return $self;
}

sub port { return $_[0]->{port}; }

# a connection string for it (host and hostaddr may be overridden)
sub connstr
{
	my ($self, %opts) = @_;
	my $host = $opts{host} // '127.0.0.1';
	my $extra = $opts{hostaddr} ? " hostaddr=$opts{hostaddr}" : '';
	return "host=$host$extra port=$self->{port} dbname=postgres user=checker";
}

# The passwords that clients sent it (attack "startup:password"), one per line.
sub passwords
{
	my ($self) = @_;
	my $file = "$self->{dir}/passwords";
	return -e $file ? PostgreSQL::Test::Utils::slurp_file($file) : '';
}

# Changes the scenario: the given keys, the others kept.
sub set
{
	my ($self, %values) = @_;
	$self->{scenario}{$_} = $values{$_} for keys %values;
	$self->{set_at} = time();
	$self->_write;
	return;
}

# Back to a good answer with the default values, plus the given ones.
sub reset
{
	my ($self, %values) = @_;
	$self->{scenario} = { %default_info, attack => '', %values };
	$self->{set_at} = time();
	$self->_write;
	return;
}

sub _write
{
	my ($self) = @_;
	$self->{gen}++;
	my $file = "$self->{dir}/scenario";
	open(my $fh, '>', "$file.tmp") or die "fake peer: $file.tmp: $!";
	print $fh "gen=$self->{gen}\n";
	print $fh "$_=$self->{scenario}{$_}\n" for sort keys %{ $self->{scenario} };
	close $fh;
	rename("$file.tmp", $file) or die "fake peer: rename $file: $!";
	return;
}

# Waits until a query of the given kind (schema, node_info, citus, or
# startup for a new connection) arrived under the current scenario.
sub wait_for_query
{
	my ($self, $which) = @_;
	my $want = "$which $self->{gen}";
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	while (time() < $deadline)
	{
		if (open(my $fh, '<', "$self->{dir}/queries"))
		{
			while (my $line = <$fh>)
			{
				chomp $line;
				return 1 if $line eq $want;
			}
			close $fh;
		}
		usleep(50_000);
	}
	return 0;
}

sub stop
{
	my ($self) = @_;
	return unless $self->{pid};
	kill 'TERM', -$self->{pid};
	kill 'TERM', $self->{pid};
	waitpid($self->{pid}, 0);
	$self->{pid} = undef;
	return;
}

sub DESTROY
{
	my ($self) = @_;
	$self->stop if $self->{pid} && $self->{owner} == $$;
	return;
}

# --- the server side, in a child per connection ------------------------------

sub _read_scenario
{
	my ($dir) = @_;
	my %s;
	open(my $fh, '<', "$dir/scenario") or return \%s;
	while (my $line = <$fh>)
	{
		chomp $line;
		my ($k, $v) = split /=/, $line, 2;
		$s{$k} = $v // '';
	}
	close $fh;
	return \%s;
}

sub _note_query
{
	my ($dir, $which, $gen) = @_;
	open(my $fh, '>>', "$dir/queries") or return;
	print $fh "$which $gen\n";
	close $fh;
	return;
}

# reads exactly $n bytes, or exits when the client is gone
sub _read_n
{
	my ($sock, $n) = @_;
	my $buf = '';
	while (length($buf) < $n)
	{
		my $got = sysread($sock, $buf, $n - length($buf), length($buf));
		POSIX::_exit(0) unless $got;
	}
	return $buf;
}

# writes it all, or exits when the client is gone
sub _send
{
	my ($sock, $data) = @_;
	while (length $data)
	{
		my $put = syswrite($sock, $data);
		POSIX::_exit(0) unless defined $put && $put > 0;
		substr($data, 0, $put) = '';
	}
	return;
}

# waits for the client to go, reading whatever it sends
sub _linger
{
	my ($sock) = @_;
	my $buf;
	while (sysread($sock, $buf, 8192)) { }
	POSIX::_exit(0);
}

sub _msg
{
	my ($type, $body) = @_;
	return $type . pack('N', length($body) + 4) . $body;
}

# RowDescription: [name, type OID, format] per column
sub _row_description
{
	my @cols = @_;
	my $body = pack('n', scalar @cols);
	for my $c (@cols)
	{
		my ($name, $type, $format) = @$c;
		my $len = $type == INT8OID ? 8 : $type == INT4OID ? 4 : $type == BOOLOID ? 1 :
		  $type == NAMEOID ? 64 : -1;
		$body .= $name . "\0" . pack('NnNnNn', 0, 0, $type, $len & 0xffff, 0xffffffff,
			$format // 0);
	}
	return _msg('T', $body);
}

# DataRow: undef is NULL
sub _data_row
{
	my @values = @_;
	my $body = pack('n', scalar @values);
	for my $v (@values)
	{
		if (defined $v)
		{
			$body .= pack('N', length $v) . $v;
		}
		else
		{
			$body .= pack('N', 0xffffffff);
		}
	}
	return _msg('D', $body);
}

sub _complete { return _msg('C', "$_[0]\0"); }
sub _ready { return _msg('Z', 'I'); }

sub _error
{
	my ($severity, $text) = @_;
	return _msg($severity eq 'NOTICE' ? 'N' : 'E',
		"S$severity\0V$severity\0C" . ($severity eq 'NOTICE' ? '00000' : 'XX000')
		  . "\0M$text\0\0");
}

sub _copy_response
{
	my ($type) = @_;
	return _msg($type, pack('Cnn', 0, 1, 0));
}

# the good answer to each query: columns and one or more rows
sub _good_answer
{
	my ($which, $s, $port) = @_;
	if ($which eq 'schema')
	{
		return ([ [ 'nspname', NAMEOID ] ], [ ['public'] ]);
	}
	if ($which eq 'citus')
	{
		my @rows = map { [ split /:/, $_, 2 ] } split /,/,
		  ($s->{citus_nodes} // "127.0.0.1:$port");
		return ([ [ 'nodename', TEXTOID ], [ 'nodeport', INT4OID ] ], \@rows);
	}

	# snowflake_node_info()
	# the columns of SQL 1.7, in order; "columns" takes the first ones (8:
	# 1.5, 10: 1.6), and more than 12 adds columns of a later version
	my @names = qw(node_id instance_token started_at_ms in_recovery clock_ms
	  epoch_ms node_bits sequence_bits generating_since_ms last_id claiming admitted);
	my %types = (node_id => INT4OID, node_bits => INT4OID, sequence_bits => INT4OID,
		in_recovery => BOOLOID, claiming => BOOLOID, admitted => BOOLOID);
	my $n = $s->{columns} // 12;
	my @cols;
	my @row;
	for my $i (0 .. $n - 1)
	{
		my $name = $names[$i] // "extra_$i";
		my $value = $s->{$name} // '1';
		$value = int(time() * 1000) if $value eq 'now';
		$value =~ s/\\0/\0/g;
		push @cols, [ $name, $types{$name} // INT8OID ];
		push @row, $value eq '\N' ? undef : $value;
	}
	return (\@cols, [ \@row ]);
}

sub _send_result
{
	my ($sock, $cols, $rows) = @_;
	my $out = _row_description(@$cols);
	$out .= _data_row(@$_) for @$rows;
	$out .= _complete('SELECT ' . scalar @$rows) . _ready();
	_send($sock, $out);
	return;
}

# a bad reply to a query; never returns for the kinds that go on forever
sub _reply_attack
{
	my ($sock, $which, $kind, $s, $port) = @_;
	my ($cols, $rows) = _good_answer($which, $s, $port);
	my @types = map { $_->[1] } @$cols;

	if ($kind eq 'zero_columns')
	{
		_send($sock, _row_description() . _data_row() . _complete('SELECT 1') . _ready());
	}
	elsif ($kind eq 'wrong_columns')
	{
		# the schema lookup gets one column too many, the others too few
		my $n = $which eq 'schema' ? 2 : $which eq 'citus' ? 1 : 3;
		my @c = $which eq 'schema' ? (@$cols, [ 'extra', TEXTOID ]) : @$cols[ 0 .. $n - 1 ];
		my @r = $which eq 'schema' ? (@{ $rows->[0] }, 'x') : @{ $rows->[0] }[ 0 .. $n - 1 ];
		_send_result($sock, \@c, [ \@r ]);
	}
	elsif ($kind eq 'nulls')
	{
		_send_result($sock, $cols, [ [ map { undef } @$cols ] ]);
	}
	elsif ($kind eq 'text_types')
	{
		_send_result($sock, [ map { [ $_->[0], TEXTOID ] } @$cols ], $rows);
	}
	elsif ($kind eq 'wrong_type')
	{
		# the last column declared as bool, or as int8 if it is a bool
		my @c = map { [@$_] } @$cols;
		$c[-1][1] = $c[-1][1] == BOOLOID ? INT8OID : BOOLOID;
		_send_result($sock, \@c, $rows);
	}
	elsif ($kind eq 'binary')
	{
		_send_result($sock, [ map { [ $_->[0], $_->[1], 1 ] } @$cols ], $rows);
	}
	elsif ($kind eq 'duplicate_column')
	{
		_send_result($sock, [ @$cols, $cols->[0] ], [ [ @{ $rows->[0] }, $rows->[0][0] ] ]);
	}
	elsif ($kind eq 'two_rows')
	{
		_send_result($sock, $cols, [ $rows->[0], $rows->[0] ]);
	}
	elsif ($kind eq 'zero_rows')
	{
		_send_result($sock, $cols, []);
	}
	elsif ($kind eq 'non_numeric')
	{
		# every integer column "12abc", every other one as it was
		my @r = map {
			my $t = $types[$_];
			($t == INT4OID || $t == INT8OID) ? '12abc' : $rows->[0][$_]
		} 0 .. $#$cols;
		_send_result($sock, $cols, [ \@r ]);
	}
	elsif ($kind eq 'out_of_range')
	{
		my @r = map {
			my $t = $types[$_];
			($t == INT4OID || $t == INT8OID) ? '99999999999999999999' : $rows->[0][$_]
		} 0 .. $#$cols;
		_send_result($sock, $cols, [ \@r ]);
	}
	elsif ($kind eq 'control_chars')
	{
		# the first column: text with a newline and an escape
		my @r = @{ $rows->[0] };
		$r[0] = "pub\nlic\e[2J";
		_send_result($sock, $cols, [ \@r ]);
	}
	elsif ($kind eq 'long_text')
	{
		my @r = @{ $rows->[0] };
		$r[0] = 'x' x 5000;
		_send_result($sock, $cols, [ \@r ]);
	}
	elsif ($kind eq 'copy_in')
	{
		_send($sock, _copy_response('G'));
		_linger($sock);
	}
	elsif ($kind eq 'copy_out')
	{
		_send($sock, _copy_response('H'));
		_linger($sock);
	}
	elsif ($kind eq 'copy_both')
	{
		_send($sock, _copy_response('W'));
		_linger($sock);
	}
	elsif ($kind eq 'error')
	{
		# a second line and bytes that are no text of ours must not reach the log
		_send($sock, _error('ERROR', "fake error from the peer\nLOG:  forged line \x01\xff")
			  . _ready());
	}
	elsif ($kind eq 'command_ok')
	{
		_send($sock, _complete('UPDATE 0') . _ready());
	}
	elsif ($kind eq 'empty_query')
	{
		_send($sock, _msg('I', '') . _ready());
	}
	elsif ($kind eq 'multi_result')
	{
		my $one = _row_description(@$cols) . _data_row(@{ $rows->[0] }) . _complete('SELECT 1');
		_send($sock, $one . $one . _ready());
	}
	elsif ($kind eq 'endless_rows')
	{
		# good rows, 64 kB of them at a time, for ever
		my $row = _data_row(@{ $rows->[0] });
		my $chunk = $row x int(65536 / length($row) + 1);
		_send($sock, _row_description(@$cols));
		_send($sock, $chunk) while 1;
	}
	elsif ($kind eq 'huge_value')
	{
		# a row announcing a 512 MB value, then its bytes, for ever
		my $size = 512 * 1024 * 1024;
		_send($sock, _row_description([ $cols->[0][0], TEXTOID ]));
		_send($sock, 'D' . pack('N', 4 + 2 + 4 + $size) . pack('n', 1) . pack('N', $size));
		my $chunk = 'x' x 65536;
		_send($sock, $chunk) while 1;
	}
	elsif ($kind eq 'notices')
	{
		my $notice = _error('NOTICE', 'fake notice from the peer');
		my $chunk = $notice x int(65536 / length($notice) + 1);
		_send($sock, $chunk) while 1;
	}
	elsif ($kind eq 'garbage')
	{
		_send($sock, "!garbage\x00\xff\x13\x37" x 64);
		_linger($sock);
	}
	elsif ($kind eq 'close_mid')
	{
		# half a RowDescription, then the connection closes
		_send($sock, substr(_row_description(@$cols), 0, 9));
		POSIX::_exit(0);
	}
	elsif ($kind eq 'hang')
	{
		_linger($sock);
	}
	else
	{
		die "fake peer: unknown attack kind \"$kind\"";
	}
	return;
}

# a bad answer to a new connection; never returns
sub _startup_attack
{
	my ($sock, $kind, $dir) = @_;
	if ($kind eq 'password')
	{
		# asks for the password in clear text, and keeps what it is sent
		_send($sock, _msg('R', pack('N', 3)));
		my ($type, $mlen) = unpack('aN', _read_n($sock, 5));
		my $body = _read_n($sock, $mlen - 4);
		if ($type eq 'p')
		{
			$body =~ s/\0$//;
			open(my $fh, '>>', "$dir/passwords") or die "fake peer: $dir/passwords: $!";
			print $fh "$body\n";
			close $fh;
		}
		_send($sock, _error('FATAL', 'fake refusal'));
		POSIX::_exit(0);
	}
	elsif ($kind eq 'hang')
	{
		_linger($sock);
	}
	elsif ($kind eq 'close')
	{
		POSIX::_exit(0);
	}
	elsif ($kind eq 'garbage')
	{
		_send($sock, "!garbage\x00\xff\x13\x37" x 64);
		_linger($sock);
	}
	elsif ($kind eq 'fatal')
	{
		_send($sock, _error('FATAL', 'fake refusal'));
		POSIX::_exit(0);
	}
	elsif ($kind eq 'endless_params')
	{
		# authentication done, then parameter settings of new names for ever
		_send($sock, _msg('R', pack('N', 0)));
		my $i = 0;
		while (1)
		{
			my $chunk = '';
			$chunk .= _msg('S', 'fake_' . $i++ . "\0value\0") for 1 .. 1000;
			_send($sock, $chunk);
		}
	}
	die "fake peer: unknown startup attack \"$kind\"";
}

sub _serve
{
	my ($self, $sock) = @_;
	my $dir = $self->{dir};
	my $port = $self->{port};
	binmode $sock;

	# the start-up packet, after any encryption request (refused)
	my ($len, $code, $body);
	while (1)
	{
		($len, $code) = unpack('NN', _read_n($sock, 8));
		$body = _read_n($sock, $len - 8);
		last unless $code == 80877103 || $code == 80877104;
		_send($sock, 'N');
	}
	POSIX::_exit(0) if $code == 80877102;    # a cancel request

	my $s = _read_scenario($dir);
	my $gen = $s->{gen};
	_note_query($dir, 'startup', $gen);
	my ($which, $kind) = split /:/, ($s->{attack} // ''), 2;
	_startup_attack($sock, $kind, $dir) if ($which // '') eq 'startup';

	# a newer libpq may ask for a later minor version (3.2, or a made-up
	# one to keep servers honest): this server speaks 3.0
	my $out = '';
	if (($code & 0xffff) != 0)
	{
		my @pairs = split /\0/, $body;
		my @options = grep { /^_pq_\./ } @pairs[ grep { $_ % 2 == 0 } 0 .. $#pairs ];
		$out .= _msg('v', pack('NN', 3 << 16, scalar @options) . join('', map { "$_\0" } @options));
	}
	$out .= _msg('R', pack('N', 0));
	$out .= _msg('S', "$_->[0]\0$_->[1]\0")
	  for ([ 'server_version', '18.0' ], [ 'server_encoding', 'UTF8' ],
		[ 'client_encoding', 'UTF8' ], [ 'DateStyle', 'ISO, MDY' ],
		[ 'integer_datetimes', 'on' ], [ 'standard_conforming_strings', 'on' ]);
	$out .= _msg('K', pack('NN', $$, 12345));
	$out .= _ready();
	_send($sock, $out);

	while (1)
	{
		my ($type, $mlen) = unpack('aN', _read_n($sock, 5));
		my $query = _read_n($sock, $mlen - 4);
		POSIX::_exit(0) if $type eq 'X';
		next unless $type eq 'Q';

		$s = _read_scenario($dir);
		($which, $kind) = split /:/, ($s->{attack} // ''), 2;
		# a connection of an older scenario goes, if the new one attacks new ones
		POSIX::_exit(0) if $s->{gen} != $gen && ($which // '') eq 'startup';
		$gen = $s->{gen};

		my $asked = $query =~ /pg_dist_node/ ? 'citus' :
		  $query =~ /snowflake_node_info/ ? 'node_info' :
		  $query =~ /pg_extension/ ? 'schema' : 'other';
		_note_query($dir, $asked, $gen);
		if ($asked eq 'other')
		{
			_send($sock, _error('ERROR', 'fake peer: unexpected query') . _ready());
			next;
		}
		if (($which // '') eq $asked)
		{
			_reply_attack($sock, $asked, $kind, $s, $port);
			next;
		}
		my ($cols, $rows) = _good_answer($asked, $s, $port);
		_send_result($sock, $cols, $rows);
	}
}

1;
