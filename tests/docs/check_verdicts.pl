#!/usr/bin/env perl
# tests/docs/check_verdicts.pl JSON FILE...: the verdicts a document quotes from the uncertainty
# study are the study's.
#
# A checked word or number is followed by an HTML comment (invisible when rendered):
#     holds<!-- u: fig14 verdict -->   0.42<!-- u: specinfer p_holds -->   overlap<!-- u: ar depends_on -->
# i.e. `u: CLAIM FIELD`, FIELD one of verdict, p_holds, median, p05, p95, depends_on (or
# `u: CLAIM index ASSUMPTION total|first_order`), or `u: run FIELD` for the study's size (samples,
# points, prompts, tokens, cpu_s, distinct_runs). JSON is `leversim uncertainty --json`'s output
# (results/uncertainty.json). A verdict is also derived again from p_holds: "holds" when the
# claim held at every sampled point (p_holds 1), "fails" at none (0), "depends" otherwise; the
# file's verdict must agree, and the word written must be that verdict ("holds", "fails",
# "depends"). Numbers must equal the file's to the decimals written. Exit 1 on any mismatch
# (one line each), 2 on a usage error or a document without a checked word.
use strict;
use warnings;
use JSON::PP;

die "usage: check_verdicts.pl JSON FILE...\n" if @ARGV < 2;
my ($json, @files) = @ARGV;
open(my $fh, '<', $json) or die "check_verdicts: $json: $!\n";
my $doc = decode_json(do { local $/; <$fh> });
my %claim = map { $_->{claim} => $_ } @{$doc->{claims}};
my ($bad, $seen) = (0, 0);
for my $c (values %claim) {
  my $p = $c->{p_holds};
  next unless defined $p;
  my $want = $p == 1 ? 'holds' : $p == 0 ? 'fails' : 'depends';
  if ($c->{verdict} ne $want) { print "$json: $c->{claim}: verdict $c->{verdict}, but p_holds $p says $want\n"; $bad = 1; }
}
for my $f (@files) {
  open(my $in, '<', $f) or die "check_verdicts: $f: $!\n";
  my $text = do { local $/; <$in> };
  while ($text =~ /([^\s(]+?)<!-- u: ([^ ]+) ([a-z0-9_]+)(?: ([a-z0-9-]+) ([a-z_]+))? -->/g) {
    my ($word, $id, $field, $asm, $kind) = ($1, $2, $3, $4, $5);
    $seen++;
    $word =~ s/[*×%,;:.]+$//; $word =~ s/^[*(]+//;
    my $c = $id eq 'run' ? $doc : $claim{$id}; # `u: run FIELD`: the study's own size (samples, cpu_s, ...)
    $c or do { print "$f: no claim '$id' in $json\n"; $bad = 1; next };
    my $v;
    if ($field eq 'index') {
      ($v) = map { $_->{$kind} } grep { $_->{assumption} eq ($asm // '') } @{$c->{indices}};
    } else { $v = $c->{$field}; }
    if (!defined $v) { print "$f: $id $field: no value in $json\n"; $bad = 1; next; }
    if ($v =~ /^-?[0-9.eE+-]+$/ && $word =~ /^-?[0-9.]+$/) {
      my ($dec) = $word =~ /\.([0-9]+)$/;
      my $half = 0.5 * 10**(-length($dec // ''));
      my $scale = $field eq 'p_holds' && $word > 1 ? 100 : 1; # written as a percentage
      if (abs($word - $scale * $v) > $half + 1e-12) { print "$f: $id $field: the text says $word, the study $v\n"; $bad = 1; }
    } elsif ($word ne $v) {
      print "$f: $id $field: the text says '$word', the study '$v'\n"; $bad = 1;
    }
  }
}
if (!$seen) { print "check_verdicts: no checked word in @files\n"; exit 2; }
exit $bad;
