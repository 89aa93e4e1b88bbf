tachyon-conv nope.bin
