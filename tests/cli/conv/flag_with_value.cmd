tachyon-conv --force=yes in.bin
