#!/usr/bin/perl
# make lint: a failed Criterion assertion in the unit tests prints the values it compared.
#
# Criterion 2.4's cr_assert_eq(a, b) and its kin print only "The expression (a) == (b) is
# false", a message given to cr_assert_str_eq() replaces the two strings, and a plain
# cr_assert(x == 2) under <criterion/new/assert.h> prints nothing but its line.  The forms of
# new/assert.h print both sides: cr_assert(eq(int, a, b)), ne, lt, le, gt, ge, eq(str, ...),
# eq(mem, ...).  This flags, in the files named:
#   - cr_assert_eq, _neq, _lt, _leq, _gt, _geq, _arr_eq, _arr_neq (and cr_expect_*);
#   - cr_assert_str_eq and _str_neq given a message;
#   - a comparison (== != < <= > >=) in the condition of a plain cr_assert() or cr_expect()
#     (or _not), unless the condition is one of new/assert.h's (eq(...), all(...), ...);
#   - all() and any(): in Criterion 2.4.1 all() leaks (make unit-asan fails) and any() fails
#     when its last alternative does; write one assertion per condition.
# It reads the C text only: a comparison hidden in a macro or a variable goes unseen.
use strict;
use warnings;

my $bad = 0;

sub report
{
	my ($file, $text, $pos, $msg) = @_;
	my $line = 1 + (substr($text, 0, $pos) =~ tr/\n//);

	print STDERR "$file:$line: $msg\n";
	$bad = 1;
}

# The top-level arguments of "(...)", in CODE (strings and comments already blanked).
sub args
{
	my ($code) = @_;
	my ($depth, $start, @out) = (0, 1);

	for my $i (0 .. length($code) - 1) {
		my $c = substr($code, $i, 1);
		if ($c eq '(' || $c eq '[' || $c eq '{') {
			$depth++;
		} elsif ($c eq ')' || $c eq ']' || $c eq '}') {
			push @out, substr($code, $start, $i - $start) if --$depth == 0;
		} elsif ($c eq ',' && $depth == 1) {
			push @out, substr($code, $start, $i - $start);
			$start = $i + 1;
		}
	}
	return @out;
}

for my $file (@ARGV) {
	open(my $fh, '<', $file) or die "$file: $!\n";
	my $text = do { local $/; <$fh> };
	close($fh);

	# Blank comments and the insides of literals, keeping every offset and newline.
	(my $code = $text) =~ s{("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(/\*.*?\*/|//[^\n]*)}{
		defined $1 ? substr($1, 0, 1) . ('x' x (length($1) - 2)) . substr($1, 0, 1)
			   : $2 =~ s/[^\n]/ /gr
	}gse;

	while ($code =~ /\bcr_(assert|expect)(_\w+)?\s*(?<p>\((?:[^()]++|(?&p))*\))/g) {
		my ($kind, $form, $call, $pos) = ($1, $2 // '', $+{p}, $-[0]);
		my @a = args($call);

		if ($form =~ /^_(eq|neq|lt|leq|gt|geq|arr_eq|arr_neq)$/) {
			report($file, $text, $pos, "cr_$kind$form() prints no values: use " .
			       "cr_$kind(eq(TYPE, a, b)) and its kin (criterion/new/assert.h)");
		} elsif ($form =~ /^_str_n?eq$/ && @a > 2) {
			report($file, $text, $pos, "cr_$kind$form() with a message prints only " .
			       "the message: use cr_$kind(eq(str, a, b), ...)");
		} elsif ($form =~ /^(|_not)$/ && @a &&
			 $a[0] !~ /^\s*(eq|ne|lt|le|gt|ge|zero|not|all|none|any)\s*\(/ &&
			 $a[0] =~ /(?<![-<>=!])(==|!=|<=|>=|<(?![<=])|>(?![>=]))/) {
			report($file, $text, $pos, "'$1' in cr_$kind$form() prints no values: " .
			       "use eq, ne, lt, le, gt or ge(TYPE, a, b)");
		}
		report($file, $text, $pos, "$1() is broken in Criterion 2.4.1 (all() leaks, any() " .
		       "fails when its last alternative does): one assertion per condition")
			if $call =~ /\b(all|any)\s*\(/;
	}
}
exit $bad;
