#!/usr/bin/env bash
# tests/docs/check_layers.sh ROOT [--dot]: the include graph of the C code points one way.
# Every "#include "<folder>/..."" in a library folder's .c/.h must name the folder itself or
# one of the folders it may depend on (the table below, docs/ARCHITECTURE.md, "Layout"); an
# include of any other project folder is an upward (or sideways) arrow and fails the check,
# one line per finding. It also fails when one folder holds more than 27 % of the library
# code (the house rule: about a quarter at most), and prints every folder's share.
# With --dot it prints the folder graph in Graphviz form instead (docs/layers.svg is drawn
# from it: `tests/docs/check_layers.sh . --dot | dot -Tsvg > docs/layers.svg`).
set -u
root=${1:-.}
cd "$root" || { echo "check_layers: cannot enter $root" >&2; exit 2; }
declare -A may=(
  [sim]=""
  [devices]="sim"
  [workloads]="sim"
  [policies]="sim devices workloads"
  [results]="sim"
  [runner/decode]="sim devices workloads policies results"
  [runner/study]="sim devices workloads policies results runner/decode"
  [runner/report]="sim devices workloads policies results runner/decode"
  [runner/calibrate]="sim devices workloads policies results runner/decode"
  [runner/testbed]="sim devices workloads policies results runner/decode runner/study runner/calibrate runner/report"
  [runner/cli]="sim devices workloads policies results runner/decode runner/study runner/report runner/calibrate runner/testbed"
)
folder_of() { # the library folder a path belongs to ("" when none)
  local p=$1
  case $p in runner/*/*) p=${p#runner/}; echo "runner/${p%%/*}" ;; */*) echo "${p%%/*}" ;; esac
}
fail=0 total=0
declare -A lines edges
for f in "${!may[@]}"; do
  [ -d "$f" ] || continue
  n=$(cat "$f"/*.[ch] 2>/dev/null | wc -l); lines[$f]=$n; total=$((total + n))
  for src in "$f"/*.[ch]; do
    [ -f "$src" ] || continue
    while IFS= read -r inc; do
      to=$(folder_of "$inc")
      [ -n "$to" ] && [ -n "${may[$to]+x}" ] || continue # system header or generated file
      [ "$to" = "$f" ] && continue
      edges["$f -> $to"]=1
      case " ${may[$f]} " in
        *" $to "*) ;;
        *) echo "$src: includes $inc: $f may not depend on $to"; fail=1 ;;
      esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src")
  done
done
if [ "${2:-}" = "--dot" ]; then
  echo 'digraph leversim { rankdir=BT; node [shape=box, fontname="Helvetica"];'
  for f in "${!lines[@]}"; do
    printf '  "%s" [label="%s\\n%d lines (%d %%)"];\n' "$f" "$f" "${lines[$f]}" $((100 * lines[$f] / total))
  done
  for e in "${!edges[@]}"; do printf '  "%s" -> "%s";\n' "${e% -> *}" "${e#* -> }"; done | sort
  echo '}'
  exit $fail
fi
for f in $(printf '%s\n' "${!lines[@]}" | sort); do
  share=$((100 * lines[$f] / total))
  printf '%-18s %6d lines %3d %%\n' "$f" "${lines[$f]}" "$share"
  if [ "$share" -gt 27 ]; then echo "$f: $share % of the library code (more than about a quarter)"; fail=1; fi
done
[ $fail -eq 0 ] && echo "check_layers: no upward include, no folder above 27 %"
exit $fail
