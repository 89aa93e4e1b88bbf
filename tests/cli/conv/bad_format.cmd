tachyon-conv --to xml in.bin; echo "exit $?"; tachyon-conv -tbin -c lz4 in.bin
