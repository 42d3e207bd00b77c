#!/usr/bin/perl
# test/check-structure.pl: the call graph between the extension's C files,
# read from the built objects with nm.  File A depends on file B when A
# uses a global symbol that B defines.  Prints the edges, and fails (exit
# code 1) when the graph has a cycle, naming the files of each cycle.
#
# With --map HEADER it also holds the graph to the map of layers in that
# header (src/snowflake.h, section "THE LAYERS"): every C file must be
# listed there, and may only use files listed before it.
#
#   make check-structure          (builds first, then runs this)
#   test/check-structure.pl [--map src/snowflake.h] src/*.o
use strict;
use warnings;

my $map;
if (@ARGV >= 2 && $ARGV[0] eq '--map')
{
	(undef, $map) = splice(@ARGV, 0, 2);
}
my @objects = @ARGV or die "usage: $0 [--map HEADER] OBJECT...\n";
my (%defines, %uses);
for my $o (@objects)
{
	(my $name = $o) =~ s{.*/}{};
	$name =~ s{\.o$}{.c};
	for my $line (`nm --defined-only -g $o`)
	{
		my ($type, $sym) = (split ' ', $line)[1, 2];
		$defines{$sym} = $name if defined $sym && $type =~ /[TDBRC]/;
	}
	$uses{$name}{$_} = 1 for map { (split ' ')[1] } grep { /^\s+U / } `nm -u $o`;
}

my %edges;
for my $file (keys %uses)
{
	for my $sym (keys %{ $uses{$file} })
	{
		my $to = $defines{$sym};
		$edges{$file}{$to}{$sym} = 1 if defined $to && $to ne $file;
	}
}

my $n = 0;
for my $from (sort keys %edges)
{
	for my $to (sort keys %{ $edges{$from} })
	{
		printf "%-20s -> %-20s %s\n", $from, $to, join(' ', sort keys %{ $edges{$from}{$to} });
		$n++;
	}
}

# strongly connected components (Tarjan): a component of more than one
# file is a cycle
my ($index, @stack, %idx, %low, %on, @cycles) = (0);
sub visit
{
	my ($v) = @_;
	$idx{$v} = $low{$v} = $index++;
	push @stack, $v;
	$on{$v} = 1;
	for my $w (sort keys %{ $edges{$v} // {} })
	{
		if (!exists $idx{$w}) { visit($w); $low{$v} = $low{$w} if $low{$w} < $low{$v}; }
		elsif ($on{$w}) { $low{$v} = $idx{$w} if $idx{$w} < $low{$v}; }
	}
	if ($low{$v} == $idx{$v})
	{
		my @scc;
		my $w;
		do { $w = pop @stack; $on{$w} = 0; push @scc, $w; } while ($w ne $v);
		push @cycles, [ sort @scc ] if @scc > 1;
	}
}
my %files = map { $_ => 1 } keys %uses, map { keys %$_ } values %edges;
visit($_) for grep { !exists $idx{$_} } sort keys %files;

printf "%d files, %d edges, %d cycle(s)\n", scalar(keys %files), $n, scalar(@cycles);
print "cycle: ", join(' ', @$_), "\n" for @cycles;
my $failed = @cycles > 0;

# the map: the order in which the C files are first named in THE LAYERS
if (defined $map)
{
	open(my $fh, '<', $map) or die "could not open $map: $!\n";
	my $text = do { local $/; <$fh> };
	close $fh;
	my ($layers) = $text =~ /THE LAYERS(.*?)\n \* [A-Z][A-Z ]+\n/s
	  or die "$map has no section THE LAYERS\n";
	my (%rank, $r);
	for my $name ($layers =~ /\b([a-z_]+\.c)\b/g)
	{
		$rank{$name} //= $r++;
	}
	for my $file (sort keys %files)
	{
		next if exists $rank{$file};
		print "not in the map of $map: $file\n";
		$failed = 1;
	}
	for my $from (sort keys %edges)
	{
		for my $to (sort keys %{ $edges{$from} })
		{
			next unless exists $rank{$from} && exists $rank{$to};
			next if $rank{$to} < $rank{$from};
			print "against the map of $map: $from uses $to, listed after it\n";
			$failed = 1;
		}
	}
	printf "the map of %s lists %d files; every edge goes down\n", $map, scalar(keys %rank)
	  unless $failed;
}
exit($failed ? 1 : 0);
