tachyon-conv -qx in.bin
