# The documentation is checked like code.
#
# Every ```sql block of README.md and doc/*.md (list items' indented ones
# too) runs, in the order of its
# file, as a superuser, in a database of its own per file, on a server
# with the extension preloaded and node ID 7.  The blocks of a file go to
# one psql session as its standard input, as a reader pastes them, psql's
# backslash commands included.  The extension is created
# in that database first, unless the file's first example creates it (the
# README's does).  An example that fails, or
# that depends on something the text has not set up, fails this test,
# which names the file and the line of the block.  So does a block that
# leaves a transaction open with work in it (the reader's work would be
# rolled back when the session ends), and one that makes psql ignore part
# of a line ("\gexec: extra argument ... ignored").  A block preceded by
# "<!-- docs-test: skip: REASON -->" is not run and counted as skipped,
# with its reason (an example that needs a Citus cluster, say).
# "<!-- docs-test: afterwards: QUERY -->" anywhere in a file is a query
# that must return true in a new session once the file's examples have
# run: what a recipe did must last.
#
# Every relative link must name a file that exists, and every #anchor a
# heading of that file (as GitHub derives anchors from headings).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Basename qw(dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $root = "$FindBin::RealBin/../..";
my @files = ('README.md', map { s{^\Q$root\E/}{}r } sort glob("$root/doc/*.md"));

sub slurp_lines
{
	my ($path) = @_;
	open my $fh, '<', $path or die "cannot read $path: $!";
	my @lines = <$fh>;
	close $fh;
	return @lines;
}

# the ```sql blocks of a file: [first line number, text, skip reason];
# and its "afterwards" queries: [line number, query]
sub sql_blocks
{
	my ($file) = @_;
	my @lines = slurp_lines("$root/$file");
	my (@blocks, @afterwards, $current, $skip, $indent);
	for my $i (0 .. $#lines)
	{
		my $line = $lines[$i];
		if (defined $current)
		{
			if ($line =~ /^\s*```\s*$/)
			{
				push @blocks, $current;
				undef $current;
			}
			else
			{
				# a block inside a list item is indented as the item is
				$line =~ s/^ {0,$indent}//;
				$current->[1] .= $line;
			}
		}
		elsif ($line =~ /^( *)```sql\s*$/)
		{
			$current = [ $i + 2, '', $skip ];
			$indent = length $1;
			undef $skip;
		}
		elsif ($line =~ /^\s*<!-- docs-test: skip: (.+?) -->/)
		{
			$skip = $1;
		}
		elsif ($line =~ /^\s*<!-- docs-test: afterwards: (.+?) -->/)
		{
			push @afterwards, [ $i + 1, $1 ];
		}
		elsif ($line =~ /\S/)
		{
			undef $skip;
		}
	}
	die "$file: a ```sql block is not closed" if defined $current;
	return (\@blocks, \@afterwards);
}

# GitHub's anchor of a heading: lower case, punctuation dropped except
# hyphens and underscores, spaces to hyphens
sub anchor_of
{
	my ($heading) = @_;
	my $a = lc $heading;
	$a =~ s/[^\w\- ]//g;
	$a =~ s/ /-/g;
	return $a;
}

sub anchors
{
	my ($file) = @_;
	my %anchors;
	my $in_code = 0;
	for my $line (slurp_lines($file))
	{
		$in_code = !$in_code if $line =~ /^```/;
		next if $in_code;
		$anchors{ anchor_of($1) } = 1 if $line =~ /^#+\s+(.*?)\s*$/;
	}
	return \%anchors;
}

# --- links and anchors ---------------------------------------------------------------
for my $file (@files)
{
	my @broken;
	my $text = join '', slurp_lines("$root/$file");
	$text =~ s/^```.*?^```//gms;	# links in code are not links
	while ($text =~ /\]\(([^)\s]+)\)/g)
	{
		my $link = $1;
		next if $link =~ m{^[a-z]+:};	# http:, mailto:
		my ($path, $anchor) = split /#/, $link, 2;
		my $target = $path eq '' ? "$root/$file" : dirname("$root/$file") . "/$path";
		if (!-e $target)
		{
			push @broken, "$link (no such file)";
		}
		elsif (defined $anchor && $target =~ /\.md$/ && !anchors($target)->{$anchor})
		{
			push @broken, "$link (no such heading)";
		}
	}
	is(join(', ', @broken), '', "$file: every relative link and anchor leads somewhere");
}

# --- the SQL examples ----------------------------------------------------------------
my $node = snowflake_node('docs', conf => "snowflake.node_id = 7\n");
$node->start;

for my $file (@files)
{
	my ($blocks, $afterwards) = sql_blocks($file);
	next unless @$blocks;
	my $db = 'docs_' . (lc($file) =~ s/\W+/_/gr);
	$node->safe_psql('postgres', qq{CREATE DATABASE "$db"});
	$node->safe_psql($db, 'CREATE EXTENSION snowflake')
	  unless $blocks->[0][1] =~ /^\s*CREATE EXTENSION/mi;

	# after each block: does the session hold a transaction with work in it?
	my $script = '';
	my $run = 0;
	for my $block (@$blocks)
	{
		my ($line, $sql, $skip) = @$block;
		if (defined $skip)
		{
		  SKIP: { skip("$file:$line: $skip", 1); }
			next;
		}
		$script .= "\\echo -- block at $file:$line\n$sql\n"
		  . "SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS docs_test_open \\gset\n"
		  . "\\if :docs_test_open\n\\echo -- left a transaction open: $file:$line\n\\endif\n";
		$run++;
	}
	next unless $run;

	my ($ret, $stdout, $stderr) = $node->psql($db, $script,
		extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
	my ($last) = ($stdout =~ /.*-- block at (\S+)/s);
	is($ret, 0, "$file: all $run SQL examples run")
	  or diag("the first that failed is the one at " . ($last // "$file, the first block") . ":\n$stderr");
	my @open = ($stdout =~ /^-- left a transaction open: (\S+)$/mg);
	is(join(', ', @open), '',
		"$file: no example leaves a transaction open with work in it");
	my @ignored = ($stderr =~ /^psql:[^\n]*(\\\w+: extra argument [^\n]*)$/mg);
	is(join(', ', @ignored), '', "$file: psql ignores no part of an example");

	# in a new session, what the examples did is there
	for my $check (@$afterwards)
	{
		my ($line, $query) = @$check;
		is($node->safe_psql($db, $query), 't', "$file:$line: afterwards, $query");
	}
}

$node->stop;
done_testing();
