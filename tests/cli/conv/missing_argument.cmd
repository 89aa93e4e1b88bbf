tachyon-conv in.bin -o
