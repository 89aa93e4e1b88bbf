tachyon-conv --help && tachyon-conv -h | cmp - <(tachyon-conv --help) && echo "(-h prints the same)"
