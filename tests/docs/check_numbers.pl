#!/usr/bin/env perl
# tests/docs/check_numbers.pl LEVERSIM DB FILE...: the numbers the documents quote from the replay
# are the replay's.
#
# A checked number is written in the text followed by an HTML comment (invisible when rendered):
#     2.91×<!-- q: summary speedup_mean system=ar-flash -->
#     89.3 %<!-- q: table1 io_share model=llama-3.1-8b part=table1 x100 -->
#     6<!-- q: fig12 device count system=lever tps_vs_no_prune_hi<1 -->
# i.e. `q: VIEW COLUMN [FILTER...] [x100] [AGG]`: the rows of `leversim export --view VIEW` from
# DB that pass every filter (col=value, col!=value, col<number, col>number; a value with spaces
# is written in double quotes: assumption="pad false"), then the column's
# value: the one row's (more or fewer rows is an error), or avg / min / max / count / median of
# the rows when AGG is given (invavg: the mean of 1/value, e.g. Lever's mean speedup from a
# vs_lever column, as view summary averages it); x100 turns a ratio into a percentage (x1000: seconds into ms), minus1x100 a ratio into a
# change in % (ratio - 1) x 100. The number written must equal it to the decimals written
# (|written - value| <= half a unit of its last digit). Output: one line per failure; exit 1 if
# any, 2 on a usage or query error; --list prints every checked number and its value; --fill
# writes them in (each {{D|spec}} becomes the value to D decimals followed by its marker).
# --view-db VIEW=DB (repeatable, before LEVERSIM): markers of view VIEW read DB instead, e.g.
# the `regime` markers from the regime study's database (`leversim reproduce --regime`).
use strict;
use warnings;

my ($list, $fill) = (0, 0);
my %view_db;
while (@ARGV) {
  if ($ARGV[0] eq '--list') { $list = 1; shift @ARGV; }
  elsif ($ARGV[0] eq '--fill') { $fill = 1; shift @ARGV; }
  elsif ($ARGV[0] eq '--view-db' && @ARGV > 1 && $ARGV[1] =~ /^([A-Za-z_0-9]+)=(.+)$/) {
    $view_db{$1} = $2; splice @ARGV, 0, 2;
  }
  else { last; }
}
die "usage: check_numbers.pl [--list | --fill] [--view-db VIEW=DB]... LEVERSIM DB FILE...\n" if @ARGV < 3;
my ($bin, $db, @files) = @ARGV;
my %cache;

sub split_csv {
  my ($line) = @_;
  my @f;
  while (length $line) {
    if ($line =~ s/^"((?:[^"]|"")*)"(?:,|$)//) { (my $v = $1) =~ s/""/"/g; push @f, $v; }
    elsif ($line =~ s/^([^,]*)(?:,|$)//) { push @f, $1; }
    else { last; }
  }
  return @f;
}

sub view_rows {
  my ($view) = @_;
  return $cache{$view} if $cache{$view};
  open(my $fh, '-|', $bin, 'export', '--db', $view_db{$view} // $db, '--view', $view, '--format', 'csv')
    or die "check_numbers: cannot run $bin: $!\n";
  local $/ = "\n";
  my @lines = <$fh>;
  close $fh or die "check_numbers: '$bin export --view $view' failed\n";
  chomp @lines;
  my @head = split_csv(shift @lines // '');
  my @rows;
  for my $l (@lines) {
    my @v = split_csv($l);
    my %r;
    @r{@head} = @v;
    push @rows, \%r;
  }
  return $cache{$view} = { head => \@head, rows => \@rows };
}

sub evaluate {
  my ($spec) = @_;
  my ($view, $col, @rest) = map { s/^([^"]*)"(.*)"$/$1$2/r } ($spec =~ /(?:[^\s"]+|"[^"]*")+/g);
  die "check_numbers: '$spec': a view and a column are needed\n" unless defined $col;
  my $t = view_rows($view);
  die "check_numbers: view $view has no column $col\n" unless grep { $_ eq $col } @{$t->{head}};
  my ($scale, $agg, @filters) = ('', '');
  for my $w (@rest) {
    if ($w eq 'x100' || $w eq 'x1000' || $w eq 'minus1x100') { $scale = $w; }
    elsif ($w =~ /^(avg|invavg|min|max|count|median)$/) { $agg = $w; }
    elsif ($w =~ /^([A-Za-z_0-9]+)(!=|=|<|>)(.*)$/) { push @filters, [$1, $2, $3]; }
    else { die "check_numbers: '$spec': cannot read '$w'\n"; }
  }
  my @vals;
  ROW: for my $r (@{$t->{rows}}) {
    for my $f (@filters) {
      my ($c, $op, $v) = @$f;
      die "check_numbers: view $view has no column $c\n" unless exists $r->{$c};
      my $x = $r->{$c} // '';
      next ROW if $op eq '=' && $x ne $v;
      next ROW if $op eq '!=' && $x eq $v;
      next ROW if $op eq '<' && !($x ne '' && $x < $v);
      next ROW if $op eq '>' && !($x ne '' && $x > $v);
    }
    push @vals, $r->{$col};
  }
  my $n = scalar @vals;
  my $v;
  if ($agg eq 'count') { $v = $n; }
  else {
    die "check_numbers: '$spec' matches $n rows\n" if $n == 0 || (!$agg && $n != 1);
    my @s = sort { $a <=> $b } @vals;
    if (!$agg) { $v = $vals[0]; }
    elsif ($agg eq 'avg') { my $t = 0; $t += $_ for @vals; $v = $t / $n; }
    elsif ($agg eq 'invavg') { my $t = 0; $t += 1 / $_ for @vals; $v = $t / $n; }
    elsif ($agg eq 'min') { $v = $s[0]; }
    elsif ($agg eq 'max') { $v = $s[-1]; }
    else { $v = $n % 2 ? $s[($n - 1) / 2] : ($s[$n / 2 - 1] + $s[$n / 2]) / 2; }
  }
  $v *= 100 if $scale eq 'x100';
  $v *= 1000 if $scale eq 'x1000';
  $v = ($v - 1) * 100 if $scale eq 'minus1x100';
  return $v;
}

# --fill (for writing a document): each {{D|spec}} becomes the value to D decimals and its marker.
if ($fill) {
  for my $file (@files) {
    open(my $in, '<', $file) or die "check_numbers: cannot read $file: $!\n";
    local $/;
    my $text = <$in>;
    close $in;
    $text =~ s/\{\{(\d+)\|(.*?)\}\}/sprintf("%.*f", $1, evaluate($2)) . "<!-- q: $2 -->"/ge;
    open(my $out, '>', $file) or die "check_numbers: cannot write $file: $!\n";
    print $out $text or die "check_numbers: cannot write $file: $!\n";
    close $out or die "check_numbers: cannot write $file: $!\n";
  }
  exit 0;
}

my ($bad, $seen) = (0, 0);
for my $file (@files) {
  open(my $fh, '<', $file) or die "check_numbers: cannot read $file: $!\n";
  my $ln = 0;
  while (my $line = <$fh>) {
    $ln++;
    while ($line =~ /((?:[-+]|−)?\d[\d,]*(?:\.(\d+))?)\s*(?:%|×|x|\s)?\s*<!--\s*q:\s*(.*?)\s*-->/g) {
      my ($text, $dec, $spec) = ($1, $2 // '', $3);
      (my $num = $text) =~ s/,//g;
      $num =~ s/−/-/;
      my $v = evaluate($spec);
      $seen++;
      my $tol = 0.5 * 10**(-length $dec) + 1e-9;
      my $ok = abs($num - $v) <= $tol;
      printf "%s:%d: %s = %.6g (%s)\n", $file, $ln, $text, $v, $spec if $list;
      next if $ok;
      printf "%s:%d: the text says %s, the replay gives %.*f (%s)\n", $file, $ln, $text,
        length($dec), $v, $spec;
      $bad++;
    }
  }
  close $fh;
}
die "check_numbers: no checked number in @files\n" unless $seen;
exit($bad ? 1 : 0);
