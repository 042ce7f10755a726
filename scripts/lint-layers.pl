#!/usr/bin/perl
# make lint: the modules depend on each other one way, so that each can be read and tested
# knowing only those below it.
#
# Usage: scripts/lint-layers.pl [--objdir DIR] [--skip RULE[,RULE...]]
#        scripts/lint-layers.pl --selftest
#
# A module is a source path without its extension: tracer/engine/hit.c and tracer/engine/hit.h
# make the module tracer/engine/hit, and a private header dwarf/points_int.h belongs to the
# module dwarf/points.  The files read are the .c and .h files under probes/,
# dwarf/, arch/, tracer/ and cmd/ (run it from the top of the tree); the objects are DIR's
# (build/ by default) as `make` builds them: DIR/tracer/engine/hit.o.  The rules (--skip names):
#   include  no include cycle between modules: A -> B when A.c or A.h has #include "B.h";
#   call     no call cycle between modules: A -> B when A's object uses a symbol that B's
#            object defines (nm);
#   layers   tracer/ -> dwarf/ -> probes/, arch/, and cmd/ on top: probes/ and arch/ use
#            nothing of tracer/, dwarf/ or cmd/, and probes/ nothing of arch/ (pure, tested
#            without a live process or a DWARF file); dwarf/ nothing of tracer/ or cmd/;
#            nothing outside cmd/ uses cmd/ (the subcommands).  "Uses" is an include or a call;
#   libdw    libelf and libdw stay inside dwarf/: no file outside dwarf/ includes
#            <elfutils/...>, <libelf.h>, <gelf.h> or <dwarf.h>, directly or through headers
#            (a dwarf/ header that needs them is dwarf/'s own);
#   readme   README.md's Layout section lists every source file, and only files that exist.
# Each failure is printed with what makes it (the include lines, or the symbols one object
# uses of another), a cycle as "a -> b -> c -> a".  Exit status 1 on any failure, 2 when the
# tree or the objects cannot be read.  --skip leaves rules out, to see the others while one is
# being fixed; make lint runs them all.  --selftest runs the rules on a made-up tree
# (silent when they do what they should).
use strict;
use warnings;
use File::Find;
use Getopt::Long;

my @SRCDIRS = qw(probes dwarf arch tracer cmd agent);
my $LIBDW_HDR = qr{^(?:elfutils/.*|libelf\.h|gelf\.h|dwarf\.h)$};

# Layer rules: a module under the first directory uses nothing under the others.
my @LAYERS = (
	[ 'probes', 'tracer', 'dwarf', 'cmd', 'arch' ],
	[ 'arch', 'tracer', 'dwarf', 'cmd' ],
	[ 'dwarf', 'tracer', 'cmd' ],
	[ 'agent', 'tracer', 'dwarf', 'cmd' ],
);

sub fatal
{
	print STDERR "lint-layers: ", @_;
	exit 2;
}

sub module
{
	my ($path) = @_;

	return $path =~ s/(?:_int\.h|\.[ch])$//r;
}

sub topdir
{
	my ($path) = @_;

	return $path =~ m{^([^/]+)/} ? $1 : '';
}

# Every .c and .h under DIRS: { path => [ { line, text, quoted, name } ... ] }.
sub read_includes
{
	my (@dirs) = @_;
	my %files;

	find({ no_chdir => 1, wanted => sub {
		$files{$File::Find::name} = [] if -f && /\.[ch]$/;
	} }, grep { -d } @dirs);
	for my $file (keys %files) {
		open(my $fh, '<', $file) or fatal("$file: $!\n");
		while (my $text = <$fh>) {
			next unless $text =~ /^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)/;
			chomp $text;
			push @{$files{$file}}, { line => $., text => $text,
						 quoted => defined $1, name => $1 // $2 };
		}
		close($fh);
	}
	return \%files;
}

# Module graph of the quoted includes: { A => { B => [ "file:line: text" ... ] } }.
sub include_graph
{
	my ($files) = @_;
	my %g;

	for my $file (sort keys %$files) {
		my $u = module($file);
		$g{$u} //= {};
		for my $inc (grep { $_->{quoted} } @{$files->{$file}}) {
			my $v = module($inc->{name});
			push @{$g{$u}{$v}}, "$file:$inc->{line}: $inc->{text}" if $v ne $u;
		}
	}
	return \%g;
}

# Module graph of the objects' symbols: { A => { B => [ symbol ... ] } }.  Only objects
# whose source is in FILES count: an object left over from a removed source is not a module.
sub call_graph
{
	my ($files, $objdir) = @_;
	my (%defs, %uses, %g);

	for my $src (sort grep { /\.c$/ } keys %$files) {
		my $m = module($src);
		my $obj = "$objdir/$m.o";
		next unless -f $obj;
		open(my $nm, '-|', 'nm', '-P', $obj) or fatal("nm $obj: $!\n");
		while (<$nm>) {
			my ($sym, $type) = split;
			if ($type eq 'U') {
				push @{$uses{$m}}, $sym;
			} elsif ($type =~ /^[A-TV-Z]$/) {
				$defs{$sym} = $m;
			}
		}
		close($nm) or fatal("nm $obj failed\n");
		$g{$m} //= {};
	}
	fatal("no object in $objdir: build it first (make $objdir/libptap.a)\n") unless %g;
	for my $u (keys %uses) {
		for my $sym (sort @{$uses{$u}}) {
			my $v = $defs{$sym};
			push @{$g{$u}{$v}}, $sym if defined $v && $v ne $u;
		}
	}
	return \%g;
}

# Strongly connected components of G with more than one node (Tarjan), each sorted.
sub cycles
{
	my ($g) = @_;
	my ($index, %idx, %low, %on, @stack, @out) = (0);
	my $visit;

	$visit = sub {
		my ($v) = @_;
		$idx{$v} = $low{$v} = $index++;
		push @stack, $v;
		$on{$v} = 1;
		for my $w (sort keys %{$g->{$v} // {}}) {
			if (!exists $idx{$w}) {
				$visit->($w);
				$low{$v} = $low{$w} if $low{$w} < $low{$v};
			} elsif ($on{$w} && $idx{$w} < $low{$v}) {
				$low{$v} = $idx{$w};
			}
		}
		return if $low{$v} != $idx{$v};
		my @scc;
		my $w;
		do {
			$w = pop @stack;
			$on{$w} = 0;
			push @scc, $w;
		} while ($w ne $v);
		push @out, [ sort @scc ] if @scc > 1;
	};
	for my $v (sort keys %$g) {
		$visit->($v) unless exists $idx{$v};
	}
	undef $visit;
	return sort { $a->[0] cmp $b->[0] } @out;
}

# The shortest cycle through V in G, staying inside IN: V, ..., V (empty: none).
sub shortest_cycle
{
	my ($g, $in, $v) = @_;
	my %prev;
	my @queue = ($v);

	while (defined(my $u = shift @queue)) {
		for my $w (sort keys %{$g->{$u}}) {
			next unless $in->{$w};
			if ($w eq $v) {
				my @path = ($u);
				unshift @path, $prev{$path[0]} while $path[0] ne $v;
				return (@path, $v);
			}
			next if exists $prev{$w};
			$prev{$w} = $u;
			push @queue, $w;
		}
	}
	return ();
}

# The cycle report, one per knot of modules that reach each other: its shortest cycle with
# what makes each edge (FMT turns an edge's list into text), then the knot's other edges.
sub report_cycles
{
	my ($kind, $g, $fmt) = @_;
	my @out;

	for my $scc (cycles($g)) {
		my %in = map { ($_ => 1) } @$scc;
		my (@cycle, %done, @more);
		for my $v (@$scc) {
			my @c = shortest_cycle($g, \%in, $v);
			@cycle = @c if !@cycle || @c < @cycle;
		}
		my $text = "$kind cycle: " . join(' -> ', @cycle) . "\n";
		for my $i (0 .. $#cycle - 1) {
			my ($u, $v) = @cycle[$i, $i + 1];
			$done{"$u $v"} = 1;
			$text .= "  $u -> $v:\n" . $fmt->($g->{$u}{$v});
		}
		for my $u (@$scc) {
			push @more, map { "$u -> $_" } sort grep { $in{$_} && !$done{"$u $_"} }
				keys %{$g->{$u}};
		}
		$text .= "  and among the same modules: " . join(', ', @more) . "\n" if @more;
		push @out, $text;
	}
	return @out;
}

sub fmt_includes
{
	return join('', map { "    $_\n" } @{$_[0]});
}

sub fmt_symbols
{
	return "    " . join(' ', @{$_[0]}) . "\n";
}

# The edges of G (an include or a call graph, KIND) that break a layer rule.
sub check_layers
{
	my ($kind, $g, $fmt) = @_;
	my @out;

	for my $u (sort keys %$g) {
		my $top = topdir($u);
		for my $v (sort keys %{$g->{$u}}) {
			my $to = topdir($v);
			my $why;
			for my $rule (@LAYERS) {
				my ($from, @not) = @$rule;
				$why = "$from/ uses nothing of " . join(', ', map { "$_/" } @not)
					if $top eq $from && grep { $_ eq $to } @not;
			}
			$why //= "nothing outside cmd/ uses cmd/" if $to eq 'cmd' && $top ne 'cmd';
			push @out, "layers: $why: $kind $u -> $v:\n" . $fmt->($g->{$u}{$v}) if $why;
		}
	}
	return @out;
}

# The include lines by which FILE reaches a libdw header, in the order met, each once.
sub libdw_lines
{
	my ($files, $file, $seen) = @_;
	my @lines;

	for my $inc (@{$files->{$file}}) {
		my $here = "$file:$inc->{line}: $inc->{text}";
		if (!$inc->{quoted}) {
			push @lines, $here if $inc->{name} =~ $LIBDW_HDR;
		} elsif (exists $files->{$inc->{name}} && !$seen->{$inc->{name}}++) {
			my @more = libdw_lines($files, $inc->{name}, $seen);
			push @lines, $here, @more if @more;
		}
	}
	return @lines;
}

# Each include of a libdw header outside dwarf/, and each include of a dwarf/ header that
# leads to one (a file that reaches it through another header of ours is not told again:
# that header's include is).
sub check_libdw
{
	my ($files) = @_;
	my @out;

	for my $file (sort grep { topdir($_) ne 'dwarf' } keys %$files) {
		for my $inc (@{$files->{$file}}) {
			my $here = "$file:$inc->{line}: $inc->{text}";
			if (!$inc->{quoted} && $inc->{name} =~ $LIBDW_HDR) {
				push @out, "libdw outside dwarf/: $here\n";
			} elsif ($inc->{quoted} && topdir($inc->{name}) eq 'dwarf' &&
				 exists $files->{$inc->{name}}) {
				my @lines = libdw_lines($files, $inc->{name}, {});
				push @out, "libdw outside dwarf/: $here, which leads to:\n" .
					   join('', map { "    $_\n" } @lines) if @lines;
			}
		}
	}
	return @out;
}

# README.md's "Layout" lists every source file: under a heading "### `DIR/`", items
# "- `a.c`, `a.h`: what they hold" (a name may carry a subdirectory: `x86_64/insn.c`).
sub check_readme
{
	my ($files, $readme) = @_;
	my (%listed, @out, $dir, $in);

	open(my $fh, '<', $readme) or return "$readme: $!\n";
	while (my $l = <$fh>) {
		if ($l =~ /^## /) {
			$in = $l =~ /^## Layout\b/;
			next;
		}
		next unless $in;
		if ($l =~ /^### `([^`]+\/)`/) {
			$dir = $1;
		} elsif (defined $dir && $l =~ /^- ((?:`[^`]+`(?:, )?)+):/) {
			$listed{"$dir$_"} = $. for $1 =~ /`([^`]+)`/g;
		}
	}
	close($fh);
	push @out, "$readme: $_ is not listed in the Layout section (a line saying what it holds)\n"
		for sort grep { !exists $listed{$_} } keys %$files;
	push @out, "$readme:$listed{$_}: lists $_, which does not exist\n"
		for sort grep { !exists $files->{$_} } keys %listed;
	return @out;
}

# Each rule on a made-up tree.
sub selftest
{
	my %g = (a => { b => ['x'] }, b => { c => ['y'], d => ['z'] }, c => { a => ['w'] },
		 d => { b => ['v'] }, e => { a => ['u'] }, f => { f => ['t'] });
	my %h = (a => { b => ['s1'] }, b => { c => ['s2'], d => ['s3'] }, c => { a => ['s4'] },
		 d => { c => ['s5'], b => ['s6'] });
	my %f;
	my $inc = sub {
		my ($file, $name) = @_;
		push @{$f{$file}}, { line => 1 + @{$f{$file} // []}, text => "#include $name",
				     quoted => ($name =~ /"/ ? 1 : 0), name => $name =~ s/["<>]//gr };
		$f{$name =~ s/["<>]//gr} //= [] if $name =~ /"/;
	};
	$inc->('tracer/t.c', '"tracer/u.h"');
	$inc->('tracer/u.h', '"dwarf/d.h"');
	$inc->('dwarf/d.h', '"dwarf/e.h"');
	$inc->('dwarf/e.h', '<elfutils/libdw.h>');
	$inc->('dwarf/e.h', '"probes/p.h"');
	$inc->('probes/p.h', '"cmd/c.h"');
	$inc->('arch/a.c', '"arch/arch.h"');
	$inc->('arch/a.c', '"tracer/t.h"');
	$inc->('probes/q.c', '"probes/q.h"');
	my @tests = (
		[ 'knot', join('', report_cycles('call', \%g, \&fmt_symbols)),
		  "call cycle: b -> d -> b\n" .
		  "  b -> d:\n    z\n  d -> b:\n    v\n" .
		  "  and among the same modules: a -> b, b -> c, c -> a\n" ],
		[ 'cycle', join('', report_cycles('call', \%h, \&fmt_symbols)),
		  "call cycle: b -> d -> b\n" .
		  "  b -> d:\n    s3\n  d -> b:\n    s6\n" .
		  "  and among the same modules: a -> b, b -> c, c -> a, d -> c\n" ],
		[ 'include', join('', report_cycles('include', include_graph(\%f),
						    \&fmt_includes)), '' ],
		[ 'layers', join('', check_layers('include', include_graph(\%f), \&fmt_includes),
				 check_layers('call', { 'cmd/m' => { 'tracer/t' => ['f'] },
							'tracer/t' => { 'cmd/m' => ['g'] } },
					      \&fmt_symbols)),
		  "layers: arch/ uses nothing of tracer/, dwarf/, cmd/: include arch/a -> tracer/t:\n" .
		  "    arch/a.c:2: #include \"tracer/t.h\"\n" .
		  "layers: probes/ uses nothing of tracer/, dwarf/, cmd/, arch/: include " .
		  "probes/p -> cmd/c:\n    probes/p.h:1: #include \"cmd/c.h\"\n" .
		  "layers: nothing outside cmd/ uses cmd/: call tracer/t -> cmd/m:\n    g\n" ],
		[ 'libdw', join('', check_libdw(\%f)),
		  "libdw outside dwarf/: tracer/u.h:1: #include \"dwarf/d.h\", which leads to:\n" .
		  "    dwarf/d.h:1: #include \"dwarf/e.h\"\n" .
		  "    dwarf/e.h:1: #include <elfutils/libdw.h>\n" ],
	);
	$inc->('probes/p.h', '"tracer/u.h"');
	push @tests, [ 'include cycle', join('', report_cycles('include', include_graph(\%f),
							       \&fmt_includes)),
		"include cycle: dwarf/d -> dwarf/e -> probes/p -> tracer/u -> dwarf/d\n" .
		"  dwarf/d -> dwarf/e:\n    dwarf/d.h:1: #include \"dwarf/e.h\"\n" .
		"  dwarf/e -> probes/p:\n    dwarf/e.h:2: #include \"probes/p.h\"\n" .
		"  probes/p -> tracer/u:\n    probes/p.h:2: #include \"tracer/u.h\"\n" .
		"  tracer/u -> dwarf/d:\n    tracer/u.h:1: #include \"dwarf/d.h\"\n" ];
	my $failed = 0;
	for my $t (@tests) {
		my ($name, $got, $want) = @$t;
		next if $got eq $want;
		print STDERR "lint-layers: selftest $name: got\n${got}wanted\n$want";
		$failed = 1;
	}
	exit $failed;
}

my ($objdir, $skip, $self) = ('build', '');
GetOptions('objdir=s' => \$objdir, 'skip=s' => \$skip, 'selftest' => \$self) && !@ARGV
	or fatal("usage: $0 [--objdir DIR] [--skip include,call,layers,libdw,readme] | --selftest\n");
selftest() if $self;
my %skip = map { ($_ => 1) } split /,/, $skip;
my $files = read_includes(@SRCDIRS);
my @bad;

my $inc = include_graph($files);
my $call = $skip{call} && $skip{layers} ? {} : call_graph($files, $objdir);
push @bad, report_cycles('include', $inc, \&fmt_includes) unless $skip{include};
push @bad, report_cycles('call', $call, \&fmt_symbols) unless $skip{call};
push @bad, check_layers('include', $inc, \&fmt_includes), check_layers('call', $call, \&fmt_symbols)
	unless $skip{layers};
push @bad, check_libdw($files) unless $skip{libdw};
push @bad, check_readme($files, 'README.md') unless $skip{readme};
print STDERR "lint-layers: $_" for @bad;
exit(@bad ? 1 : 0);
