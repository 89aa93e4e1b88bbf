tachyon-diff; echo "exit $?"; tachyon-diff --base a.bin x y
