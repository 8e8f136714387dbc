#!/bin/sh
# The matrix for a given N is the same whatever the grid (each process makes
# only its own blocks by jumping ahead in the stream: the order-free checksum
# of [A|b] is the same on every grid, and for the seed it is given), and the
# solution is the same within rounding on every grid.
. "$(dirname "$0")/lib.sh"

n=203 nb=12
first=""
for g in "1 1 1" "2 1 2" "2 2 1" "4 2 2" "3 1 3" "3 3 1" "4 1 4" "4 4 1"; do
    set -- $g
    hpl "$1" -N $n --nb $nb -P "$2" -Q "$3" --matrix-checksum
    sum=$(sed -n 's/^matrix N=.* checksum \([0-9a-f]*\)$/\1/p' "$T/out")
    [ "$rc" -eq 0 ] && [ -n "$sum" ] || { fail "$2 x $3: no checksum (exit $rc)"; continue; }
    [ -z "$first" ] && first=$sum
    [ "$sum" = "$first" ] || fail "$2 x $3: matrix checksum $sum, 1 x 1 gave $first"
    # another seed, another matrix
    hpl "$1" -N $n --nb $nb -P "$2" -Q "$3" --matrix-checksum --seed 7
    other=$(sed -n 's/^matrix N=.* checksum \([0-9a-f]*\)$/\1/p' "$T/out")
    [ -n "$other" ] && [ "$other" != "$sum" ] || fail "$2 x $3: seed 7 gave the same checksum"
done
echo "pass: [A|b] of N=$n has checksum $first on every grid"

# The solution on each grid against the 1 x 1 one: the largest difference
# relative to ||x||_oo must stay within a few hundred eps.
for g in "1 1 1" "2 1 2" "2 2 1" "4 2 2" "3 1 3" "3 3 1" "4 1 4" "4 4 1"; do
    set -- $g
    hpl "$1" -N $n --nb $nb -P "$2" -Q "$3" --write-x "x.$2x$3"
    [ "$rc" -eq 0 ] && [ "$(counts)" = "1 0 0" ] || fail "$2 x $3: exit $rc, counts $(counts)"
done
for g in 1x2 2x1 2x2 1x3 3x1 1x4 4x1; do
    d=$(paste "$T/x.1x1" "$T/x.$g" | awk '{ a = $1 < 0 ? -$1 : $1; if (a > m) m = a
        d = $1 - $2; if (d < 0) d = -d; if (d > dm) dm = d; n++ }
        END { if (n != '"$n"') print "count " n; else printf "%.3e\n", dm / m }')
    case $d in
        count*) fail "$g: x has the wrong length ($d)" ;;
        *) awk -v d="$d" 'BEGIN { exit !(d <= 1e-13) }' || fail "$g: x differs from 1 x 1's by $d of ||x||" ;;
    esac
    echo "pass: $g: solution within $d of ||x||_oo of the 1 x 1 one"
done
finish
