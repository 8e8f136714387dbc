#!/bin/sh
# boltrun: output is forwarded line by line, never splicing two ranks' lines;
# --tag-output prefixes "[rank] "; over-long lines are cut into 64 KiB pieces.
. "$(dirname "$0")/lib.sh"

# 4 ranks each write 300 lines of 3000 characters (in odd-sized writes) to
# stdout and stderr at once.
gen='awk -v r="$BOLT_RANK" "BEGIN { s = sprintf(\"%3000s\", \"\"); gsub(/ /, r, s); for (i = 0; i < 300; i++) { print r \":\" i \":\" s; print r \":\" i \":\" s > \"/dev/stderr\" } }"'
# Counts lines that are not exactly [ "[r] " ] "r:i:" + 3000 copies of r, and
# ranks without their 300 lines.
check_lines() { # tag(0/1) file
    awk -v tag="$1" '
    BEGIN { for (r = 0; r < 4; r++) { s = sprintf("%3000s", ""); gsub(/ /, r, s); S[r] = s } }
    {
        line = $0
        if (tag) {
            if (substr(line, 1, 1) != "[" || substr(line, 3, 2) != "] ") { bad++; next }
            t = substr(line, 2, 1); line = substr(line, 5)
        }
        if (split(line, f, ":") != 3 || !(f[1] in S) || (tag && f[1] != t) || f[3] != S[f[1]]) { bad++; next }
        cnt[f[1]]++
    }
    END { for (r = 0; r < 4; r++) if (cnt[r] != 300) bad++; print bad + 0 }' "$2"
}

run --timeout 30 -np 4 --tag-output sh -c "$gen"
expect_rc 0 "tagged output"
for f in out err; do
    [ "$(wc -l <"$T/$f")" -eq 1200 ] || fail "$f has $(wc -l <"$T/$f") lines, not 1200"
    [ "$(check_lines 1 "$T/$f")" -eq 0 ] || fail "$f: lines spliced or mislabelled"
done

# Untagged: same lines, no prefix.
run --timeout 30 -np 4 sh -c "$gen"
expect_rc 0 "untagged output"
[ "$(check_lines 0 "$T/out")" -eq 0 ] || fail "untagged lines spliced"
[ "$(check_lines 0 "$T/err")" -eq 0 ] || fail "untagged stderr lines spliced"

# A 150000-byte line without newline comes out as pieces of 65536, 65536, 18928.
run --timeout 30 -np 1 sh -c 'dd if=/dev/zero bs=1000 count=150 2>/dev/null | tr "\\000" a'
expect_rc 0 "long line"
[ "$(awk '{ printf "%d ", length($0) }' "$T/out")" = "65536 65536 18928 " ] || fail "long line pieces: $(awk '{ printf "%d ", length($0) }' "$T/out")"
exit 0
