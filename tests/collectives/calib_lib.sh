# calib_lib.sh — synthetic calibrations of a 4-host full mesh for the tests
# of the collectives' per-link model (sourced by tests/collectives/info_coll.sh
# and tests/cluster/coll_links.sh). calib_write DIR writes:
#   DIR/slow       h2-h3 slow (rank order's ring would cross it)
#   DIR/good       every link alike
#   DIR/ringwired  cabled as a ring h1-h2-h3-h4-h1 (no h1-h3, no h2-h4)
# Every other link: 30 us, 0.8 ns per byte. HOSTS: 2 ranks per host.
HOSTS=h1:2,h2:2,h3:2,h4:2
calib_good="alpha_us=30 beta_ab_ns=0.8 beta_ba_ns=0.8"
calib_file() { # FILE "A B KEYS"...
    f=$1
    shift
    { echo "bolt-calibration 1"
      for i in 1 2 3 4; do echo "host h$i cores=2 l2=2097152"; done
      for l in "$@"; do echo "link $l"; done; } >"$f"
}
calib_write() {
    g=$calib_good
    calib_file "$1/slow" "h1 h2 $g" "h1 h3 $g" "h1 h4 $g" "h2 h3 alpha_us=90 beta_ab_ns=8 beta_ba_ns=7 slow=1" \
        "h2 h4 $g" "h3 h4 $g"
    calib_file "$1/good" "h1 h2 $g" "h1 h3 $g" "h1 h4 $g" "h2 h3 $g" "h2 h4 $g" "h3 h4 $g"
    calib_file "$1/ringwired" "h1 h2 $g" "h1 h4 $g" "h2 h3 $g" "h3 h4 $g"
}
# The rows of bolt-info --coll's table ("8 B  rd  binomial  rd").
table() { grep -E '^[0-9]+ (B|KiB|MiB) ' "$1"; }
