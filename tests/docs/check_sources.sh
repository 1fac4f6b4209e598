#!/usr/bin/env bash
# tests/docs/check_sources.sh ROOT: the repository's citations are closed.
# Fails (exit 1, one line per finding) when
#   (a) a citation src:<id> anywhere in the repository is not defined in docs/SOURCES.md
#       (a definition is a heading line "### src:<id>"; an id defined twice also fails);
#   (b) a file refers to documents outside the repository or to a machine path (the design
#       and reference notes the project started from, a sibling "shared" folder, absolute
#       home or work folders);
#   (c) an entry of docs/SOURCES.md lacks a non-empty "- **Reference**:" line or a
#       "- **Confidence**:" line naming primary, secondary or weak;
#   (d) a comment cites a section of docs/ARCHITECTURE.md (the file name, a comma, the
#       heading in double quotes) that the document does not have.
# Files checked: every file git tracks or would track (untracked, not ignored), text only;
# .ci/ (the lead's machinery) is exempt from (b). Without git, every file under ROOT except
# build folders.
set -u
root=${1:-.}
cd "$root" || { echo "check_sources: cannot enter $root" >&2; exit 2; }
sources=docs/SOURCES.md
[ -f "$sources" ] || { echo "$sources: missing" >&2; exit 1; }

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list() { git ls-files -z --cached --others --exclude-standard; }
else
  list() { find . -type f -not -path './build*' -not -path './.git/*' -printf '%P\0'; }
fi
files=$(mktemp) && trap 'rm -f "$files"' EXIT
list | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done >"$files"

fail=0
id_re='src:[a-z0-9][a-z0-9-]*'

# (a) used ids against defined ids. "src:<id>" (the placeholder) does not match id_re.
defined=$(grep -oE "^### $id_re\$" "$sources" | sed 's/^### //' | sort)
dups=$(printf '%s\n' "$defined" | uniq -d)
for d in $dups; do echo "$sources: $d is defined more than once"; fail=1; done
# One awk pass over every hit (file, line, then the citation), the defined ids loaded first.
# A hyphen ending a hit is punctuation, not part of the id.
xargs -0 grep -InoE "$id_re" -- <"$files" |
  awk -v defs="$defined" -v where="$sources" '
    BEGIN { n = split(defs, d, "\n"); for (i = 1; i <= n; i++) ok[d[i]] = 1 }
    { id = $0; sub(/^[^:]*:[^:]*:/, "", id); sub(/-$/, "", id); at = substr($0, 1, length($0) - length(id))
      if (!(id in ok)) { sub(/:[^:]*$/, "", at); printf "%s: %s is not defined in %s\n", at, id, where; bad = 1 } }
    END { exit bad }' || fail=1

# (b) references outside the repository. The pattern is assembled so this file does not
# match itself.
d='DESIGN'; r='REFERENCE'; w='work'; s='REF'
outside="($d|$r)\\.md|\\.\\./shared|/$w/|$s §|/home/[a-z]|/Users/[A-Za-z]"
while IFS= read -r hit; do
  echo "$hit: refers outside the repository (cite src:<id> from $sources or a docs/ file)"; fail=1
done < <(tr '\0' '\n' <"$files" | grep -v '^\.ci/' | tr '\n' '\0' | xargs -0 grep -InE "$outside" --)

# (d) a comment citing a section of docs/ARCHITECTURE.md names a heading that exists there.
arch=docs/ARCHITECTURE.md
while IFS=: read -r f line cite; do
  name=${cite#*\"}; name=${name%\"}
  if ! grep -qxE "#+ $(printf '%s' "$name" | sed 's/[][\\.*^$/]/\\&/g')" "$arch" 2>/dev/null; then
    echo "$f:$line: $arch has no section \"$name\""; fail=1
  fi
done < <(xargs -0 grep -InoE 'ARCHITECTURE\.md, "[^"]+"' -- <"$files")

# (c) each entry has a reference and a confidence.
awk -v file="$sources" '
  function close_entry() {
    if (id == "") return
    if (!ref) { printf "%s:%d: %s has no \"- **Reference**:\" line\n", file, at, id; bad = 1 }
    if (!conf) { printf "%s:%d: %s has no \"- **Confidence**:\" primary, secondary or weak\n", file, at, id; bad = 1 }
  }
  /^#/ { close_entry(); id = ""; if ($1 == "###" && $2 ~ /^src:/) { id = $2; at = NR; ref = 0; conf = 0 } ; next }
  id != "" && /^- \*\*Reference\*\*:[ ]*[^ ]/ { ref = 1 }
  id != "" && /^- \*\*Confidence\*\*:.*(primary|secondary|weak)/ { conf = 1 }
  END { close_entry(); exit bad }
' "$sources" || fail=1

[ "$fail" = 0 ] && echo "check_sources: $(printf '%s\n' "$defined" | grep -c .) sources, citations closed"
exit "$fail"
